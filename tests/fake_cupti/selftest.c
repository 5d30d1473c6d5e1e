/* selftest.c - checks the fake libcupti through the CUPTI API itself and
   fake_cupti_control.h (no prof.h): records come back byte for byte as
   queued, in the requested buffer splits and orders; failures, dropped
   records, the clock and the subscriber callbacks behave as documented.
   Built and run by build.sh OUT --check. Exit status 0 = all passed. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>
#include "fake_cupti_control.h"

static int failures;
#define CHECK(c) do { if (!(c)) { failures++; fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); } } while (0)
#define CHECK_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
    if (a_ != b_) { failures++; fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, a_, #b, b_); } } while (0)

/* ----- a minimal client: the buffer handling prof.h is meant to do ------- */
#define MAX_RECS 256
#define MAX_BUFS 64
static struct {
    pthread_mutex_t mu;
    unsigned char recs[MAX_RECS][256]; /* copies of the delivered records */
    size_t nrecs;
    size_t buf_valid[MAX_BUFS];        /* validSize of each completed buffer */
    uint32_t buf_first_corr[MAX_BUFS]; /* correlation id of its first API record */
    size_t nbufs;
    pthread_t completer[MAX_BUFS];
    size_t buf_size;                   /* what bufferRequested hands out */
    int decline;                       /* bufferRequested returns NULL */
    int misalign;
    int flush_inside;                  /* call cuptiActivityFlushAll from bufferCompleted */
    int dropped_inside;                /* call cuptiActivityGetNumDroppedRecords there */
} C = { PTHREAD_MUTEX_INITIALIZER, {{0}}, 0, {0}, {0}, 0, {0}, 1 << 16, 0, 0, 0, 0 };

static pthread_t last_requester; /* the thread of the last bufferRequested */
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    last_requester = pthread_self();
    *max_records = 0;
    if (C.decline) { *buffer = NULL; *size = 0; return; }
    *size = C.buf_size;
    *buffer = (uint8_t *)aligned_alloc(8, C.buf_size + 8);
    if (C.misalign && *buffer) (*buffer)++;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
    CUpti_Activity *r = NULL;
    uint32_t first_corr = 0;
    (void)ctx; (void)stream; (void)size;
    pthread_mutex_lock(&C.mu);
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
        size_t n = fake_cupti_record_size(r->kind);
        if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME && !first_corr) first_corr = ((CUpti_ActivityAPI *)r)->correlationId;
        if (C.nrecs < MAX_RECS && n <= sizeof C.recs[0]) memcpy(C.recs[C.nrecs++], r, n);
    }
    if (C.nbufs < MAX_BUFS) {
        C.buf_valid[C.nbufs] = valid;
        C.buf_first_corr[C.nbufs] = first_corr;
        C.completer[C.nbufs] = pthread_self();
        C.nbufs++;
    }
    pthread_mutex_unlock(&C.mu);
    if (C.flush_inside) cuptiActivityFlushAll(0);
    if (C.dropped_inside) {
        size_t n = 0;
        cuptiActivityGetNumDroppedRecords(NULL, 0, &n);
    }
    if (C.misalign) buffer--;
    free(buffer);
}

static void client_clear(void) {
    pthread_mutex_lock(&C.mu);
    C.nrecs = C.nbufs = 0;
    pthread_mutex_unlock(&C.mu);
}

static uint64_t CUPTIAPI mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Session start as DESIGN.md lays it out; returns the first failure. */
static CUptiResult start_session(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc cb, void *ud) {
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
        CUPTI_ACTIVITY_KIND_MEMORY2,
    };
    CUptiResult r;
    size_t i;
    if ((r = cuptiSubscribe(sub, cb, ud)) != CUPTI_SUCCESS) return r;
    if ((r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)) != CUPTI_SUCCESS) return r;
    if ((r = cuptiActivityRegisterTimestampCallback(mono_ns)) != CUPTI_SUCCESS) return r;
    if ((r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) return r;
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if ((r = cuptiActivityEnable(kinds[i])) != CUPTI_SUCCESS) return r;
    return CUPTI_SUCCESS;
}

static void CUPTIAPI no_callback(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data) {
    (void)ud; (void)d; (void)id; (void)data;
}

/* ----- tests ------------------------------------------------------------- */

static void test_records_round_trip(void) {
    CUpti_SubscriberHandle sub = NULL;
    CUpti_ActivityKernel10 k;
    CUpti_ActivityMemcpy6 mc;
    CUpti_ActivityMemset4 ms;
    CUpti_ActivityAPI rt, drv;
    CUpti_ActivitySynchronization2 sy;
    CUpti_ActivityMemory4 mem;
    const CUpti_ActivityKernel10 *gk;
    size_t dropped = 99;
    fake_cupti_state st;
    char name[32];

    fake_cupti_reset();
    client_clear();
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_SUCCESS);
    fake_cupti_get_state(&st);
    CHECK(st.subscribed && st.buffer_callbacks_registered && st.timestamp_callback_registered);
    CHECK(!st.timestamp_callback_after_enable);
    CHECK_EQ(st.thread_id_type, CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    CHECK(st.enabled_kinds >> CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL & 1);
    CHECK(!(st.enabled_kinds >> CUPTI_ACTIVITY_KIND_KERNEL & 1));
    CHECK_EQ(fake_cupti_thread_id(), (uint32_t)syscall(SYS_gettid));

    strcpy(name, "_Z6matmulPfS_S_i");
    k = fake_cupti_kernel(name, 1000, 5000, 11);
    k.gridX = 64; k.blockX = 256; k.registersPerThread = 40; k.staticSharedMemory = 1024; k.dynamicSharedMemory = 512;
    mc = fake_cupti_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1 << 20, 6000, 7000, 12);
    ms = fake_cupti_memset(4096, 0, 7100, 7200, 13);
    rt = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 900, 950, 11);
    drv = fake_cupti_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 910, 940, 14);
    sy = fake_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 7300, 7400, 15);
    mem = fake_cupti_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x7f0000000000ull, 1 << 20, 800, 16);
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    name[0] = 'X'; /* the fake copied the name */
    CHECK_EQ(fake_cupti_queue_memcpy(&mc), 0);
    CHECK_EQ(fake_cupti_queue_memset(&ms), 0);
    CHECK_EQ(fake_cupti_queue_api(&rt), 0);
    CHECK_EQ(fake_cupti_queue_api(&drv), 0);
    CHECK_EQ(fake_cupti_queue_sync(&sy), 0);
    CHECK_EQ(fake_cupti_queue(&mem), 0);
    fake_cupti_get_state(&st);
    CHECK_EQ(st.pending_records, 7);

    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    CHECK_EQ(C.nbufs, 1);
    CHECK_EQ(C.buf_valid[0], sizeof k + sizeof mc + sizeof ms + 2 * sizeof rt + sizeof sy + sizeof mem);
    CHECK_EQ(C.nrecs, 7);
    gk = (const CUpti_ActivityKernel10 *)(const void *)C.recs[0];
    CHECK_EQ(gk->kind, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    CHECK(gk->name && strcmp(gk->name, "_Z6matmulPfS_S_i") == 0);
    k.name = gk->name;
    CHECK(memcmp(C.recs[0], &k, sizeof k) == 0);
    CHECK(memcmp(C.recs[1], &mc, sizeof mc) == 0);
    CHECK(memcmp(C.recs[2], &ms, sizeof ms) == 0);
    CHECK(memcmp(C.recs[3], &rt, sizeof rt) == 0);
    CHECK(memcmp(C.recs[4], &drv, sizeof drv) == 0);
    CHECK(memcmp(C.recs[5], &sy, sizeof sy) == 0);
    CHECK(memcmp(C.recs[6], &mem, sizeof mem) == 0);
    CHECK_EQ(((const CUpti_ActivityMemcpy6 *)(const void *)C.recs[1])->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);

    fake_cupti_get_state(&st);
    CHECK_EQ(st.pending_records, 0);
    CHECK_EQ(st.delivered_records, 7);
    CHECK_EQ(st.delivered_buffers, 1);
    CHECK_EQ(st.flush_count, 1);
    CHECK_EQ(st.last_flush_flag, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    CHECK_EQ(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS);
    CHECK_EQ(dropped, 0);

    /* a kind that is not enabled generates nothing */
    CHECK_EQ(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMORY2), CUPTI_SUCCESS);
    CHECK_EQ(fake_cupti_queue_memory(&mem), 1);
    fake_cupti_set_generate_disabled(1);
    CHECK_EQ(fake_cupti_queue_memory(&mem), 0);
    fake_cupti_set_generate_disabled(0);
    client_clear();
    CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
    CHECK_EQ(C.nrecs, 1);
    CHECK_EQ(cuptiUnsubscribe(sub), CUPTI_SUCCESS);
    CHECK_EQ(fake_cupti_misuse_count(), 0);
}

static void test_split_order_threads(void) {
    CUpti_SubscriberHandle sub = NULL;
    fake_cupti_delivery d;
    uint32_t corr;
    int seen[6] = {0};
    size_t i;

    fake_cupti_reset();
    client_clear();
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_SUCCESS);
    memset(&d, 0, sizeof d);
    d.records_per_buffer = 2;
    d.order = FAKE_CUPTI_ORDER_BUFFERS_REVERSED;
    d.empty_buffers = 1;
    d.from_thread = 1;
    fake_cupti_set_delivery(&d);
    for (corr = 1; corr <= 5; corr++) {
        CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, corr * 100, corr * 100 + 10, corr);
        CHECK_EQ(fake_cupti_queue_api(&a), 0);
    }
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    CHECK_EQ(C.nbufs, 4);  /* 2 + 2 + 1 records, then one empty buffer */
    CHECK_EQ(C.nrecs, 5);
    /* buffers completed last first: [empty][5][3,4][1,2] */
    CHECK_EQ(C.buf_valid[0], 0);
    CHECK_EQ(C.buf_first_corr[1], 5);
    CHECK_EQ(C.buf_first_corr[2], 3);
    CHECK_EQ(C.buf_first_corr[3], 1);
    for (i = 0; i < C.nbufs; i++) CHECK(!pthread_equal(C.completer[i], pthread_self()));
    for (i = 0; i < C.nrecs; i++) {
        uint32_t c = ((const CUpti_ActivityAPI *)(const void *)C.recs[i])->correlationId;
        if (c >= 1 && c <= 5) seen[c]++;
    }
    for (corr = 1; corr <= 5; corr++) CHECK_EQ(seen[corr], 1);

    /* shuffled, zero timestamps kept as queued, delivered mid-session */
    client_clear();
    memset(&d, 0, sizeof d);
    d.order = FAKE_CUPTI_ORDER_SHUFFLED;
    d.seed = 7;
    fake_cupti_set_delivery(&d);
    for (corr = 1; corr <= 5; corr++) {
        CUpti_ActivityKernel10 k = fake_cupti_kernel("k", 0, 0, corr);
        CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    }
    CHECK_EQ(fake_cupti_deliver_pending(), 5);
    CHECK_EQ(C.nrecs, 5);
    memset(seen, 0, sizeof seen);
    {
        int in_order = 1;
        for (i = 0; i < C.nrecs; i++) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)(const void *)C.recs[i];
            CHECK(k->start == 0 && k->end == 0);
            if (k->correlationId >= 1 && k->correlationId <= 5) seen[k->correlationId]++;
            if (k->correlationId != i + 1) in_order = 0;
        }
        CHECK(!in_order);
    }
    for (corr = 1; corr <= 5; corr++) CHECK_EQ(seen[corr], 1);

    /* reversed records, two per buffer */
    client_clear();
    memset(&d, 0, sizeof d);
    d.order = FAKE_CUPTI_ORDER_REVERSED;
    d.records_per_buffer = 2;
    fake_cupti_set_delivery(&d);
    for (corr = 1; corr <= 3; corr++) {
        CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 1, 2, corr);
        CHECK_EQ(fake_cupti_queue_api(&a), 0);
    }
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    CHECK_EQ(C.nbufs, 2);
    CHECK_EQ(C.buf_first_corr[0], 3);
    CHECK_EQ(C.buf_first_corr[1], 1);

    /* hold until a forced flush */
    client_clear();
    memset(&d, 0, sizeof d);
    d.hold_until_forced = 1;
    fake_cupti_set_delivery(&d);
    {
        CUpti_ActivityKernel10 k = fake_cupti_kernel("k", 1, 2, 9);
        CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    }
    CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
    CHECK_EQ(C.nrecs, 0);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    CHECK_EQ(C.nrecs, 1);
    fake_cupti_set_delivery(NULL);
    CHECK_EQ(fake_cupti_misuse_count(), 0);
    (void)sub;
}

static void test_dropped(void) {
    CUpti_SubscriberHandle sub = NULL;
    CUpti_ActivityKernel10 k = fake_cupti_kernel("k", 1, 2, 1);
    size_t dropped = 0;
    fake_cupti_delivery d;

    fake_cupti_reset();
    client_clear();
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_SUCCESS);
    fake_cupti_add_dropped(3);
    fake_cupti_drop_next(1);
    CHECK_EQ(fake_cupti_queue_kernel(&k), 1);
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    CHECK_EQ(C.nrecs, 1);
    CHECK_EQ(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS);
    CHECK_EQ(dropped, 4);
    CHECK_EQ(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS);
    CHECK_EQ(dropped, 0);

    /* a declined buffer request loses the records */
    client_clear();
    C.decline = 1;
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    C.decline = 0;
    CHECK_EQ(C.nrecs, 0);
    CHECK_EQ(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS);
    CHECK_EQ(dropped, 2);

    /* maxNumRecords-free buffers too small: one record per buffer fits */
    client_clear();
    C.buf_size = sizeof k + 8;
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    CHECK_EQ(C.nbufs, 2);
    CHECK_EQ(C.nrecs, 2);
    C.buf_size = 1 << 16;
    memset(&d, 0, sizeof d);
    fake_cupti_set_delivery(&d);
    CHECK_EQ(fake_cupti_misuse_count(), 0);
    (void)sub;
}

static void test_misuse(void) {
    CUpti_SubscriberHandle sub = NULL;
    CUpti_ActivityKernel10 k = fake_cupti_kernel("k", 1, 2, 1);
    fake_cupti_state st;
    size_t dropped = 0;

    fake_cupti_reset();
    client_clear();
    fprintf(stderr, "(the next four 'misuse' lines are expected)\n");
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_SUCCESS);
    C.misalign = 1;
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    C.misalign = 0;
    CHECK_EQ(fake_cupti_misuse_count(), 1);
    CHECK_EQ(C.nrecs, 0);
    CHECK_EQ(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS);
    CHECK_EQ(dropped, 1);

    C.buf_size = 16; /* smaller than any record */
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    C.buf_size = 1 << 16;
    CHECK_EQ(fake_cupti_misuse_count(), 2);

    C.flush_inside = 1;
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    C.flush_inside = 0;
    fake_cupti_get_state(&st);
    CHECK_EQ(st.misuse_count, 3);

    C.dropped_inside = 1;
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    C.dropped_inside = 0;
    CHECK_EQ(fake_cupti_misuse_count(), 4);
    CHECK_EQ(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS); /* outside: fine */
    CHECK_EQ(fake_cupti_misuse_count(), 4);
    (void)sub;
}

/* The call hook sees every entry point, in order, on the caller's thread. */
static char hook_log[512];
static void hook_record(const char *api, void *ud) {
    size_t n = strlen(hook_log);
    CHECK(ud == (void *)hook_log);
    snprintf(hook_log + n, sizeof hook_log - n, "%s%s", n ? "," : "", api);
}
static void test_call_hook(void) {
    uint32_t v = 0;
    const char *name = NULL;
    fake_cupti_reset();
    hook_log[0] = 0;
    fake_cupti_set_call_hook(hook_record, hook_log);
    CHECK_EQ(cuptiGetVersion(&v), CUPTI_SUCCESS);
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
    CHECK_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, 1, &name), CUPTI_SUCCESS);
    fake_cupti_set_call_hook(NULL, NULL);
    CHECK_EQ(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
    CHECK(strcmp(hook_log, "cuptiGetVersion,cuptiActivityEnable,cuptiGetCallbackName") == 0);
    /* a failing call runs the hook too */
    hook_log[0] = 0;
    fake_cupti_set_call_hook(hook_record, hook_log);
    fake_cupti_simulate_no_driver();
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_ERROR_UNKNOWN);
    CHECK(strcmp(hook_log, "cuptiActivityEnable") == 0);
    fake_cupti_reset(); /* also removes the hook */
    CHECK_EQ(cuptiGetVersion(&v), CUPTI_SUCCESS);
    CHECK(strcmp(hook_log, "cuptiActivityEnable") == 0);
}

static void test_get_next_record_edges(void) {
    _Alignas(8) uint8_t buf[512];
    CUpti_Activity *r = NULL;
    CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, 1, 1, 2, 3);

    fake_cupti_reset();
    memset(buf, 0, sizeof buf);
    /* the same answers as NVIDIA's CUDA 13.0 libcupti gives */
    CHECK_EQ(cuptiActivityGetNextRecord(NULL, 0, &r), CUPTI_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cuptiActivityGetNextRecord(buf, 64, &r), CUPTI_ERROR_INVALID_KIND);
    CHECK(r == NULL);
    memcpy(buf, &a, sizeof a);
    CHECK_EQ(cuptiActivityGetNextRecord(buf, 30, &r), CUPTI_ERROR_MAX_LIMIT_REACHED);
    CHECK(r == NULL);
    CHECK_EQ(cuptiActivityGetNextRecord(buf, sizeof a, &r), CUPTI_SUCCESS);
    CHECK(r == (CUpti_Activity *)(void *)buf);
    CHECK_EQ(cuptiActivityGetNextRecord(buf, sizeof a, &r), CUPTI_ERROR_MAX_LIMIT_REACHED);
    CHECK(r == (CUpti_Activity *)(void *)buf); /* left alone */
    CHECK_EQ(fake_cupti_record_size(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 216);
    CHECK_EQ(fake_cupti_record_size(CUPTI_ACTIVITY_KIND_MEMCPY), 96);
    CHECK_EQ(fake_cupti_record_size(CUPTI_ACTIVITY_KIND_MEMSET), 88);
    CHECK_EQ(fake_cupti_record_size(CUPTI_ACTIVITY_KIND_RUNTIME), 40);
    CHECK_EQ(fake_cupti_record_size(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), 56);
    CHECK_EQ(fake_cupti_record_size(CUPTI_ACTIVITY_KIND_MEMORY2), 128);
    CHECK_EQ(fake_cupti_record_size(CUPTI_ACTIVITY_KIND_DEVICE), 184);
}

static struct {
    int calls;
    uint32_t site[4];
    CUpti_CallbackId cbid[4];
    void *ptr[4];
    size_t size[4];
    uint32_t corr[4];
    uint32_t device[4];
    int rv[4];
    const char *fname[4];
    uint64_t cd_seen_at_exit;
} CB;

static void CUPTIAPI runtime_callback(void *ud, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data) {
    const CUpti_CallbackData *d = (const CUpti_CallbackData *)data;
    int i = CB.calls++;
    (void)ud;
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API || i >= 4) return;
    CB.site[i] = d->callbackSite;
    CB.cbid[i] = cbid;
    CB.corr[i] = d->correlationId;
    CB.fname[i] = d->functionName;
    if (cuptiGetDeviceId(d->context, &CB.device[i]) != CUPTI_SUCCESS) CB.device[i] = 999;
    if (d->callbackSite == CUPTI_API_ENTER) *d->correlationData = 42;
    else CB.cd_seen_at_exit = *d->correlationData;
    if (d->callbackSite == CUPTI_API_EXIT) CB.rv[i] = (int)*(const cudaError_t *)d->functionReturnValue;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020) {
        const cudaMalloc_v3020_params *p = (const cudaMalloc_v3020_params *)d->functionParams;
        CB.ptr[i] = *p->devPtr;
        CB.size[i] = p->size;
    } else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020) {
        CB.ptr[i] = ((const cudaFree_v3020_params *)d->functionParams)->devPtr;
    } else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020) {
        const cudaMallocAsync_v11020_params *p = (const cudaMallocAsync_v11020_params *)d->functionParams;
        CB.ptr[i] = *p->devPtr;
        CB.size[i] = p->size;
    }
}

static void test_callbacks(void) {
    CUpti_SubscriberHandle sub = NULL, sub2 = NULL;
    void *p = (void *)(uintptr_t)0x7f0000100000ull;
    const char *n = NULL;

    fake_cupti_reset();
    memset(&CB, 0, sizeof CB);
    CHECK_EQ(cuptiSubscribe(&sub, runtime_callback, NULL), CUPTI_SUCCESS);
    CHECK_EQ(cuptiSubscribe(&sub2, runtime_callback, NULL), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    /* not enabled yet: nothing fires */
    CHECK_EQ(fake_cupti_cuda_malloc(p, 4096, cudaSuccess, 7), 0);
    CHECK_EQ(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020), CUPTI_SUCCESS);
    CHECK_EQ(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020), CUPTI_SUCCESS);
    CHECK_EQ(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE), CUPTI_ERROR_INVALID_PARAMETER);
    CHECK(fake_cupti_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020));
    fake_cupti_set_device(2);
    CHECK_EQ(fake_cupti_cuda_malloc(p, 4096, cudaSuccess, 7), 2);
    CHECK_EQ(CB.calls, 2);
    CHECK_EQ(CB.site[0], CUPTI_API_ENTER);
    CHECK(CB.ptr[0] == NULL);              /* not allocated yet at ENTER */
    CHECK_EQ(CB.site[1], CUPTI_API_EXIT);
    CHECK(CB.ptr[1] == p);
    CHECK_EQ(CB.size[1], 4096);
    CHECK_EQ(CB.corr[1], 7);
    CHECK_EQ(CB.device[1], 2);
    CHECK_EQ(CB.rv[1], cudaSuccess);
    CHECK_EQ(CB.cd_seen_at_exit, 42);
    CHECK(CB.fname[1] && strcmp(CB.fname[1], "cudaMalloc_v3020") == 0);
    CHECK_EQ(fake_cupti_cuda_free(p, cudaSuccess, 8), 2);
    CHECK_EQ(CB.cbid[3], CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020);
    CHECK(CB.ptr[3] == p);
    /* failing cudaMalloc: NULL pointer and the error at EXIT */
    memset(&CB, 0, sizeof CB);
    CHECK_EQ(fake_cupti_cuda_malloc(p, 1 << 30, cudaErrorMemoryAllocation, 9), 2);
    CHECK(CB.ptr[1] == NULL);
    CHECK_EQ(CB.rv[1], cudaErrorMemoryAllocation);
    /* async variants need their own cbids */
    CHECK_EQ(fake_cupti_cuda_malloc_async(p, 256, NULL, cudaSuccess, 10), 0);
    CHECK_EQ(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020), CUPTI_SUCCESS);
    memset(&CB, 0, sizeof CB);
    CHECK_EQ(fake_cupti_cuda_malloc_async(p, 256, NULL, cudaSuccess, 10), 2);
    CHECK(CB.ptr[1] == p);
    CHECK_EQ(CB.size[1], 256);
    CHECK_EQ(fake_cupti_cuda_free_async(p, NULL, cudaSuccess, 11), 0);
    /* disable */
    CHECK_EQ(cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020), CUPTI_SUCCESS);
    CHECK_EQ(fake_cupti_cuda_malloc(p, 4096, cudaSuccess, 12), 0);
    /* names, as NVIDIA's library returns them */
    CHECK_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &n), CUPTI_SUCCESS);
    CHECK(n && strcmp(n, "cudaLaunchKernel_v7000") == 0);
    CHECK_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &n), CUPTI_SUCCESS);
    CHECK(n && strcmp(n, "cuLaunchKernel") == 0);
    CHECK_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, 0, &n), CUPTI_SUCCESS);
    CHECK(n && strcmp(n, "INVALID") == 0);
    CHECK_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, &n), CUPTI_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RESOURCE, 1, &n), CUPTI_ERROR_INVALID_PARAMETER);
    {
        uint32_t dev = 0;
        CHECK_EQ(cuptiGetDeviceId(fake_cupti_context(3), &dev), CUPTI_SUCCESS);
        CHECK_EQ(dev, 3);
        CHECK_EQ(cuptiGetDeviceId(NULL, &dev), CUPTI_ERROR_INVALID_CONTEXT);
    }
    CHECK_EQ(cuptiUnsubscribe(sub), CUPTI_SUCCESS);
    CHECK_EQ(cuptiUnsubscribe(sub), CUPTI_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cuptiSubscribe(&sub2, runtime_callback, NULL), CUPTI_SUCCESS); /* slot free again */
    CHECK_EQ(cuptiUnsubscribe(sub2), CUPTI_SUCCESS);
}

static uint64_t CUPTIAPI fixed_clock(void) { return 123456789ull; }

static void test_clock(void) {
    uint64_t t = 0, before;
    struct timespec ts;
    fake_cupti_reset();
    clock_gettime(CLOCK_REALTIME, &ts);
    before = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    CHECK_EQ(cuptiGetTimestamp(&t), CUPTI_SUCCESS);
    CHECK(t >= before && t - before < 5000000000ull); /* default: CLOCK_REALTIME */
    CHECK_EQ(cuptiGetTimestamp(NULL), CUPTI_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cuptiActivityRegisterTimestampCallback(NULL), CUPTI_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cuptiActivityRegisterTimestampCallback(fixed_clock), CUPTI_SUCCESS);
    CHECK(fake_cupti_timestamp_callback() == fixed_clock);
    CHECK_EQ(cuptiGetTimestamp(&t), CUPTI_SUCCESS);
    CHECK_EQ(t, 123456789ull);
    CHECK_EQ(fake_cupti_now(), 123456789ull);
    fake_cupti_set_timestamp(42);
    CHECK_EQ(cuptiGetTimestamp(&t), CUPTI_SUCCESS);
    CHECK_EQ(t, 42);
    fake_cupti_unset_timestamp();
    CHECK_EQ(cuptiGetTimestamp(&t), CUPTI_SUCCESS);
    CHECK_EQ(t, 123456789ull);
    /* registering after enabling is noted */
    fake_cupti_reset();
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
    CHECK_EQ(cuptiActivityRegisterTimestampCallback(fixed_clock), CUPTI_SUCCESS);
    {
        fake_cupti_state st;
        fake_cupti_get_state(&st);
        CHECK(st.timestamp_callback_after_enable);
    }
}

static void test_environments(void) {
    CUpti_SubscriberHandle sub = NULL;
    uint32_t v = 0;
    uint64_t t = 0;
    size_t dropped = 7;
    const char *s = NULL;
    fake_cupti_state st;

    /* no driver: the results the real CUDA 13.0 libcupti gave on this machine */
    fake_cupti_reset();
    fake_cupti_simulate_no_driver();
    CHECK_EQ(cuptiGetVersion(&v), CUPTI_SUCCESS);
    CHECK_EQ(v, CUPTI_API_VERSION);
    CHECK_EQ(cuptiSubscribe(&sub, no_callback, NULL), CUPTI_ERROR_UNKNOWN);
    CHECK_EQ(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), CUPTI_ERROR_UNKNOWN);
    CHECK_EQ(cuptiActivityRegisterTimestampCallback(mono_ns), CUPTI_ERROR_UNKNOWN);
    CHECK_EQ(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), CUPTI_SUCCESS);
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_ERROR_UNKNOWN);
    CHECK_EQ(cuptiActivityEnableAndDump(CUPTI_ACTIVITY_KIND_DEVICE), CUPTI_ERROR_UNKNOWN);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_ERROR_UNKNOWN);
    CHECK_EQ(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), CUPTI_ERROR_UNKNOWN);
    CHECK_EQ(cuptiGetTimestamp(&t), CUPTI_SUCCESS);
    CHECK_EQ(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS);
    CHECK_EQ(dropped, 0);
    CHECK_EQ(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020), CUPTI_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cuptiUnsubscribe(sub), CUPTI_ERROR_INVALID_PARAMETER);
    CHECK_EQ(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &s), CUPTI_SUCCESS);
    CHECK_EQ(cuptiGetResultString(CUPTI_ERROR_UNKNOWN, &s), CUPTI_SUCCESS);
    CHECK(s && strcmp(s, "CUPTI_ERROR_UNKNOWN") == 0);
    CHECK_EQ(cuptiFinalize(), CUPTI_SUCCESS);
    {
        CUpti_ActivityKernel10 k = fake_cupti_kernel("k", 1, 2, 1);
        CHECK_EQ(fake_cupti_queue_kernel(&k), 1); /* nothing is enabled */
    }

    fake_cupti_reset();
    fake_cupti_simulate_stub_driver();
    CHECK_EQ(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), CUPTI_ERROR_UNKNOWN);
    CHECK_EQ(cuptiActivityRegisterCallbacks(NULL, NULL), CUPTI_ERROR_UNKNOWN); /* as the real one */

    fake_cupti_reset();
    fake_cupti_simulate_unavailable(CUPTI_ERROR_NOT_INITIALIZED);
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_ERROR_NOT_INITIALIZED);
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_ERROR_NOT_INITIALIZED);
    fake_cupti_simulate_gpu();
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_SUCCESS);
    CHECK_EQ(cuptiUnsubscribe(sub), CUPTI_SUCCESS);

    /* another CUPTI client holds the subscriber slot */
    fake_cupti_reset();
    fake_cupti_simulate_other_subscriber(1);
    CHECK_EQ(cuptiSubscribe(&sub, no_callback, NULL), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    CHECK_EQ(cuptiGetResultString(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, &s), CUPTI_SUCCESS);
    CHECK(s && strcmp(s, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED") == 0);
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
    fake_cupti_simulate_other_subscriber(0);

    /* injected results: once, per kind, and call counts */
    fake_cupti_reset();
    CHECK_EQ(fake_cupti_set_result("cuptiActivityEnable", CUPTI_ERROR_NOT_COMPATIBLE, 1), 0);
    CHECK_EQ(fake_cupti_set_result("cuptiNoSuchThing", CUPTI_ERROR_UNKNOWN, 1), -1);
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_ERROR_NOT_COMPATIBLE);
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), CUPTI_SUCCESS);
    fake_cupti_set_enable_result(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ERROR_NOT_SUPPORTED);
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), CUPTI_ERROR_NOT_SUPPORTED);
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_INVALID), CUPTI_ERROR_INVALID_KIND);
    CHECK_EQ(fake_cupti_set_result("cuptiActivityGetNextRecord", CUPTI_ERROR_INVALID_KIND, -1), 0);
    {
        _Alignas(8) uint8_t b[64] = {0};
        CUpti_Activity *r = NULL;
        CHECK_EQ(cuptiActivityGetNextRecord(b, 64, &r), CUPTI_ERROR_INVALID_KIND);
    }
    fake_cupti_set_result("cuptiActivityGetNextRecord", CUPTI_SUCCESS, 0);
    fake_cupti_set_version(130100);
    CHECK_EQ(cuptiGetVersion(&v), CUPTI_SUCCESS);
    CHECK_EQ(v, 130100);
    CHECK_EQ(fake_cupti_call_count("cuptiActivityEnable"), 4);
    CHECK_EQ(fake_cupti_call_count("cuptiActivityGetNextRecord"), 1);
    CHECK_EQ(fake_cupti_call_count("nope"), -1);
    /* FlushAll before RegisterCallbacks */
    CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_ERROR_INVALID_OPERATION);
    fake_cupti_get_state(&st);
    CHECK_EQ(st.flush_count, 0);
}

static void test_devices_and_finalize(void) {
    CUpti_SubscriberHandle sub = NULL;
    CUpti_ActivityDevice5 d0 = fake_cupti_device(0, "NVIDIA H100 80GB HBM3");
    CUpti_ActivityDevice5 d1 = fake_cupti_device(1, "NVIDIA H100 80GB HBM3");
    const CUpti_ActivityDevice5 *g;
    fake_cupti_state st;
    CUpti_ActivityKernel10 k = fake_cupti_kernel("k", 1, 2, 1);
    size_t i;

    fake_cupti_reset();
    client_clear();
    CHECK_EQ(fake_cupti_add_device(&d0), 0);
    CHECK_EQ(fake_cupti_add_device(&d1), 0);
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_SUCCESS);
    CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE), CUPTI_SUCCESS);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    CHECK_EQ(C.nrecs, 0); /* CUDA was initialised before: plain enable dumps nothing */
    CHECK_EQ(cuptiActivityEnableAndDump(CUPTI_ACTIVITY_KIND_DEVICE), CUPTI_SUCCESS);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    CHECK_EQ(C.nrecs, 2);
    for (i = 0; i < C.nrecs && i < 2; i++) {
        g = (const CUpti_ActivityDevice5 *)(const void *)C.recs[i];
        CHECK_EQ(g->kind, CUPTI_ACTIVITY_KIND_DEVICE);
        CHECK_EQ(g->id, i);
        CHECK_EQ(g->numMultiprocessors, 132);
        CHECK_EQ(g->computeCapabilityMajor, 9);
        CHECK(g->name && strcmp(g->name, "NVIDIA H100 80GB HBM3") == 0);
        free((void *)(uintptr_t)g->name); /* the client owns it (cupti_activity.h) */
    }

    /* finalize: pending records are lost, everything is unregistered */
    CHECK_EQ(fake_cupti_queue_kernel(&k), 0);
    CHECK_EQ(cuptiFinalize(), CUPTI_SUCCESS);
    fake_cupti_get_state(&st);
    CHECK_EQ(st.discarded_at_finalize, 1);
    CHECK_EQ(st.enabled_kinds, 0);
    CHECK(!st.subscribed && !st.buffer_callbacks_registered && !st.timestamp_callback_registered);
    CHECK_EQ(st.finalize_count, 1);
    /* and CUPTI can be set up again afterwards */
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_SUCCESS);
    CHECK_EQ(cuptiUnsubscribe(sub), CUPTI_SUCCESS);
    CHECK_EQ(fake_cupti_misuse_count(), 0);
}

static void *queue_from_thread(void *arg) {
    uint32_t base = (uint32_t)(uintptr_t)arg, i;
    for (i = 0; i < 40; i++) {
        CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, i, i + 1, base + i);
        if (fake_cupti_queue_api(&a) != 0) __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
        if (i % 10 == 9) fake_cupti_deliver_pending();
    }
    return NULL;
}

static void test_threads(void) {
    CUpti_SubscriberHandle sub = NULL;
    pthread_t th[4];
    uintptr_t t;
    fake_cupti_reset();
    client_clear();
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_SUCCESS);
    for (t = 0; t < 4; t++) pthread_create(&th[t], NULL, queue_from_thread, (void *)(t * 1000));
    for (t = 0; t < 4; t++) pthread_join(th[t], NULL);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    CHECK_EQ(C.nrecs, 160);
    (void)sub;
}

/* ----- the real library's behaviour -------------------------------------- */
static pthread_t rb_worker_self;
static void *rb_worker(void *p) {
    int i;
    (void)p;
    rb_worker_self = pthread_self();
    for (i = 0; i < 3; i++) {
        fake_cupti_api_enter(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
        fake_cupti_api_exit();
    }
    return NULL;
}
static const CUpti_Activity *rb_rec(size_t i) { return (const CUpti_Activity *)(const void *)C.recs[i]; }
static void test_real_behaviour(void) {
    CUpti_SubscriberHandle sub;
    fake_cupti_delivery d;
    fake_cupti_state st;
    pthread_t th;
    uint64_t t0, t1;
    uint32_t rt, c1, c2;
    size_t i, n;
    static const char *const graph[] = { "g0", "g1", "g2" };
    fake_cupti_reset();
    client_clear();
    fake_cupti_get_state(&st);
    CHECK_EQ(st.all_sync_records, -1);
    CHECK_EQ(start_session(&sub, no_callback, NULL), CUPTI_SUCCESS);
    CHECK_EQ(cuptiActivityEnableAllSyncRecords(0), CUPTI_SUCCESS);
    fake_cupti_get_state(&st);
    CHECK_EQ(st.all_sync_records, 0);
    /* buffers asked for on the recording thread, a full one completed at
       once on another thread, the rest at the flush */
    memset(&d, 0, sizeof d);
    d.per_thread_buffers = 1;
    d.records_per_buffer = 2;
    fake_cupti_set_delivery(&d);
    t0 = mono_ns();
    pthread_create(&th, NULL, rb_worker, NULL);
    pthread_join(th, NULL);
    t1 = mono_ns();
    CHECK(pthread_equal(last_requester, rb_worker_self));
    CHECK_EQ(C.nbufs, 1);
    CHECK(C.nbufs == 1 && !pthread_equal(C.completer[0], rb_worker_self));
    fake_cupti_get_state(&st);
    CHECK_EQ(st.open_buffers, 1);
    CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
    fake_cupti_get_state(&st);
    CHECK_EQ(st.open_buffers, 0);
    CHECK_EQ(C.nrecs, 3);
    /* stamped through the timestamp callback, one correlation counter */
    for (i = 0; i < C.nrecs; i++) {
        const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)(const void *)rb_rec(i);
        CHECK(a->start >= t0 && a->start <= a->end && a->end <= t1);
        CHECK(i == 0 || a->correlationId == ((const CUpti_ActivityAPI *)(const void *)rb_rec(i - 1))->correlationId + 1);
    }
    /* a copy: driver and runtime correlation ids differ */
    client_clear();
    rt = fake_cupti_memcpy_call(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, t1, t1 + 100);
    /* a graph: three kernels, one id */
    c1 = fake_cupti_graph_launch(5, graph, 3, t1 + 200, 100, 50);
    /* CUPTI before 13.1 with a timestamp callback loses kernel timestamps */
    fake_cupti_set_version(130000);
    fake_cupti_lose_kernel_timestamps(1);
    c2 = fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "k_lost", t1 + 600, t1 + 700);
    fake_cupti_set_version(130100);
    fake_cupti_lose_kernel_timestamps(1);
    fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "k_kept", t1 + 800, t1 + 900);
    fake_cupti_set_version(0);
    fake_cupti_lose_kernel_timestamps(0);
    CHECK_EQ(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), CUPTI_SUCCESS);
    n = 0;
    for (i = 0; i < C.nrecs; i++) {
        const CUpti_Activity *r = rb_rec(i);
        if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)(const void *)r;
            CHECK(m->runtimeCorrelationId == rt && m->correlationId != rt);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)(const void *)r;
            if (k->correlationId == c1) { n++; CHECK(k->graphId == 5); }
            else if (k->correlationId == c2) CHECK(k->start == 0 && k->end == 0);
            else CHECK(k->start == t1 + 800);
        }
    }
    CHECK_EQ(n, 3);
    fake_cupti_set_delivery(NULL);
    CHECK_EQ(cuptiUnsubscribe(sub), CUPTI_SUCCESS);
    CHECK_EQ(cuptiFinalize(), CUPTI_SUCCESS);
    fake_cupti_get_state(&st);
    CHECK(!st.subscribed && !st.buffer_callbacks_registered);
}

int main(void) {
    test_records_round_trip();
    test_split_order_threads();
    test_dropped();
    test_misuse();
    test_call_hook();
    test_get_next_record_edges();
    test_callbacks();
    test_clock();
    test_environments();
    test_devices_and_finalize();
    test_threads();
    test_real_behaviour();
    fake_cupti_reset();
    if (failures) {
        fprintf(stderr, "fake_cupti selftest: %d check(s) failed\n", failures);
        return 1;
    }
    printf("fake_cupti selftest: all checks passed\n");
    return 0;
}
