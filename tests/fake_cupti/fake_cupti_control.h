/* fake_cupti_control.h - test-control API of the fake libcupti.so.13.

   The fake (fake_cupti.c) implements the CUPTI entry points listed in
   DESIGN.md with the signatures of the CUDA 13 headers, so a test links
   "-lcupti" against it instead of NVIDIA's library and drives it from here:
   queue activity records, deliver them through the registered
   bufferCompleted callback on the next cuptiActivityFlushAll, inject
   failures, fire runtime-API callbacks at the subscriber, and read back what
   the code under test asked CUPTI to do.

   Every function is thread safe. None of them calls back into the client
   while holding the fake's lock. fake_cupti_reset() returns everything to the
   state of a freshly loaded library on a machine with one working GPU. */
#ifndef FAKE_CUPTI_CONTROL_H
#define FAKE_CUPTI_CONTROL_H

#include <stddef.h>
#include <stdint.h>
#include <cupti.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ----- whole library ---------------------------------------------------- */

/* Back to a fresh process with a GPU: no subscriber, no callbacks, nothing
   enabled or queued, no injected results, counters zero, device 0 current,
   default delivery. The environment variable FAKE_CUPTI_ENV=gpu|no_driver|
   stub_driver|other_subscriber, read at load and by every reset, selects one
   of the environments below instead of "a GPU", so an unmodified program can
   be run as if on another machine. Frees interned strings (kernel names): call it only
   when no record handed out earlier is still being read. */
void fake_cupti_reset(void);

/* ----- environments (what the real library does on other machines) ------ */

/* No libcuda.so.1 at all, as observed with the real CUDA 13.0 libcupti on a
   machine without a driver: cuptiSubscribe, cuptiSetThreadIdType,
   cuptiGetDeviceId, cuptiActivityRegisterTimestampCallback,
   cuptiActivityEnable, cuptiActivityEnableAndDump, cuptiActivityDisable and
   cuptiActivityFlushAll return CUPTI_ERROR_UNKNOWN (999);
   cuptiActivityRegisterCallbacks, cuptiGetVersion, cuptiGetTimestamp,
   cuptiGetCallbackName, cuptiGetResultString,
   cuptiActivityGetNumDroppedRecords (0), cuptiActivityGetNextRecord and
   cuptiFinalize succeed; cuptiEnableCallback and cuptiUnsubscribe with the
   NULL handle return CUPTI_ERROR_INVALID_PARAMETER. */
void fake_cupti_simulate_no_driver(void);
/* The toolkit's stub libcuda.so.1 on the library path (observed): as above,
   and cuptiActivityRegisterCallbacks fails with CUPTI_ERROR_UNKNOWN too. */
void fake_cupti_simulate_stub_driver(void);
/* Every call that needs a device (the CUPTI_ERROR_UNKNOWN list above)
   returns `code` instead, e.g. CUPTI_ERROR_NOT_INITIALIZED or
   CUPTI_ERROR_INVALID_DEVICE. (CUDA 13 has no CUPTI_ERROR_NO_DEVICE.) */
void fake_cupti_simulate_unavailable(CUptiResult code);
/* on != 0: another CUPTI client (Nsight Systems, compute-sanitizer, a second
   profiler) holds the subscriber slot, so cuptiSubscribe returns
   CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED. The activity API keeps
   working; use fake_cupti_set_result for anything else. */
void fake_cupti_simulate_other_subscriber(int on);
/* Back to a working GPU (keeps queued records and registrations). */
void fake_cupti_simulate_gpu(void);

/* ----- injected results ---------------------------------------------------
   `api` is an entry point's name, e.g. "cuptiActivityEnable". The next
   `times` calls (-1 = every call, 0 = clear) return `result` without doing
   anything (arguments are checked first, except in
   cuptiActivityRegisterCallbacks, which the real library fails first). Returns 0, or -1 for a name
   the fake does not implement. Takes precedence over the environments. */
int fake_cupti_set_result(const char *api, CUptiResult result, int times);
/* cuptiActivityEnable / cuptiActivityEnableAndDump(kind) return `result`
   (CUPTI_SUCCESS clears), e.g. CUPTI_ERROR_NOT_COMPATIBLE for one kind. */
void fake_cupti_set_enable_result(CUpti_ActivityKind kind, CUptiResult result);
/* What cuptiGetVersion reports (default CUPTI_API_VERSION of the headers). */
void fake_cupti_set_version(uint32_t version);

/* ----- activity records ---------------------------------------------------
   A queued record is copied; it is "generated" now, so it is kept only if
   its kind is enabled at this moment (as CUPTI generates nothing for a
   disabled kind) unless fake_cupti_set_generate_disabled(1). It is handed to
   bufferCompleted on the next cuptiActivityFlushAll (or
   fake_cupti_deliver_pending). Each record occupies exactly
   sizeof(<its CUDA 13.0 struct>) bytes in the buffer, as in the real library.
   Return: 0 queued, 1 not generated (kind disabled, or dropped by
   fake_cupti_drop_next), -1 bad record / out of memory. Strings in a queued
   record (kernel name, memory name/source) are copied and stay valid until
   fake_cupti_reset; a DEVICE record's name is malloc'd per record and the
   client owns it once delivered (free() it, as the CUPTI 13 header says). */
int fake_cupti_queue(const void *record);   /* any kind the fake knows */
int fake_cupti_queue_kernel(const CUpti_ActivityKernel10 *k);
int fake_cupti_queue_memcpy(const CUpti_ActivityMemcpy6 *m);
int fake_cupti_queue_memset(const CUpti_ActivityMemset4 *m);
int fake_cupti_queue_api(const CUpti_ActivityAPI *a);  /* RUNTIME or DRIVER */
int fake_cupti_queue_sync(const CUpti_ActivitySynchronization2 *s);
int fake_cupti_queue_memory(const CUpti_ActivityMemory4 *m);
int fake_cupti_queue_device(const CUpti_ActivityDevice5 *d);
/* Bytes a record of `kind` occupies in a buffer; 0 for a kind the fake
   does not know. */
size_t fake_cupti_record_size(CUpti_ActivityKind kind);

/* Builders: a record with plausible defaults (device 0, context 1, stream 7,
   a thread id of the calling thread in the current thread-id type), ready
   to adjust and queue. `name` is copied when the record is queued. */
CUpti_ActivityKernel10 fake_cupti_kernel(const char *name, uint64_t start, uint64_t end, uint32_t correlation_id);
CUpti_ActivityMemcpy6 fake_cupti_memcpy(CUpti_ActivityMemcpyKind copy_kind, uint64_t bytes, uint64_t start, uint64_t end, uint32_t correlation_id);
CUpti_ActivityMemset4 fake_cupti_memset(uint64_t bytes, uint32_t value, uint64_t start, uint64_t end, uint32_t correlation_id);
/* kind: CUPTI_ACTIVITY_KIND_RUNTIME or CUPTI_ACTIVITY_KIND_DRIVER */
CUpti_ActivityAPI fake_cupti_api(CUpti_ActivityKind kind, CUpti_CallbackId cbid, uint64_t start, uint64_t end, uint32_t correlation_id);
CUpti_ActivitySynchronization2 fake_cupti_sync(CUpti_ActivitySynchronizationType type, uint64_t start, uint64_t end, uint32_t correlation_id);
/* op: CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION or _RELEASE */
CUpti_ActivityMemory4 fake_cupti_memory(CUpti_ActivityMemoryOperationType op, uint64_t address, uint64_t bytes, uint64_t timestamp, uint32_t correlation_id);
/* An H100-like device (132 SMs, cc 9.0, 80 GiB, 64 warps/SM). */
CUpti_ActivityDevice5 fake_cupti_device(uint32_t id, const char *name);

/* Devices present in the process: cuptiActivityEnableAndDump(
   CUPTI_ACTIVITY_KIND_DEVICE) queues one DEVICE record per added device
   (plain cuptiActivityEnable does not: CUDA was initialised before).
   Returns 0, or -1 when full (16 devices). */
int fake_cupti_add_device(const CUpti_ActivityDevice5 *d);

/* 1 = keep records queued while their kind is disabled (default 0). */
void fake_cupti_set_generate_disabled(int on);

/* ----- delivery -------------------------------------------------------- */
enum {
    FAKE_CUPTI_ORDER_QUEUED = 0,        /* records and buffers as queued */
    FAKE_CUPTI_ORDER_REVERSED = 1,      /* records in reverse order */
    FAKE_CUPTI_ORDER_BUFFERS_REVERSED = 2, /* buffers completed last first */
    FAKE_CUPTI_ORDER_SHUFFLED = 3       /* records shuffled with `seed` */
};
typedef struct fake_cupti_delivery {
    size_t records_per_buffer; /* at most this many per buffer; 0 = fill */
    int order;                 /* FAKE_CUPTI_ORDER_* */
    unsigned seed;             /* for FAKE_CUPTI_ORDER_SHUFFLED */
    int empty_buffers;         /* extra buffers completed with validSize 0 */
    int from_thread;           /* call bufferCompleted from another thread
                                  (joined before the flush returns), as
                                  CUPTI's worker thread does */
    int hold_until_forced;     /* flushes without
                                  CUPTI_ACTIVITY_FLAG_FLUSH_FORCED deliver
                                  nothing (records still "incomplete") */
    int per_thread_buffers;    /* as the real library: a queued record goes
                                  into the calling thread's buffer, asked
                                  for with bufferRequested on that thread;
                                  a full buffer (records_per_buffer, or its
                                  size) is completed at once from another
                                  thread (mid-session), the rest by the
                                  next flush; order options do not apply */
} fake_cupti_delivery;
/* NULL = defaults (all zero). Applies to later deliveries. */
void fake_cupti_set_delivery(const fake_cupti_delivery *d);
/* Deliver the queued records now, as CUPTI does when a buffer fills up
   mid-session (not counted as a cuptiActivityFlushAll call). Returns the
   number of records delivered, or -1 without registered buffer callbacks. */
int fake_cupti_deliver_pending(void);

/* ----- dropped records ------------------------------------------------- */
/* Adds to what the next cuptiActivityGetNumDroppedRecords reports. */
void fake_cupti_add_dropped(size_t n);
/* The next n queued records are lost (counted as dropped, queue returns 1). */
void fake_cupti_drop_next(size_t n);
/* (A bufferRequested that returns NULL drops the records that needed it;
   they are counted too.) */

/* ----- clock ----------------------------------------------------------- */
/* cuptiGetTimestamp returns `ts` from now on. */
void fake_cupti_set_timestamp(uint64_t ts);
/* Back to the default: the registered timestamp callback if any, else
   CLOCK_REALTIME in ns (the real library's default on Linux). */
void fake_cupti_unset_timestamp(void);
/* What cuptiGetTimestamp would return now (for building records in the
   clock the code under test registered). */
uint64_t fake_cupti_now(void);
/* The callback passed to cuptiActivityRegisterTimestampCallback, or NULL. */
CUpti_TimestampCallbackFunc fake_cupti_timestamp_callback(void);
/* The calling thread's id as CUPTI would write it in CUpti_ActivityAPI:
   gettid() after cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
   else (uint32_t)pthread_self(). */
uint32_t fake_cupti_thread_id(void);

/* ----- callback API (subscriber) --------------------------------------- */
/* Device whose context the fired callbacks carry (default 0). */
void fake_cupti_set_device(uint32_t device);
/* The opaque CUcontext the fake uses for `device`; cuptiGetDeviceId maps
   it back. Never dereference it. */
CUcontext fake_cupti_context(uint32_t device);
/* Calls the subscriber for (domain, cbid) at `site` if it subscribed and
   enabled that callback, with a CUpti_CallbackData carrying functionName
   (as cuptiGetCallbackName), params, return value (pass NULL at ENTER), the
   current device's context and the correlation id. `correlation_data`
   (may be NULL: the fake supplies one) is shared between ENTER and EXIT.
   Returns 1 if the subscriber was called, else 0. */
int fake_cupti_fire_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
                        const void *params, void *return_value, uint32_t correlation_id,
                        uint64_t *correlation_data);
/* A whole runtime call (ENTER then EXIT) with the real parameter structs:
   cudaMalloc_v3020_params / cudaFree_v3020_params / cudaMallocAsync_v11020_params
   / cudaFreeAsync_v11020_params. At EXIT *devPtr == ptr and the return value
   is `result`. Return how many callbacks reached the subscriber (0..2). */
int fake_cupti_cuda_malloc(void *ptr, size_t size, cudaError_t result, uint32_t correlation_id);
int fake_cupti_cuda_free(void *ptr, cudaError_t result, uint32_t correlation_id);
int fake_cupti_cuda_malloc_async(void *ptr, size_t size, cudaStream_t stream, cudaError_t result, uint32_t correlation_id);
int fake_cupti_cuda_free_async(void *ptr, cudaStream_t stream, cudaError_t result, uint32_t correlation_id);
/* 1 if the subscriber enabled (domain, cbid). */
int fake_cupti_callback_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/* ----- what the code under test did ------------------------------------ */
typedef struct fake_cupti_state {
    int subscribed;
    int buffer_callbacks_registered;
    int timestamp_callback_registered;
    int timestamp_callback_after_enable; /* registered while a kind was on */
    uint64_t enabled_kinds;              /* bit k set = kind k enabled */
    int thread_id_type;                  /* CUpti_ActivityThreadIdType */
    size_t pending_records;              /* queued, not delivered yet */
    size_t delivered_records;
    size_t delivered_buffers;            /* bufferCompleted calls */
    size_t requested_buffers;            /* bufferRequested calls */
    size_t dropped;                      /* next GetNumDroppedRecords value */
    size_t discarded_at_finalize;        /* pending records cuptiFinalize lost */
    int flush_count;                     /* cuptiActivityFlushAll calls */
    uint32_t last_flush_flag;
    int finalize_count;
    size_t misuse_count;                 /* see fake_cupti_misuse_count */
    int all_sync_records;                /* last cuptiActivityEnableAllSyncRecords, -1 = none */
    size_t open_buffers;                 /* per-thread buffers being filled */
} fake_cupti_state;
void fake_cupti_get_state(fake_cupti_state *out);
/* Called with the entry point's name at the start of every CUPTI call
   (after it is counted, before anything else; no lock held), on the
   caller's thread; NULL removes it. For example, to model the real
   library's slow calls (the first cuptiActivityEnable can take a long time)
   by advancing a test's clock, or to record the order of the calls. */
typedef void (*fake_cupti_call_hook_fn)(const char *api, void *user_data);
void fake_cupti_set_call_hook(fake_cupti_call_hook_fn hook, void *user_data);
/* Calls of an entry point since the last reset (-1: unknown name). */
int fake_cupti_call_count(const char *api);
/* Uses of the API that the real library would not survive or that lose
   data silently: a buffer not 8-byte aligned or too small for one record, a
   record pointer outside its buffer, cuptiActivityFlushAll/cuptiFinalize
   from inside bufferCompleted, cuptiActivityGetNumDroppedRecords from inside
   bufferCompleted (it can deadlock there, as Kineto notes: read it after the
   flush instead). Each is also printed on stderr. */
size_t fake_cupti_misuse_count(void);

/* ----- the real library's behaviour ------------------------------------- */
/* CUPTI before 13.1 (fake_cupti_set_version < 130100) with a timestamp
   callback registered delivers some kernels with zero start and end: the
   next n kernels queued lose theirs (nothing happens otherwise). */
void fake_cupti_lose_kernel_timestamps(size_t n);
/* Runs after every timestamp the fake takes itself (below), e.g. to move a
   test's clock on; NULL removes it. */
void fake_cupti_set_tick(void (*tick)(void *), void *user_data);
/* An API call as CUPTI records it: enter takes the next correlation id (one
   counter for runtime and driver calls, as in CUPTI) and the start from the
   registered timestamp callback; exit stamps the end and queues the
   innermost open call of this thread (calls nest, 16 deep). */
uint32_t fake_cupti_api_enter(CUpti_ActivityKind kind, CUpti_CallbackId cbid);
int fake_cupti_api_exit(void);
/* Launches as CUDA 13 records them; the kernel runs [gpu_start, gpu_end]
   and carries the launching call's correlation id (returned). */
enum {
    FAKE_CUPTI_LAUNCH_CHEVRON = 0,    /* <<<>>>: runtime __cudaPushCallConfiguration,
                                         __cudaPopCallConfiguration, __cudaLaunchKernel */
    FAKE_CUPTI_LAUNCH_RUNTIME = 1,    /* cudaLaunchKernel */
    FAKE_CUPTI_LAUNCH_RUNTIME_EX = 2, /* cudaLaunchKernelExC */
    FAKE_CUPTI_LAUNCH_DRIVER = 3      /* cuLaunchKernel */
};
uint32_t fake_cupti_launch(int how, const char *kernel, uint64_t gpu_start, uint64_t gpu_end);
/* cudaMemcpy: the runtime call around a driver cuMemcpy*; the copy's
   correlationId is the driver call's, its runtimeCorrelationId the runtime
   call's (returned). */
uint32_t fake_cupti_memcpy_call(CUpti_ActivityMemcpyKind kind, uint64_t bytes, uint64_t gpu_start, uint64_t gpu_end);
/* cudaGraphLaunch of n kernels: all carry its one correlation id and
   graph_id, node ids distinct; kernel i runs from gpu_start + i * step for
   dur ns. Returns the correlation id. */
uint32_t fake_cupti_graph_launch(uint32_t graph_id, const char *const *kernels, size_t n, uint64_t gpu_start, uint64_t step, uint64_t dur);
/* cudaMalloc / cudaFree (kind DEVICE, MANAGED, ...) or cudaMallocHost /
   cudaFreeHost (kind PINNED) with its MEMORY2 record. */
uint32_t fake_cupti_malloc_call(CUpti_ActivityMemoryKind kind, uint64_t address, uint64_t bytes, int release);

#ifdef __cplusplus
}
#endif
#endif /* FAKE_CUPTI_CONTROL_H */
