/* test_cupti.c - prof.h's CUDA side (PROF_CUPTI) end to end, on the fake
   libcupti.so.13 (tests/fake_cupti): hand-made activity records go in
   through CUPTI's own buffer API, prof_stop turns them into events, and
   everything downstream is checked: attribution of kernels to scopes, the
   PyTorch-exact table (tests/tables/25_cupti_profile.case/.expected), the
   Chrome trace (GPU lanes, ac2g flows, args), flamegraph stacks, device
   memory, dropped records, repeated sessions and machines without a GPU.
   Section 11 drives the fake as CUDA 13 records real work (per-thread
   buffers completed mid-session, calls stamped through prof.h's timestamp
   callback, <<<>>> through __cudaLaunchKernel, driver calls inside runtime
   and driver calls, copies with two correlation ids, graphs, memory kinds,
   lost and unfinished kernels, another CUPTI client after prof_stop).

   Time is virtual. CLOCK_MONOTONIC, which prof.h reads for its ticks
   (PROF_CLOCK_MONOTONIC) and returns from its CUPTI timestamp callback, is
   a counter this file sets: `at(t)` moves it to t ns after prof_start, so a
   scope opened after at(1000) starts at exactly 1 us, and a record stamped
   T(2500) is 2.5 us into the session. Every number below is exact, and the
   tables are compared byte for byte with what PyTorch prints for the same
   events. CLOCK_REALTIME stays real.

   The robustness cases (no driver, another subscriber, a failing
   cuptiActivityEnable) each run in a forked child, as in a fresh process.
   Outputs go to build/cupti/. Run from the repository root. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"
#include "table_requests.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern int clock_gettime(clockid_t clk, struct timespec *ts); /* the real one */

/* ----- virtual CLOCK_MONOTONIC -------------------------------------------- */
static int64_t vc_ns; /* atomic */

int test_clock_gettime(clockid_t clk, struct timespec *ts) {
    if (clk == CLOCK_MONOTONIC) {
        int64_t v = __atomic_load_n(&vc_ns, __ATOMIC_SEQ_CST);
        ts->tv_sec = (time_t)(v / 1000000000);
        ts->tv_nsec = (long)(v % 1000000000);
        return 0;
    }
    return clock_gettime(clk, ts);
}
static int64_t vc_now(void) { return __atomic_load_n(&vc_ns, __ATOMIC_SEQ_CST); }
static void vc_set(int64_t v) { __atomic_store_n(&vc_ns, v, __ATOMIC_SEQ_CST); }
static void vc_advance(int64_t d) { __atomic_add_fetch(&vc_ns, d, __ATOMIC_SEQ_CST); }

static int64_t g_base; /* the virtual time of the current prof_start */
/* Next session: the clock jumps to a fresh round base, well past any record
   of an earlier session. */
static void session_clock(void) {
    g_base = (vc_now() / 1000000 + 1000) * 1000000;
    vc_set(g_base);
}
static void at(int64_t t) { vc_set(g_base + t); }
static uint64_t T(int64_t t) { return (uint64_t)(g_base + t); }

/* ----- helpers -------------------------------------------------------------- */
static uint64_t gettid_(void) { return (uint64_t)syscall(SYS_gettid); }

static prof_config cfg_default(void) {
    prof_config c;
    memset(&c, 0, sizeof c);
    c.log = check_log;
    return c;
}

static size_t count_device_events(prof_events *ev) {
    size_t i, n = prof_events_count(ev), k = 0;
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type != PROF_DEVICE_CPU) k++;
    }
    return k;
}

static int write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

static const char *const k_cupti_apis[] = {
    "cuptiGetVersion", "cuptiGetResultString", "cuptiSubscribe", "cuptiUnsubscribe", "cuptiEnableCallback",
    "cuptiGetCallbackName", "cuptiGetDeviceId", "cuptiSetThreadIdType", "cuptiActivityRegisterTimestampCallback",
    "cuptiActivityRegisterCallbacks", "cuptiActivityEnable", "cuptiActivityEnableAndDump", "cuptiActivityDisable",
    "cuptiActivityFlushAll", "cuptiActivityGetNextRecord", "cuptiActivityGetNumDroppedRecords", "cuptiGetTimestamp",
    "cuptiFinalize",
};
static long total_cupti_calls(void) {
    long n = 0;
    size_t i;
    for (i = 0; i < sizeof k_cupti_apis / sizeof k_cupti_apis[0]; i++) n += fake_cupti_call_count(k_cupti_apis[i]);
    return n;
}

/* Record builders, times relative to the session's prof_start. Each must
   be queued while its kind is enabled, i.e. between prof_start and
   prof_stop: CUPTI generates nothing for a disabled kind. */
static void q_api(CUpti_ActivityKind kind, CUpti_CallbackId cbid, int64_t s, int64_t e, uint32_t corr) {
    CUpti_ActivityAPI a = fake_cupti_api(kind, cbid, T(s), T(e), corr);
    CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
}
static void q_rt(CUpti_CallbackId cbid, int64_t s, int64_t e, uint32_t corr) { q_api(CUPTI_ACTIVITY_KIND_RUNTIME, cbid, s, e, corr); }
static void q_kernel(const char *name, int64_t s, int64_t e, uint32_t corr) {
    CUpti_ActivityKernel10 k = fake_cupti_kernel(name, T(s), T(e), corr);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
}
static void q_mem(CUpti_ActivityMemoryOperationType op, uint64_t addr, uint64_t bytes, int64_t ts, uint32_t corr) {
    CUpti_ActivityMemory4 m = fake_cupti_memory(op, addr, bytes, T(ts), corr);
    CHECK_EQ_INT(fake_cupti_queue_memory(&m), 0);
}

#define RT_LAUNCH CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000
#define RT_MALLOC CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020
#define RT_FREE CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020
#define RT_MEMCPY_ASYNC CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020
#define RT_MEMSET_ASYNC CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020
#define MEM_ALLOC CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
#define MEM_FREE CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE
#define MIB (1024u * 1024u)
/* what a session enables (and prof_stop disables) */
#define SESSION_KINDS                                                                                              \
    ((1ull << CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) | (1ull << CUPTI_ACTIVITY_KIND_MEMCPY) |                        \
     (1ull << CUPTI_ACTIVITY_KIND_MEMSET) | (1ull << CUPTI_ACTIVITY_KIND_RUNTIME) | (1ull << CUPTI_ACTIVITY_KIND_DRIVER) | \
     (1ull << CUPTI_ACTIVITY_KIND_MEMCPY2) | (1ull << CUPTI_ACTIVITY_KIND_MEMORY2))
#define ADDR_A 0x7f3200000000ull
#define ADDR_B 0x7f3200400000ull

/* ----- the profile of tests/tables/25_cupti_profile.case ------------------- */
typedef struct profile_opts {
    const fake_cupti_delivery *delivery; /* NULL = one buffer, in order */
    int with_stack;                      /* prof_config.with_stack */
    int gpu_first;                       /* queue the GPU records before their API records */
    int mid_session_delivery;            /* a buffer completes before prof_stop */
} profile_opts;

static void queue_gpu_records(void) {
    CUpti_ActivityKernel10 k = fake_cupti_kernel("gemm_kernel", T(10000), T(50000), 11);
    CUpti_ActivityMemcpy6 cp = fake_cupti_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, MIB, T(77000), T(87000), 13);
    CUpti_ActivityMemset4 ms = fake_cupti_memset(4096, 0, T(88000), T(90000), 14);
    k.gridX = 4;
    k.gridY = 2;
    k.registersPerThread = 40;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 2048;
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
    q_kernel("add_kernel", 68000, 76500, 12);
    CHECK_EQ_INT(fake_cupti_queue_memcpy(&cp), 0);
    CHECK_EQ_INT(fake_cupti_queue_memset(&ms), 0);
}

/* Records prof.h must ignore: zero timestamps ("could not be collected"),
   before prof_start, after prof_stop. Any of them taken would change the
   events (same correlation ids as real launches). */
static void queue_ignored_records(void) {
    CUpti_ActivityKernel10 k0 = fake_cupti_kernel("gemm_kernel", 0, 0, 11);
    CUpti_ActivityAPI a0 = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, RT_LAUNCH, 0, 0, 18);
    CUpti_ActivityMemory4 m0 = fake_cupti_memory(MEM_ALLOC, ADDR_B + 4096, 8 * MIB, 0, 15);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k0), 0);
    CHECK_EQ_INT(fake_cupti_queue_api(&a0), 0);
    CHECK_EQ_INT(fake_cupti_queue_memory(&m0), 0);
    q_kernel("add_kernel", -5000, -1000, 12);        /* before the session */
    q_rt(RT_LAUNCH, -3000, -2000, 20);
    q_mem(MEM_ALLOC, ADDR_B + 8192, 2 * MIB, -100, 15);
    q_rt(RT_LAUNCH, 150000, 151000, 19);             /* after prof_stop (at 100 us) */
    q_kernel("gemm_kernel", 160000, 170000, 19);
}

static prof_events *run_profile(const profile_opts *o) {
    prof_config c = cfg_default();
    prof_events *ev;
    c.profile_memory = 1;
    c.with_stack = o->with_stack;
    fake_cupti_set_delivery(o->delivery);
    session_clock();
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return NULL;
    if (o->gpu_first) queue_gpu_records();
    queue_ignored_records();
    at(1000);
    {
        PROF_SCOPE("forward");
        at(2000);
        {
            PROF_SCOPE_OP("aten::mm");
            q_rt(RT_LAUNCH, 2500, 4500, 11);
            q_rt(RT_MALLOC, 5000, 6000, 15);
            q_mem(MEM_ALLOC, ADDR_A, 4 * MIB, 5500, 15);
            at(60000);
        }
        if (o->mid_session_delivery) CHECK(fake_cupti_deliver_pending() > 0);
        at(61000);
        {
            PROF_SCOPE_OP("aten::add");
            q_rt(RT_LAUNCH, 62000, 63000, 12);
            q_rt(RT_MEMCPY_ASYNC, 64000, 65000, 13);
            q_rt(RT_MALLOC, 66500, 67500, 17);
            q_mem(MEM_ALLOC, ADDR_B, MIB, 67000, 17);
            at(70000);
        }
        q_rt(RT_MEMSET_ASYNC, 72000, 73000, 14);
        q_rt(RT_FREE, 74000, 75000, 16);
        q_mem(MEM_FREE, ADDR_B, MIB, 74500, 16);
        at(95000);
        if (!o->gpu_first) queue_gpu_records(); /* cudaDeviceSynchronize: the GPU is done */
    }
    at(100000);
    ev = prof_stop();
    fake_cupti_set_delivery(NULL);
    CHECK(ev != NULL);
    return ev;
}

/* ----- the case file: expected events and requests ------------------------ */
typedef struct case_event {
    char name[128];
    int thread, cuda, device_index, user_annotation, nkernels;
    int64_t start, end, resource, dev_mem;
} case_event;
typedef struct case_file {
    case_event ev[64];
    int n;
    char *requests[16];
    int nreq;
    char *text;
} case_file;

static int64_t us_to_ns(const char *s) { return (int64_t)(strtod(s, NULL) * 1000.0 + (s[0] == '-' ? -0.5 : 0.5)); }

static int load_case(case_file *cf, const char *path) {
    char *line, *save = NULL;
    memset(cf, 0, sizeof *cf);
    if (!(cf->text = check_read_file_n(path, NULL))) return -1;
    for (line = strtok_r(cf->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!line[0] || line[0] == '#') continue;
        if (!strncmp(line, "event\t", 6) && cf->n < 64) {
            case_event *e = &cf->ev[cf->n++];
            char buf[1024], *f, *s2 = NULL;
            snprintf(buf, sizeof buf, "%s", line + 6);
            for (f = strtok_r(buf, "\t", &s2); f; f = strtok_r(NULL, "\t", &s2)) {
                char *v = strchr(f, '=');
                if (!v) continue;
                *v++ = 0;
                if (!strcmp(f, "name")) snprintf(e->name, sizeof e->name, "%s", v);
                else if (!strcmp(f, "thread")) e->thread = atoi(v);
                else if (!strcmp(f, "start")) e->start = us_to_ns(v);
                else if (!strcmp(f, "end")) e->end = us_to_ns(v);
                else if (!strcmp(f, "device")) e->cuda = !strcmp(v, "cuda");
                else if (!strcmp(f, "device_index")) e->device_index = atoi(v);
                else if (!strcmp(f, "resource")) e->resource = strtoll(v, NULL, 10);
                else if (!strcmp(f, "user_annotation")) e->user_annotation = atoi(v);
                else if (!strcmp(f, "kernel")) e->nkernels++;
                else if (!strcmp(f, "dev_mem")) e->dev_mem = strtoll(v, NULL, 10);
            }
        } else if ((!strncmp(line, "table", 5) || !strncmp(line, "total_average", 13)) && cf->nreq < 16) {
            cf->requests[cf->nreq++] = line;
        }
    }
    return 0;
}

/* The CPU parent PyTorch's _populate_cpu_children gives event i: the
   innermost CPU event of the same thread that encloses it (list order
   breaks ties, as in the events prof.h builds). */
static int case_parent(const case_file *cf, int i) {
    int j, best = -1;
    if (cf->ev[i].cuda) return -1;
    for (j = 0; j < cf->n; j++) {
        const case_event *p = &cf->ev[j], *c = &cf->ev[i];
        if (j == i || p->cuda || p->thread != c->thread) continue;
        if (p->start <= c->start && c->end <= p->end && (p->start < c->start || p->end > c->end || j < i)) {
            if (best < 0 || cf->ev[best].end - cf->ev[best].start >= p->end - p->start) best = j;
        }
    }
    return best;
}

/* prof.h's events against the case's, field by field. One CHECK per list,
   with the first difference. */
static void check_against_case(prof_events *ev, const case_file *cf, uint64_t cpu_tid, const char *what) {
    char diff[512] = "";
    size_t n = ev ? prof_events_count(ev) : 0;
    int i;
    if (!ev) snprintf(diff, sizeof diff, "no event list");
    else if (n != (size_t)cf->n) snprintf(diff, sizeof diff, "%zu events, the case has %d", n, cf->n);
    for (i = 0; !diff[0] && i < cf->n; i++) {
        const case_event *c = &cf->ev[i];
        prof_event e = check_get_event(ev, i);
        int parent = case_parent(cf, i);
#define DIFF(cond, ...) if (!diff[0] && (cond)) { int k_ = snprintf(diff, sizeof diff, "event %d (%s): ", i, c->name); snprintf(diff + k_, sizeof diff - (size_t)k_, __VA_ARGS__); }
        DIFF(strcmp(e.name, c->name) != 0, "name \"%s\"", e.name);
        DIFF(e.start_ns != c->start || e.end_ns != c->end, "[%lld, %lld] ns, expected [%lld, %lld]", (long long)e.start_ns,
             (long long)e.end_ns, (long long)c->start, (long long)c->end);
        DIFF(e.device_type != (c->cuda ? PROF_DEVICE_CUDA : PROF_DEVICE_CPU), "device_type %d", (int)e.device_type);
        DIFF(c->cuda && e.device_index != c->device_index, "device_index %d", e.device_index);
        DIFF(c->cuda && e.device_resource_id != c->resource, "device_resource_id (stream) %lld", (long long)e.device_resource_id);
        DIFF(!c->cuda && e.thread != cpu_tid, "thread %llu, expected the profiled thread %llu", (unsigned long long)e.thread,
             (unsigned long long)cpu_tid);
        DIFF(e.is_user_annotation != c->user_annotation, "is_user_annotation %d", e.is_user_annotation);
        DIFF(e.parent != parent, "parent %lld, expected %d", (long long)e.parent, parent);
        DIFF((int)e.n_kernels != c->nkernels, "%zu kernels appended, expected %d", e.n_kernels, c->nkernels);
        DIFF(e.device_memory_usage != c->dev_mem, "device_memory_usage %lld, expected %lld", (long long)e.device_memory_usage,
             (long long)c->dev_mem);
#undef DIFF
    }
    CHECK_MSG(!diff[0], "%s: prof.h's events differ from tests/tables/25_cupti_profile.case: %s", what, diff);
}

/* One request line of the case (FORMAT.md), run on prof.h's events by
   the same code test_tables uses. */
static void run_case_request(prof_events *ev, out *o, const char *req) {
    char buf[512], *fields[32], *kind, *save = NULL, *f;
    int nf = 0;
    snprintf(buf, sizeof buf, "%s", req);
    kind = strtok_r(buf, "\t", &save);
    for (f = strtok_r(NULL, "\t", &save); f && nf < 32; f = strtok_r(NULL, "\t", &save)) fields[nf++] = f;
    CHECK_MSG(run_request(ev, o, kind, fields, nf) == 0, "25_cupti_profile.case: a request field is not handled");
}
/* The tables of prof.h's events against PyTorch's for the case. */
static void check_tables(prof_events *ev, const case_file *cf, const char *expected_path, const char *what) {
    out o = {0, 0, 0};
    size_t len = 0, i = 0;
    char *expected = check_read_file_n(expected_path, &len);
    int r;
    if (!CHECK_MSG(expected != NULL, "cannot read %s (run from the repository root)", expected_path)) return;
    out_put(&o, "");
    for (r = 0; ev && r < cf->nreq; r++) run_case_request(ev, &o, cf->requests[r]);
    while (i < len && i < o.n && expected[i] == o.p[i]) i++;
    if (!CHECK_MSG(len == o.n && i == len, "%s: tables differ from %s at byte %zu (prof.h's are in build/cupti/25_cupti_profile.got)",
                   what, expected_path, i)) {
        write_file("build/cupti/25_cupti_profile.got", o.p);
    }
    free(o.p);
    free(expected);
}

/* ----- 1. activities = CPU: CUPTI is never called --------------------------- */
static void test_cpu_only(int fresh) {
    prof_config c = cfg_default();
    long before = total_cupti_calls();
    prof_events *ev;
    char *t;
    c.activities = PROF_ACTIVITY_CPU;
    session_clock();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    at(1000);
    {
        PROF_SCOPE("cpu_only");
        at(3000);
    }
    at(4000);
    ev = prof_stop();
    CHECK_EQ_INT(total_cupti_calls() - before, 0);
    if (fresh) CHECK_EQ_INT(total_cupti_calls(), 0);
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_STR(check_get_event(ev, 0).name, "cpu_only");
    CHECK_MSG(check_get_event(ev, 0).end_ns - check_get_event(ev, 0).start_ns == 2000,
              "a scope of 2000 virtual ns lasted %lld ns: prof.h no longer reads its clock through clock_gettime(CLOCK_MONOTONIC) "
              "with PROF_CLOCK_MONOTONIC, and every exact time in this test is off",
              (long long)(check_get_event(ev, 0).end_ns - check_get_event(ev, 0).start_ns));
    t = prof_events_table(ev, NULL);
    CHECK(t && !strstr(t, "CUDA"));
    prof_free_string(t);
    prof_events_free(ev);
}

/* ----- 2. the profile: attribution, structure, tables ----------------------- */
static void check_profile_numbers(prof_events *ev) {
    uint64_t tid = gettid_();
    prof_event fw = check_get_event(ev, check_find_event(ev, "forward", 0));
    prof_event mm = check_get_event(ev, check_find_event(ev, "aten::mm", 0));
    prof_event add = check_get_event(ev, check_find_event(ev, "aten::add", 0));
    prof_event l1 = check_get_event(ev, check_find_event(ev, "cudaLaunchKernel", 0));
    prof_event l2 = check_get_event(ev, check_find_event(ev, "cudaLaunchKernel", 1));
    prof_event gemm = check_get_event(ev, check_find_event(ev, "gemm_kernel", 0));
    prof_event cp = check_get_event(ev, check_find_event(ev, "Memcpy HtoD (Pageable -> Device)", 0));
    prof_event ms = check_get_event(ev, check_find_event(ev, "Memset (Device)", 0));
    /* the enclosing scope's device time: own kernels, plus its children's */
    CHECK_EQ_INT(mm.device_time_total_ns, 40000);
    CHECK_EQ_INT(mm.self_device_time_total_ns, 40000);
    CHECK_EQ_INT(mm.n_kernels, 1);
    CHECK_EQ_INT(add.device_time_total_ns, 18500);
    CHECK_EQ_INT(add.self_device_time_total_ns, 18500);
    CHECK_EQ_INT(add.n_kernels, 2);
    CHECK_EQ_INT(fw.device_time_total_ns, 60500);
    CHECK_EQ_INT(fw.self_device_time_total_ns, 2000);
    CHECK_EQ_INT(fw.n_kernels, 1);
    /* API calls: CPU events of the calling thread, inside the scope, never
       holding kernels themselves */
    CHECK_EQ_INT(l1.thread, tid);
    CHECK_EQ_INT(l1.start_ns, 2500);
    CHECK_EQ_INT(l1.end_ns, 4500);
    CHECK_EQ_INT(l1.device_type, PROF_DEVICE_CPU);
    CHECK_EQ_INT(l1.parent, check_find_event(ev, "aten::mm", 0));
    CHECK_EQ_INT(l1.n_kernels, 0);
    CHECK_EQ_INT(l1.device_time_total_ns, 0);
    CHECK_EQ_INT(l2.parent, check_find_event(ev, "aten::add", 0));
    CHECK_EQ_INT(l2.n_kernels, 0);
    /* GPU records: device events on their stream */
    CHECK_EQ_INT(gemm.device_type, PROF_DEVICE_CUDA);
    CHECK_EQ_INT(gemm.device_index, 0);
    CHECK_EQ_INT(gemm.device_resource_id, 7);
    CHECK_EQ_INT(gemm.start_ns, 10000);
    CHECK_EQ_INT(gemm.end_ns, 50000);
    CHECK_EQ_INT(gemm.self_device_time_total_ns, 40000);
    CHECK_EQ_INT(gemm.cpu_time_total_ns, 0);
    CHECK_EQ_INT(cp.device_type, PROF_DEVICE_CUDA);
    CHECK_EQ_INT(cp.end_ns - cp.start_ns, 10000);
    CHECK_EQ_INT(ms.device_type, PROF_DEVICE_CUDA);
    /* MEMORY2 records: CUDA memory of every event around the allocating call */
    CHECK_EQ_INT(fw.device_memory_usage, 4 * MIB);
    CHECK_EQ_INT(mm.device_memory_usage, 4 * MIB);
    CHECK_EQ_INT(add.device_memory_usage, MIB);
    CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "cudaMalloc", 0)).self_device_memory_usage, 4 * MIB);
    CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "cudaFree", 0)).device_memory_usage, -(int64_t)MIB);
    CHECK_EQ_INT(count_device_events(ev), 4);
}

/* ----- 3. the trace, through python3's json module ------------------------- */
static const char k_trace_checker[] =
    "import json, sys\n"
    "trace = json.load(open(sys.argv[1]))\n"
    "expect = json.load(open(sys.argv[2]))\n"
    "evs = trace['traceEvents']\n"
    "def val(e, k):\n"
    "    if k.startswith('args.'):\n"
    "        a = e.get('args', {})\n"
    "        return (k[5:] in a, a.get(k[5:]))\n"
    "    return (k in e, e.get(k))\n"
    "def same(a, b):\n"
    "    if isinstance(a, bool) or isinstance(b, bool): return a is b\n"
    "    if isinstance(a, (int, float)) and isinstance(b, (int, float)): return abs(a - b) <= 1e-6 * max(1.0, abs(b))\n"
    "    return a == b\n"
    "def match(e, where):\n"
    "    for k, v in where.items():\n"
    "        present, got = val(e, k)\n"
    "        if v is None:\n"
    "            if present: return False\n"
    "        elif not present or not same(got, v): return False\n"
    "    return True\n"
    "fails = 0\n"
    "for x in expect:\n"
    "    hits = [e for e in trace.get(x.get('list', 'traceEvents'), []) if match(e, x['where'])]\n"
    "    if len(hits) != x['count']:\n"
    "        fails += 1\n"
    "        print('trace: %d event(s) match %s, expected %d' % (len(hits), json.dumps(x['where']), x['count']))\n"
    "        near = [e for e in evs if all(same(val(e, k)[1], v) for k, v in x['where'].items() if k in ('ph', 'cat', 'name'))]\n"
    "        for e in near[:3]: print('    similar: ' + json.dumps(e))\n"
    "# every flow start has exactly one end with its id, and the other way round\n"
    "s = [e for e in evs if e.get('ph') == 's']\n"
    "f = [e for e in evs if e.get('ph') == 'f']\n"
    "for a, b, what in ((s, f, 'start'), (f, s, 'end')):\n"
    "    for e in a:\n"
    "        n = sum(1 for o in b if o.get('id') == e.get('id'))\n"
    "        if n != 1 or e.get('cat') != 'ac2g':\n"
    "            fails += 1\n"
    "            print('trace: flow %s %s has %d partner(s)' % (what, json.dumps(e), n))\n"
    "for e in f:\n"
    "    st = [o for o in s if o.get('id') == e.get('id')]\n"
    "    if e.get('bp') != 'e' or (st and st[0]['ts'] > e['ts']):\n"
    "        fails += 1\n"
    "        print('trace: flow end %s: no bp=e, or it precedes its start' % json.dumps(e))\n"
    "print('trace: %d expectations, %d flows, %d failed' % (len(expect), len(s), fails))\n"
    "sys.exit(1 if fails else 0)\n";

/* Expectations: {"where": {key: value, "args.key": value}, "count": n}:
   n entries of traceEvents (or of another top-level list) match; a null
   value means "key absent". */
typedef struct expect { out o; int n; } expect;
static void exp_vadd(expect *x, const char *list, int count, const char *fmt, va_list ap) {
    char buf[1024], line[1200];
    vsnprintf(buf, sizeof buf, fmt, ap);
    snprintf(line, sizeof line, "%s{\"list\": \"%s\", \"count\": %d, \"where\": {%s}}\n", x->n ? "," : "[", list, count, buf);
    out_put(&x->o, line);
    x->n++;
}
static void exp_add(expect *x, int count, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    exp_vadd(x, "traceEvents", count, fmt, ap);
    va_end(ap);
}
static void exp_list(expect *x, const char *list, int count, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    exp_vadd(x, list, count, fmt, ap);
    va_end(ap);
}
static int have_python = -1;
/* Runs the checker; 1 = passed, 0 = failed, -1 = no python3 (skipped). */
static int check_trace(const char *trace, expect *x, const char *what) {
    char cmd[512];
    int rc;
    out_put(&x->o, x->n ? "]\n" : "[]\n");
    if (have_python < 0) {
        have_python = system("python3 -c 'import json' >/dev/null 2>&1") == 0;
        if (!have_python) printf("test_cupti: no python3: the trace is only checked for validity\n");
    }
    if (write_file("build/cupti/check_trace.py", k_trace_checker) != 0 || write_file("build/cupti/expect.json", x->o.p) != 0) {
        (void)CHECK_MSG(0, "cannot write build/cupti/*.py/json");
        return 0;
    }
    free(x->o.p);
    memset(x, 0, sizeof *x);
    if (!have_python) return -1;
    snprintf(cmd, sizeof cmd, "python3 build/cupti/check_trace.py %s build/cupti/expect.json", trace);
    fflush(stdout);
    rc = system(cmd);
    return CHECK_MSG(rc == 0, "%s: the trace checks above failed (%s)", what, trace);
}

/* The Perfetto trace of the same list against its JSON trace at `json`
   (tests/export/check_perfetto.py, read as trace_processor reads it: the
   slices, their nesting, one arrow per JSON flow, a graph launch's too). */
static void check_perfetto_pair(prof_events *ev, const char *json) {
    char pf[512], cmd[1200];
    snprintf(pf, sizeof pf, "%s.pftrace", json);
    CHECK_MSG(prof_export_perfetto(ev, pf) == PROF_OK, "prof_export_perfetto(%s): %s", pf, prof_last_error());
    snprintf(cmd, sizeof cmd, "python3 tests/export/check_perfetto.py %s %s", json, pf);
    fflush(stdout);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
}

static void check_profile_trace(prof_events *ev) {
    expect x;
    long pid = (long)getpid();
    unsigned long long tid = (unsigned long long)gettid_();
    char *text;
    /* ext: Kineto's "External id" of the call, the op it ran in (forward is
       1, aten::mm 2, aten::add 6; the GPU records above carry the same) */
    static const struct { uint32_t corr; const char *api; double api_ts, api_dur; double dev_ts; int ext; unsigned cbid; } flows[] = {
        {11, "cudaLaunchKernel", 2.5, 2.0, 10.0, 2, RT_LAUNCH}, {12, "cudaLaunchKernel", 62.0, 1.0, 68.0, 6, RT_LAUNCH},
        {13, "cudaMemcpyAsync", 64.0, 1.0, 77.0, 6, RT_MEMCPY_ASYNC}, {14, "cudaMemsetAsync", 72.0, 1.0, 88.0, 1, RT_MEMSET_ASYNC},
    };
    size_t i;
    memset(&x, 0, sizeof x);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/cupti/trace.json"), PROF_OK);
    text = check_read_file_n("build/cupti/trace.json", NULL);
    CHECK(text && prof_json_valid(text));
    free(text);
    check_perfetto_pair(ev, "build/cupti/trace.json");
    /* GPU records: kernel lanes pid = device, tid = stream, Kineto's args
       (blocks and warps per SM over the fake device's 132 SMs) */
    exp_add(&x, 2, "\"ph\": \"X\", \"cat\": \"kernel\"");
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 10.0, \"dur\": 40.0, "
                   "\"args.device\": 0, \"args.stream\": 7, \"args.correlation\": 11, \"args.External id\": 2, \"args.registers per thread\": 40, "
                   "\"args.shared memory\": 3072, \"args.blocks per SM\": 0.060606060606060608, \"args.warps per SM\": 0.24242424242424243, "
                   "\"args.grid\": [4, 2, 1], \"args.block\": [128, 1, 1]");
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"add_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 68.0, \"dur\": 8.5, "
                   "\"args.device\": 0, \"args.stream\": 7, \"args.correlation\": 12, \"args.External id\": 6, \"args.registers per thread\": 32, "
                   "\"args.shared memory\": 0, \"args.blocks per SM\": 0.007575757575757576, \"args.warps per SM\": 0.030303030303030304, "
                   "\"args.grid\": [1, 1, 1], \"args.block\": [128, 1, 1]");
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", \"pid\": 0, \"tid\": 7, "
                   "\"ts\": 77.0, \"dur\": 10.0, \"args.device\": 0, \"args.stream\": 7, \"args.correlation\": 13, \"args.External id\": 6, "
                   "\"args.bytes\": 1048576, \"args.memory bandwidth (GB/s)\": 104.8576");
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 7, "
                   "\"ts\": 88.0, \"dur\": 2.0, \"args.device\": 0, \"args.stream\": 7, \"args.correlation\": 14, \"args.External id\": 1, "
                   "\"args.bytes\": 4096, \"args.memory bandwidth (GB/s)\": 2.048");
    /* API calls on the CPU thread */
    exp_add(&x, 7, "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"pid\": %ld, \"tid\": %llu", pid, tid);
    exp_add(&x, 0, "\"cat\": \"cuda_driver\"");
    for (i = 0; i < sizeof flows / sizeof flows[0]; i++) {
        exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": %ld, \"tid\": %llu, \"ts\": %.3f, "
                       "\"dur\": %.3f, \"args.cbid\": %u, \"args.correlation\": %u, \"args.External id\": %d", flows[i].api, pid, tid, flows[i].api_ts,
                flows[i].api_dur, flows[i].cbid, flows[i].corr, flows[i].ext);
        /* flow: start at the call, end (bp e) at the GPU record, id = correlation */
        exp_add(&x, 1, "\"ph\": \"s\", \"id\": %u, \"pid\": %ld, \"tid\": %llu, \"ts\": %.3f, \"cat\": \"ac2g\", \"name\": \"ac2g\"",
                flows[i].corr, pid, tid, flows[i].api_ts);
        exp_add(&x, 1, "\"ph\": \"f\", \"id\": %u, \"pid\": 0, \"tid\": 7, \"ts\": %.3f, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"",
                flows[i].corr, flows[i].dev_ts);
    }
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMalloc\", \"ts\": 5.0, \"args.cbid\": %u, \"args.correlation\": 15", RT_MALLOC);
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaFree\", \"ts\": 74.0, \"args.cbid\": %u, \"args.correlation\": 16", RT_FREE);
    exp_add(&x, 4, "\"ph\": \"s\"");
    exp_add(&x, 4, "\"ph\": \"f\"");
    exp_add(&x, 0, "\"ph\": \"s\", \"id\": 15"); /* no GPU record: no flow */
    /* scopes */
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"forward\", \"pid\": %ld, \"tid\": %llu, \"ts\": 1.0, \"dur\": 94.0",
            pid, tid);
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": %ld, \"tid\": %llu, \"ts\": 2.0, \"dur\": 58.0, "
                   "\"args.External id\": 2, \"args.Ev Idx\": 1", pid, tid);
    /* GPU lanes */
    exp_add(&x, 1, "\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args.name\": \"GPU 0\"");
    exp_add(&x, 1, "\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": 7, \"args.name\": \"stream 7\"");
    /* device memory, on the allocating thread */
    exp_add(&x, 3, "\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": %ld, \"tid\": %llu, \"args.Device Type\": 1, \"args.Device Id\": 0", pid, tid);
    exp_add(&x, 1, "\"ph\": \"i\", \"name\": \"[memory]\", \"ts\": 5.5, \"args.Bytes\": 4194304, \"args.Total Allocated\": 4194304, "
                   "\"args.Addr\": %llu", (unsigned long long)ADDR_A);
    exp_add(&x, 1, "\"ph\": \"i\", \"name\": \"[memory]\", \"ts\": 67.0, \"args.Bytes\": 1048576, \"args.Total Allocated\": 5242880");
    exp_add(&x, 1, "\"ph\": \"i\", \"name\": \"[memory]\", \"ts\": 74.5, \"args.Bytes\": -1048576, \"args.Total Allocated\": 4194304, "
                   "\"args.Addr\": %llu", (unsigned long long)ADDR_B);
    /* the devices CUPTI reported (DEVICE records), in Kineto's form */
    exp_list(&x, "deviceProperties", 1, "\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85029158912, "
             "\"computeMajor\": 9, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, "
             "\"regsPerBlock\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, \"numSms\": 132");
    exp_list(&x, "deviceProperties", 1, "\"id\": 1, \"name\": \"NVIDIA H100 80GB HBM3 \\\"b\\\"\"");
    check_trace("build/cupti/trace.json", &x, "profile trace");
}

/* ----- 4. stacks and the memory timeline ----------------------------------- */
static void check_profile_stacks(prof_events *ev) {
    /* PyTorch's export_stacks: each event with a stack and int(metric) > 0,
       outermost entry first. Only the scopes hold kernel time (40, 18.5 ->
       18 and 2 us); the kernels themselves have no stack, so each kernel's
       time appears once. */
    static const char *const names[] = {"forward", "aten::mm", "aten::add"};
    static const int us[] = {2, 40, 18};
    out want = {0, 0, 0};
    char *got;
    size_t i;
    out_put(&want, "");
    for (i = 0; i < 3; i++) {
        prof_event e = check_get_event(ev, check_find_event(ev, names[i], 0));
        char num[32];
        int k;
        CHECK_EQ_INT(e.stack_depth, i == 0 ? 1 : 2); /* the scope and the ones around it */
        CHECK(e.stack_depth > 0 && e.stack && strncmp(e.stack[0], names[i], strlen(names[i])) == 0);
        for (k = e.stack_depth - 1; k >= 0; k--) {
            char frame[512], *q;
            snprintf(frame, sizeof frame, "%s", e.stack[k]);
            for (q = frame; *q; q++)
                if (*q == ' ' || *q == ';' || *q == '\t' || *q == '\n') *q = '_'; /* str.maketrans(" ;\t\n", "____") */
            out_put(&want, frame);
            if (k) out_put(&want, ";");
        }
        snprintf(num, sizeof num, " %d\n", us[i]);
        out_put(&want, num);
    }
    {
        /* the frames as recorded (test_export_io checks the default, which
           cuts the files' common directory) */
        prof_export_options xo;
        memset(&xo, 0, sizeof xo);
        xo.source_prefix = "";
        CHECK_EQ_INT(prof_events_set_export_options(ev, &xo), PROF_OK);
    }
    CHECK_EQ_INT(prof_export_stacks(ev, "build/cupti/stacks.txt", "self_cuda_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_events_set_export_options(ev, NULL), PROF_OK);
    got = check_read_file_n("build/cupti/stacks.txt", NULL);
    CHECK_MSG(got && strcmp(got, want.p) == 0, "export_stacks(self_cuda_time_total):\n--- got\n%s--- expected\n%s", got ? got : "(none)", want.p);
    free(got);
    free(want.p);
}

static void check_profile_memory_timeline(prof_events *ev) {
    char *got;
    const char *cat[4];
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/cupti/memory.json", PROF_DEVICE_CUDA, 0), PROF_OK);
    got = check_read_file_n("build/cupti/memory.json", NULL);
    CHECK_MSG(got && strcmp(got, "[[5.500, 67.000, 74.500], [[4194304], [5242880], [4194304]]]\n") == 0, "memory timeline: %s",
              got ? got : "(none)");
    free(got);
    CHECK_EQ_INT(prof_memory_categories(ev, PROF_DEVICE_CUDA, 0, cat, 4), 1);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/cupti/memory1.json", PROF_DEVICE_CUDA, 1), PROF_OK);
    got = check_read_file_n("build/cupti/memory1.json", NULL);
    CHECK_MSG(got && strcmp(got, "[[], []]\n") == 0, "memory timeline of device 1: %s", got ? got : "(none)");
    free(got);
}

static void test_profile(const case_file *cf) {
    profile_opts o;
    prof_events *ev;
    fake_cupti_state st;
    memset(&o, 0, sizeof o);
    check_log_reset();
    ev = run_profile(&o);
    CHECK_EQ_INT(check_log_count(PROF_E_CUPTI), 0);
    fake_cupti_get_state(&st);
    CHECK_EQ_INT(st.enabled_kinds & SESSION_KINDS, 0); /* all disabled again (DEVICE may stay on) */
    CHECK_EQ_INT(st.last_flush_flag, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    /* CUPTI given back after the flush: nothing of ours stays registered */
    CHECK_EQ_INT(st.subscribed, 0);
    CHECK_EQ_INT(st.buffer_callbacks_registered, 0);
    CHECK(st.finalize_count >= 1);
    CHECK_EQ_INT(st.discarded_at_finalize, 0);
    {
        /* what prof_start enables: never KIND_KERNEL, which serializes kernels */
        prof_config c = cfg_default();
        prof_events *e2;
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        fake_cupti_get_state(&st);
        CHECK_MSG((st.enabled_kinds & SESSION_KINDS) == SESSION_KINDS, "enabled kinds 0x%llx", (unsigned long long)st.enabled_kinds);
        CHECK(!(st.enabled_kinds >> CUPTI_ACTIVITY_KIND_KERNEL & 1));
        /* synchronization records only when asked for (PROF_CUDA_SYNC) */
        CHECK(!(st.enabled_kinds >> CUPTI_ACTIVITY_KIND_SYNCHRONIZATION & 1));
        CHECK_EQ_INT(st.timestamp_callback_registered, 1);
        CHECK_EQ_INT(st.timestamp_callback_after_enable, 0);
        CHECK(fake_cupti_timestamp_callback() && fake_cupti_timestamp_callback()() == (uint64_t)vc_now()); /* CLOCK_MONOTONIC ns */
        e2 = prof_stop();
        prof_events_free(e2);
    }
    if (!ev) return;
    check_against_case(ev, cf, gettid_(), "profile");
    check_profile_numbers(ev);
    check_tables(ev, cf, "tests/tables/25_cupti_profile.expected", "profile");
    check_profile_trace(ev);
    check_profile_memory_timeline(ev);
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
    prof_events_free(ev);

    /* with_stack: the same events, each with its chain of scopes (the tables
       would gain a Source Location column: not compared) */
    o.with_stack = PROF_STACK_SCOPES;
    ev = run_profile(&o);
    if (!ev) return;
    check_against_case(ev, cf, gettid_(), "profile with_stack");
    check_profile_stacks(ev);
    prof_events_free(ev);
}

/* ----- 5. arrival order, buffers, sessions ---------------------------------- */
static void test_arrival_and_sessions(const case_file *cf) {
    static const struct { const char *what; fake_cupti_delivery d; int gpu_first, mid; } v[] = {
        {"one record per buffer, reversed", {1, FAKE_CUPTI_ORDER_REVERSED, 0, 0, 0, 0, 0}, 0, 0},
        {"shuffled into buffers of 3, completed last first, from CUPTI's thread, empty buffers",
         {3, FAKE_CUPTI_ORDER_SHUFFLED, 7, 2, 1, 0, 0}, 0, 0},
        {"buffers completed last first", {2, FAKE_CUPTI_ORDER_BUFFERS_REVERSED, 0, 0, 0, 0, 0}, 0, 0},
        {"GPU records queued before their API records, one buffer mid-session", {0, FAKE_CUPTI_ORDER_QUEUED, 0, 1, 0, 1, 0}, 1, 1},
        {"shuffled, a buffer mid-session", {4, FAKE_CUPTI_ORDER_SHUFFLED, 12345, 0, 1, 0, 0}, 0, 1},
        /* as the real library: each thread asks for its own buffer, full
           ones complete mid-session on CUPTI's thread */
        {"per-thread buffers of 2 records, completed mid-session", {2, FAKE_CUPTI_ORDER_QUEUED, 0, 0, 0, 0, 1}, 0, 0},
        {"per-thread buffers, GPU records first, the rest at the forced flush", {0, FAKE_CUPTI_ORDER_QUEUED, 0, 0, 0, 1, 1}, 1, 0},
    };
    size_t i;
    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        profile_opts o;
        prof_events *ev;
        fake_cupti_state st0, st1;
        memset(&o, 0, sizeof o);
        o.delivery = &v[i].d;
        o.gpu_first = v[i].gpu_first;
        o.mid_session_delivery = v[i].mid;
        fake_cupti_get_state(&st0);
        ev = run_profile(&o);
        fake_cupti_get_state(&st1);
        CHECK(st1.delivered_buffers - st0.delivered_buffers >= 2);
        check_against_case(ev, cf, gettid_(), v[i].what);
        check_tables(ev, cf, "tests/tables/25_cupti_profile.expected", v[i].what);
        prof_events_free(ev);

        /* Between sessions: records stamped with the last session's times
           arrive late, some handed over before the next prof_start, some
           during the next session. None may show up there. */
        fake_cupti_set_generate_disabled(1);
        q_rt(RT_LAUNCH, 30000, 31000, 11);
        q_kernel("late_kernel", 40000, 41000, 11);
        CHECK(fake_cupti_deliver_pending() == -1); /* prof_stop gave CUPTI back: no callbacks now */
        q_rt(RT_LAUNCH, 32000, 33000, 12);
        q_kernel("late_kernel", 42000, 43000, 12);
        fake_cupti_set_generate_disabled(0);
    }
    {
        /* the late records are dropped by the next session */
        profile_opts o;
        prof_events *ev;
        memset(&o, 0, sizeof o);
        ev = run_profile(&o);
        CHECK_EQ_INT(check_find_event(ev, "late_kernel", 0), -1);
        check_against_case(ev, cf, gettid_(), "after late records");
        prof_events_free(ev);
    }
}

/* ----- 6. threads ----------------------------------------------------------- */
typedef struct worker_arg { int scoped; uint32_t corr; uint64_t tid; } worker_arg;
static void *worker(void *p) {
    worker_arg *w = (worker_arg *)p;
    w->tid = gettid_();
    if (w->scoped) {
        at(2000);
        {
            PROF_SCOPE("worker_step");
            q_rt(RT_LAUNCH, 2500, 3000, w->corr); /* threadId: this thread's */
            at(5000);
        }
    } else {
        q_rt(RT_LAUNCH, 3500, 4000, w->corr);     /* a call outside any scope */
    }
    return NULL;
}
static void test_threads(void) {
    prof_config c = cfg_default();
    prof_events *ev;
    pthread_t th;
    worker_arg w1 = {1, 21, 0}, w2 = {0, 23, 0};
    uint64_t tid = gettid_();
    session_clock();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    at(1000);
    {
        PROF_SCOPE("main_scope");
        CHECK_EQ_INT(pthread_create(&th, NULL, worker, &w1), 0);
        pthread_join(th, NULL);
        CHECK_EQ_INT(pthread_create(&th, NULL, worker, &w2), 0);
        pthread_join(th, NULL);
        at(6000);
        q_rt(RT_LAUNCH, 7000, 7500, 22);
        q_kernel("worker_kernel", 6000, 8000, 21);
        q_kernel("main_kernel", 9000, 9500, 22);
        q_kernel("orphan_kernel", 9600, 9900, 23);
        at(10000);
    }
    at(11000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    {
        int64_t ws = check_find_event(ev, "worker_step", 0), ms = check_find_event(ev, "main_scope", 0);
        int64_t a21 = -1, a22 = -1, a23 = -1;
        size_t i, n = prof_events_count(ev);
        prof_event e;
        for (i = 0; i < n; i++) {
            e = check_get_event(ev, (int64_t)i);
            if (strcmp(e.name, "cudaLaunchKernel") != 0) continue;
            if (e.start_ns == 2500) a21 = (int64_t)i;
            if (e.start_ns == 7000) a22 = (int64_t)i;
            if (e.start_ns == 3500) a23 = (int64_t)i;
        }
        CHECK(ws >= 0 && ms >= 0 && a21 >= 0 && a22 >= 0 && a23 >= 0);
        CHECK_EQ_INT(check_get_event(ev, ws).thread, w1.tid);
        /* the worker's call: on the worker, inside its scope */
        e = check_get_event(ev, a21);
        CHECK_EQ_INT(e.thread, w1.tid);
        CHECK_EQ_INT(e.parent, ws);
        e = check_get_event(ev, ws);
        CHECK_EQ_INT(e.device_time_total_ns, 2000);
        CHECK_EQ_INT(e.n_kernels, 1);
        /* main's scope spans the worker's in time but gets only its own kernel */
        e = check_get_event(ev, ms);
        CHECK_EQ_INT(e.device_time_total_ns, 500);
        CHECK_EQ_INT(e.n_kernels, 1);
        e = check_get_event(ev, a22);
        CHECK_EQ_INT(e.thread, tid);
        CHECK_EQ_INT(e.parent, ms);
        /* a call with no scope around it: on its own thread (the OS tid), no
           parent; its kernel stays a device event only */
        e = check_get_event(ev, a23);
        CHECK_EQ_INT(e.thread, w2.tid);
        CHECK_EQ_INT(e.parent, -1);
        CHECK(check_find_event(ev, "orphan_kernel", 0) >= 0);
        CHECK_EQ_INT(count_device_events(ev), 3);
    }
    prof_events_free(ev);
}

/* ----- 7. sync records, driver calls, names, several devices and streams --- */
static void test_sync_driver_lanes(void) {
    prof_config c = cfg_default();
    prof_events *ev;
    long pid = (long)getpid();
    unsigned long long tid = (unsigned long long)gettid_();
    c.cuda_flags = PROF_CUDA_SYNC | PROF_CUDA_ALL_API;
    session_clock();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        /* synchronization on, without query records for pending work */
        fake_cupti_state st;
        fake_cupti_get_state(&st);
        CHECK(st.enabled_kinds >> CUPTI_ACTIVITY_KIND_SYNCHRONIZATION & 1);
        CHECK_EQ_INT(st.all_sync_records, 0);
    }
    at(1000);
    {
        PROF_SCOPE("sync_scope");
        /* a context-wide sync has no stream (0xFFFFFFFF): its own lane */
        CUpti_ActivitySynchronization2 cs = fake_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, T(19100), T(19500), 36);
        cs.contextId = 5;
        CHECK_EQ_INT(fake_cupti_queue_sync(&cs), 0);
        CUpti_ActivitySynchronization2 s = fake_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, T(2100), T(5900), 31);
        CUpti_ActivityKernel10 kd = fake_cupti_kernel("_Z9gemm_tilePfS_i", T(9000), T(12000), 32);
        CUpti_ActivityKernel10 kr = fake_cupti_kernel("rt_kernel", T(17000), T(18000), 35);
        CUpti_ActivityKernel10 ko = fake_cupti_kernel("orphan_kernel", T(18500), T(19000), 99);
        q_rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 2000, 6000, 31);
        s.contextId = 5;
        s.streamId = 13;
        CHECK_EQ_INT(fake_cupti_queue_sync(&s), 0);
        q_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 7000, 8000, 32);
        q_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, 13000, 13500, 33);
        q_rt(CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020, 14000, 14500, 34);
        q_rt(RT_LAUNCH, 15000, 16000, 35);
        q_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 15200, 15800, 35); /* the runtime call's own */
        kd.deviceId = kr.deviceId = ko.deviceId = 1;
        kd.contextId = kr.contextId = ko.contextId = 5;
        kd.streamId = kr.streamId = 13;
        ko.streamId = 14;
        CHECK_EQ_INT(fake_cupti_queue_kernel(&kd), 0);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&kr), 0);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&ko), 0);
        at(20000);
    }
    at(21000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    {
        prof_event sc = check_get_event(ev, check_find_event(ev, "sync_scope", 0));
        prof_event sy = check_get_event(ev, check_find_event(ev, "Stream Sync", 0));
        int64_t kd = check_find_event(ev, "_Z9gemm_tilePfS_i", 0);
        if (kd < 0) kd = check_find_event(ev, "gemm_tile(float*, float*, int)", 0); /* demangled when libstdc++ is loaded */
        CHECK(kd >= 0);
        /* the scope holds the driver-launched and the runtime-launched kernel,
           once each, and the Stream Sync of its cudaStreamSynchronize (a
           CUDA event linked to the op, as PyTorch counts Kineto's
           cuda_sync: 3.8 us); the Context Sync's call is not in the list */
        CHECK_EQ_INT(sc.n_kernels, 3);
        CHECK_EQ_INT(sc.device_time_total_ns, 7800);
        CHECK_EQ_INT(sy.is_user_annotation, 0);
        CHECK_EQ_STR(sy.name, "Stream Sync");
        CHECK_EQ_INT(sy.device_type, PROF_DEVICE_CUDA);
        CHECK_EQ_INT(sy.device_index, 1); /* from the context's kernels */
        CHECK_EQ_INT(sy.device_resource_id, 13);
        CHECK_EQ_INT(sy.start_ns, 2100);
        CHECK_EQ_INT(check_get_event(ev, kd).device_index, 1);
        CHECK_EQ_INT(check_get_event(ev, kd).device_resource_id, 13);
        CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "cuLaunchKernel", 0)).parent, check_find_event(ev, "sync_scope", 0));
        CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "cuLaunchKernel", 1)).parent, check_find_event(ev, "cudaLaunchKernel", 0));
        /* names: the _vNNNN suffix goes, cuMemAlloc_v2 keeps its _v2 (Kineto) */
        CHECK(check_find_event(ev, "cudaStreamSynchronize", 0) >= 0);
        CHECK(check_find_event(ev, "cudaMallocAsync_ptsz", 0) >= 0);
        CHECK_MSG(check_find_event(ev, "cuMemAlloc_v2", 0) >= 0, "driver cbid cuMemAlloc_v2 is named \"%s\"",
                  check_get_event(ev, check_find_event(ev, "cuMemAlloc", 0)).name);
        CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "orphan_kernel", 0)).device_resource_id, 14);
        CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "Context Sync", 0)).device_resource_id, -1);
        CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "Context Sync", 0)).device_index, 1);
        CHECK_EQ_INT(count_device_events(ev), 5);
    }
    {
        expect x;
        memset(&x, 0, sizeof x);
        CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/cupti/trace_sync.json"), PROF_OK);
        check_perfetto_pair(ev, "build/cupti/trace_sync.json"); /* the sync records get no arrow, as in the JSON */
        exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", \"pid\": 1, \"tid\": 13, \"ts\": 2.1, \"dur\": 3.8, "
                       "\"args.correlation\": 31");
        exp_add(&x, 2, "\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuLaunchKernel\", \"pid\": %ld, \"tid\": %llu", pid, tid);
        exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuMemAlloc_v2\", \"args.correlation\": 33");
        exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"pid\": %ld, \"tid\": %llu", pid, tid);
        exp_add(&x, 3, "\"ph\": \"X\", \"cat\": \"kernel\", \"pid\": 1");
        exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"rt_kernel\", \"pid\": 1, \"tid\": 13, \"ts\": 17.0, \"args.device\": 1, "
                       "\"args.stream\": 13, \"args.correlation\": 35");
        exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"orphan_kernel\", \"pid\": 1, \"tid\": 14, \"args.correlation\": 99");
        /* one flow per launch: 32 from the driver call, 35 from the runtime call */
        exp_add(&x, 1, "\"ph\": \"s\", \"id\": 32, \"pid\": %ld, \"tid\": %llu, \"ts\": 7.0", pid, tid);
        exp_add(&x, 1, "\"ph\": \"f\", \"id\": 32, \"pid\": 1, \"tid\": 13, \"ts\": 9.0, \"bp\": \"e\"");
        exp_add(&x, 1, "\"ph\": \"s\", \"id\": 35, \"pid\": %ld, \"tid\": %llu, \"ts\": 15.0", pid, tid);
        exp_add(&x, 1, "\"ph\": \"f\", \"id\": 35, \"pid\": 1, \"tid\": 13, \"ts\": 17.0, \"bp\": \"e\"");
        exp_add(&x, 0, "\"ph\": \"f\", \"id\": 99");
        exp_add(&x, 1, "\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args.name\": \"GPU 1\"");
        exp_add(&x, 0, "\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args.name\": \"GPU 0\"");
        exp_add(&x, 1, "\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 13, \"args.name\": \"stream 13\"");
        exp_add(&x, 1, "\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 14, \"args.name\": \"stream 14\"");
        exp_add(&x, 1, "\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": -1, \"args.name\": \"sync\"");
        exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Context Sync\", \"pid\": 1, \"tid\": -1");
        exp_add(&x, 0, "\"args.name\": \"stream 4294967295\"");
        check_trace("build/cupti/trace_sync.json", &x, "sync/driver trace");
    }
    prof_events_free(ev);
}

/* ----- 8. dropped records --------------------------------------------------- */
static void test_dropped(void) {
    prof_config c = cfg_default();
    prof_events *ev;
    CUpti_ActivityKernel10 k;
    /* some records lost, some delivered */
    check_log_reset();
    session_clock();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    at(1000);
    {
        PROF_SCOPE("dropping");
        q_rt(RT_LAUNCH, 1500, 2000, 41);
        q_kernel("kept_kernel", 3000, 4000, 41);
        fake_cupti_drop_next(2);
        k = fake_cupti_kernel("lost_kernel", T(4000), T(5000), 41);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 1);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 1);
        fake_cupti_add_dropped(3); /* e.g. a full buffer */
        at(6000);
    }
    ev = prof_stop();
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 5);
    CHECK(check_log_has(PROF_E_DROPPED, "CUPTI dropped 5"));
    /* no event hit max_events: the warning about the cap would send the user the wrong way */
    CHECK_MSG(check_log_count(PROF_E_DROPPED) == 1, "%d PROF_E_DROPPED warnings for CUPTI's drops, expected 1; the other: %s",
              check_log_count(PROF_E_DROPPED), check_log_has(PROF_E_DROPPED, "max_events") ? "\"...raise prof_config.max_events\"" : "?");
    CHECK_EQ_INT(check_find_event(ev, "lost_kernel", 0), -1);
    CHECK(check_find_event(ev, "kept_kernel", 0) >= 0);
    prof_events_free(ev);

    /* every record lost: nothing reaches bufferCompleted, the loss still counts */
    check_log_reset();
    session_clock();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    at(1000);
    fake_cupti_drop_next(3);
    k = fake_cupti_kernel("lost_kernel", T(1000), T(2000), 42);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 1);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 1);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 1);
    at(3000);
    ev = prof_stop();
    CHECK_MSG(prof_events_stats(ev).dropped == 3, "all 3 records of the session dropped: stats.dropped = %llu",
              (unsigned long long)prof_events_stats(ev).dropped);
    CHECK(check_log_has(PROF_E_DROPPED, "CUPTI dropped 3"));
    prof_events_free(ev);

    /* the next session lost nothing */
    check_log_reset();
    session_clock();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    q_rt(RT_LAUNCH, 1000, 2000, 43);
    at(3000);
    ev = prof_stop();
    CHECK_MSG(prof_events_stats(ev).dropped == 0, "a session that dropped nothing: stats.dropped = %llu",
              (unsigned long long)prof_events_stats(ev).dropped);
    CHECK_EQ_INT(check_log_count(PROF_E_DROPPED), 0);
    prof_events_free(ev);
}

/* ----- 9. a slow CUPTI: prof_start takes time, the timelines must agree ----- */
static int slow_enable_armed;
static void slow_cupti(const char *api, void *ud) {
    (void)ud;
    /* the real library's first enable can take long (it instruments the contexts) */
    if (slow_enable_armed && strcmp(api, "cuptiActivityEnable") == 0) vc_advance(25000);
}
static void test_slow_start(void) {
    prof_config c = cfg_default();
    prof_events *ev;
    int64_t t0;
    session_clock();
    slow_enable_armed = 1;
    fake_cupti_set_call_hook(slow_cupti, NULL);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    slow_enable_armed = 0;
    fake_cupti_set_call_hook(NULL, NULL);
    t0 = vc_now() - g_base; /* prof_start returned here */
    CHECK(t0 >= 7 * 25000);
    at(t0 + 1000);
    {
        PROF_SCOPE("after_slow_start");
        q_rt(RT_LAUNCH, t0 + 2000, t0 + 3000, 51);
        q_kernel("k51", t0 + 5000, t0 + 6000, 51);
        at(t0 + 10000);
    }
    at(t0 + 20000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    {
        int64_t si = check_find_event(ev, "after_slow_start", 0);
        prof_event s = check_get_event(ev, si), a = check_get_event(ev, check_find_event(ev, "cudaLaunchKernel", 0)),
                   k = check_get_event(ev, check_find_event(ev, "k51", 0));
        /* a call made 1 us into the scope is 1 us into it in the events */
        CHECK_MSG(a.start_ns - s.start_ns == 1000, "API record at scope start + 1000 ns lands at scope start + %lld ns "
                  "(GPU/API times vs scope times: prof_start took %lld ns between its two clock reads)",
                  (long long)(a.start_ns - s.start_ns), (long long)t0);
        CHECK_EQ_INT(k.start_ns - s.start_ns, 4000);
        CHECK_EQ_INT(a.parent, si);
        CHECK_EQ_INT(s.n_kernels, 1);
    }
    prof_events_free(ev);
}

/* ----- 10. machines without a GPU, another CUPTI client, failing calls ------ */
/* Two sessions; each logs exactly one PROF_E_CUPTI error and keeps the CPU
   profile; no CUDA events, no CUDA columns. */
/* no_gpu: no driver or GPU is one info line in the first session, and
   later sessions do not call CUPTI at all. */
static void cpu_survives_n(const char *what, const char *msg_part, int sessions, int no_gpu) {
    int s;
    for (s = 0; s < sessions; s++) {
        long calls0 = total_cupti_calls();
        prof_config c = cfg_default();
        prof_events *ev;
        fake_cupti_state st;
        CUpti_ActivityKernel10 k;
        char *t;
        prof_log_level lvl = PROF_LOG_INFO;
        check_log_reset();
        session_clock();
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        fake_cupti_get_state(&st);
        CHECK_MSG(!(st.enabled_kinds & SESSION_KINDS), "%s: kinds left enabled after a failed start: 0x%llx", what,
                  (unsigned long long)st.enabled_kinds);
        at(1000);
        {
            PROF_SCOPE("cpu_work");
            CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, RT_LAUNCH, T(1500), T(2000), 61);
            k = fake_cupti_kernel("k61", T(3000), T(4000), 61);
            fake_cupti_queue_api(&a);
            fake_cupti_queue_kernel(&k);
            at(5000);
        }
        at(6000);
        ev = prof_stop();
        if (no_gpu && s > 0) {
            CHECK_MSG(check_log_count(PROF_E_CUPTI) == 0, "%s, session %d: %d PROF_E_CUPTI messages, expected none", what, s + 1,
                      check_log_count(PROF_E_CUPTI));
            CHECK_MSG(total_cupti_calls() == calls0, "%s, session %d: %ld CUPTI calls, expected none", what, s + 1, total_cupti_calls() - calls0);
        } else {
            if (CHECK_MSG(check_log_find(PROF_E_CUPTI, NULL, &lvl) == 1, "%s, session %d: %d PROF_E_CUPTI messages, expected 1", what, s + 1,
                          check_log_count(PROF_E_CUPTI)))
                CHECK_EQ_INT(lvl, no_gpu ? PROF_LOG_INFO : PROF_LOG_ERROR);
            if (msg_part) CHECK_MSG(check_log_has(PROF_E_CUPTI, msg_part), "%s: the message does not name %s", what, msg_part);
        }
        fake_cupti_get_state(&st);
        CHECK_MSG(!st.subscribed, "%s, session %d: CUPTI's subscriber slot still held after prof_stop", what, s + 1);
        CHECK_MSG(prof_events_count(ev) == 1 && count_device_events(ev) == 0, "%s, session %d: %zu events, %zu on a device; expected only the scope",
                  what, s + 1, prof_events_count(ev), count_device_events(ev));
        CHECK_EQ_STR(check_get_event(ev, check_find_event(ev, "cpu_work", 0)).name, "cpu_work");
        CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "cpu_work", 0)).start_ns, 1000);
        CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "cpu_work", 0)).end_ns, 5000);
        t = prof_events_table(ev, NULL);
        CHECK_MSG(t && !strstr(t, "CUDA"), "%s: the table has CUDA columns", what);
        prof_free_string(t);
        prof_events_free(ev);
    }
}
static void cpu_survives(const char *what, const char *msg_part) { cpu_survives_n(what, msg_part, 2, 0); }
static void cpu_survives_once(const char *what) { cpu_survives_n(what, NULL, 1, 0); }
static void child_no_driver(void) {
    fake_cupti_simulate_no_driver();
    cpu_survives_n("no driver", "CUPTI_ERROR_UNKNOWN", 3, 1);
}
static void child_stub_driver(void) {
    fake_cupti_simulate_stub_driver();
    cpu_survives_n("stub driver", "CUPTI_ERROR_UNKNOWN", 3, 1);
}
static void child_other_subscriber(void) {
    fake_cupti_simulate_other_subscriber(1);
    cpu_survives("another CUPTI subscriber", "MULTIPLE_SUBSCRIBERS");
    /* the likely holder in a PyTorch process, which keeps CUPTI to its
       exit once it has profiled CUDA (seen on a GPU: tests/gpu/interop.py) */
    cpu_survives("another CUPTI subscriber", "PyTorch's profiler");
}
static void child_enable_fails(void) {
    prof_config c = cfg_default();
    prof_events *ev;
    /* the third kind cannot be enabled: the first two must be disabled again */
    fake_cupti_set_enable_result(CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ERROR_NOT_COMPATIBLE);
    cpu_survives("cuptiActivityEnable(MEMSET) fails", "CUPTI_ERROR_NOT_COMPATIBLE");
    fake_cupti_set_enable_result(CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_SUCCESS);
    /* an injected failure of the first enable */
    fake_cupti_set_result("cuptiActivityEnable", CUPTI_ERROR_INVALID_OPERATION, 1);
    cpu_survives_once("cuptiActivityEnable fails once");
    /* once CUPTI works again, so does the next session */
    check_log_reset();
    session_clock();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    q_rt(RT_LAUNCH, 1000, 1500, 62);
    q_kernel("k62", 2000, 3000, 62);
    at(4000);
    ev = prof_stop();
    CHECK_EQ_INT(check_log_count(PROF_E_CUPTI), 0);
    CHECK(check_find_event(ev, "k62", 0) >= 0);
    prof_events_free(ev);
}

/* ----- 11. the real library's behaviour (CUDA 13) --------------------------- */
/* The fake stamps API calls itself, through the timestamp callback prof.h
   registered; each stamp moves the virtual clock on by 100 ns. */
static void tick_100(void *ud) { (void)ud; vc_advance(100); }

static prof_events *real_session(unsigned cuda_flags, void (*body)(void)) {
    prof_config c = cfg_default();
    fake_cupti_delivery d;
    prof_events *ev;
    memset(&d, 0, sizeof d);
    d.per_thread_buffers = 1;
    d.records_per_buffer = 3; /* buffers fill and complete mid-session */
    c.profile_memory = 1;
    c.cuda_flags = cuda_flags;
    fake_cupti_set_delivery(&d);
    fake_cupti_set_tick(tick_100, NULL);
    session_clock();
    check_log_reset();
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return NULL;
    body();
    ev = prof_stop();
    fake_cupti_set_tick(NULL, NULL);
    fake_cupti_set_delivery(NULL);
    CHECK(ev != NULL);
    return ev;
}

static int64_t g_now; /* scratch: a time inside the session body */
static void body_launches(void) {
    static const char *const graph[] = { "graph_k0", "graph_k1", "graph_k2" };
    at(1000);
    {
        PROF_SCOPE("chevron");
        g_now = vc_now();
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_CHEVRON, "chevron_kernel", T(50000), T(51000));
        fake_cupti_api_enter(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
        fake_cupti_api_exit();
        vc_advance(1000);
    }
    {
        PROF_SCOPE("runtime");
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "rt_kernel", T(52000), T(54000));
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME_EX, "rtex_kernel", T(54000), T(54500));
        vc_advance(1000);
    }
    {
        PROF_SCOPE("driver");
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_DRIVER, "drv_kernel", T(55000), T(55300));
        /* a driver launch inside another driver call (a library's
           cuModuleLoad, say): the kernel is still this scope's */
        fake_cupti_api_enter(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData);
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_DRIVER, "nested_kernel", T(56000), T(56700));
        fake_cupti_api_exit();
        vc_advance(1000);
    }
    {
        PROF_SCOPE("graph");
        fake_cupti_graph_launch(7, graph, 3, T(60000), 1000, 400);
        vc_advance(1000);
    }
    {
        PROF_SCOPE("copies");
        fake_cupti_memcpy_call(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1 << 20, T(62000), T(63000));
        vc_advance(1000);
    }
    {
        PROF_SCOPE("memory");
        fake_cupti_malloc_call(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, ADDR_A, 4 * MIB, 0);
        fake_cupti_malloc_call(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, ADDR_B, 2 * MIB, 0);
        fake_cupti_malloc_call(CUPTI_ACTIVITY_MEMORY_KIND_PINNED, ADDR_B + 8 * MIB, MIB, 0);
        vc_advance(1000);
    }
    at(100000); /* cudaDeviceSynchronize: the GPU is done */
}

static void check_scope_kernels(prof_events *ev, const char *scope, size_t n, int64_t ns, const char *what) {
    prof_event e = check_get_event(ev, check_find_event(ev, scope, 0));
    CHECK_MSG(e.n_kernels == n && e.device_time_total_ns == ns && e.self_device_time_total_ns == ns,
              "%s: scope %s owns %zu kernels, %lld ns (self %lld), expected %zu, %lld", what, scope, e.n_kernels,
              (long long)e.device_time_total_ns, (long long)e.self_device_time_total_ns, n, (long long)ns);
}

static void check_launch_profile(prof_events *ev, int all_api, const char *what) {
    prof_event mem = check_get_event(ev, check_find_event(ev, "memory", 0));
    int64_t cp;
    /* every launch style, graphs, copies: each kernel in the scope that
       launched it, once */
    check_scope_kernels(ev, "chevron", 1, 1000, what);
    check_scope_kernels(ev, "runtime", 2, 2500, what);
    check_scope_kernels(ev, "driver", 2, 1000, what);
    check_scope_kernels(ev, "graph", 3, 1200, what);
    check_scope_kernels(ev, "copies", 1, 1000, what);
    /* the noise Kineto drops, unless every call is asked for */
    CHECK_MSG((check_find_event(ev, "__cudaPushCallConfiguration", 0) >= 0) == all_api, "%s: __cudaPushCallConfiguration", what);
    CHECK_MSG((check_find_event(ev, "__cudaPopCallConfiguration", 0) >= 0) == all_api, "%s: __cudaPopCallConfiguration", what);
    /* <<<>>>'s __cudaLaunchKernel is the launch: cudaLaunchKernel, as on CUDA 12 */
    CHECK_MSG((check_find_event(ev, "__cudaLaunchKernel", 0) >= 0) == all_api, "%s: __cudaLaunchKernel", what);
    CHECK_MSG(check_get_event(ev, check_find_event(ev, "cudaLaunchKernel", 0)).parent == check_find_event(ev, "chevron", 0) || all_api,
              "%s: <<<>>>'s launch is cudaLaunchKernel", what);
    CHECK_MSG((check_find_event(ev, "cudaGetDevice", 0) >= 0) == all_api, "%s: cudaGetDevice", what);
    CHECK_MSG((check_find_event(ev, "cuMemcpyHtoD_v2", 0) >= 0) == all_api, "%s: cuMemcpyHtoD_v2", what);
    CHECK_MSG((check_find_event(ev, "cuModuleLoadData", 0) >= 0) == all_api, "%s: cuModuleLoadData", what);
    CHECK_MSG(check_find_event(ev, "cudaLaunchKernel", 0) >= 0 && check_find_event(ev, "cudaLaunchKernelExC", 0) >= 0 &&
              check_find_event(ev, "cuLaunchKernel", 1) >= 0 && check_find_event(ev, "cudaGraphLaunch", 0) >= 0 && check_find_event(ev, "cudaMemcpy", 0) >= 0,
              "%s: a launching call is missing", what);
    /* the calls' times are the timestamp callback's (CLOCK_MONOTONIC) */
    CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "cudaLaunchKernel", !all_api)).end_ns - check_get_event(ev, check_find_event(ev, "cudaLaunchKernel", !all_api)).start_ns, 100);
    CHECK_MSG(check_get_event(ev, check_find_event(ev, "cudaLaunchKernel", !all_api)).parent == check_find_event(ev, "runtime", 0), "%s: cudaLaunchKernel's parent", what);
    /* the copy: its runtime call has the runtimeCorrelationId */
    cp = check_find_event(ev, "Memcpy HtoD (Pageable -> Device)", 0);
    CHECK_MSG(cp >= 0 && check_get_event(ev, cp).device_time_total_ns == 1000, "%s: the copy", what);
    /* device memory: DEVICE and MANAGED on the GPU, pinned host memory on the host */
    CHECK_MSG(mem.device_memory_usage == (int64_t)(6 * MIB) && mem.cpu_memory_usage == (int64_t)MIB,
              "%s: memory scope: device %lld, cpu %lld; expected 6 MiB, 1 MiB", what, (long long)mem.device_memory_usage, (long long)mem.cpu_memory_usage);
    CHECK_EQ_INT(prof_events_stats(ev).cuda_no_timestamps, 0);
    CHECK_EQ_INT(prof_events_stats(ev).cuda_unfinished, 0);
}

static void check_launch_trace(prof_events *ev, const char *path) {
    expect x;
    long pid = (long)getpid();
    unsigned long long tid = (unsigned long long)gettid_();
    memset(&x, 0, sizeof x);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    exp_add(&x, 3, "\"ph\": \"X\", \"cat\": \"kernel\", \"args.graph id\": 7");
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"graph_k1\", \"args.graph id\": 7, \"args.graph node id\": 30064771074");
    exp_add(&x, 0, "\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"rt_kernel\", \"args.graph id\": 0");
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"args.bytes\": 1048576");
    /* one flow per kernel of the graph, from the one cudaGraphLaunch; the
       copy's from cudaMemcpy (its runtime correlation id) */
    exp_add(&x, 9, "\"ph\": \"f\", \"cat\": \"ac2g\", \"pid\": 0, \"tid\": 7"); /* every kernel and the copy */
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpy\", \"pid\": %ld, \"tid\": %llu", pid, tid);
    check_trace(path, &x, path);
    check_perfetto_pair(ev, path); /* the graph's three arrows from one launch */
}

static void test_real_launches(void) {
    prof_events *ev;
    fake_cupti_state st0, st1;
    fake_cupti_get_state(&st0);
    ev = real_session(0, body_launches);
    fake_cupti_get_state(&st1);
    if (!ev) return;
    /* buffers asked for on the recording thread, full ones completed mid-session */
    CHECK(st1.requested_buffers - st0.requested_buffers >= 5);
    CHECK_EQ_INT(st1.open_buffers, 0);
    check_launch_profile(ev, 0, "Kineto's filter");
    check_launch_trace(ev, "build/cupti/trace_real.json");
    prof_events_free(ev);
    ev = real_session(PROF_CUDA_ALL_API, body_launches);
    if (!ev) return;
    check_launch_profile(ev, 1, "every API call");
    /* the nested driver launch sits in the outer driver call, the kernel
       still counts for the scope */
    CHECK_EQ_INT(check_get_event(ev, check_find_event(ev, "cuLaunchKernel", 1)).parent, check_find_event(ev, "cuModuleLoadData", 0));
    prof_events_free(ev);
}

/* Lost and unfinished GPU work is counted and reported. */
static void body_lost(void) {
    CUpti_ActivityKernel10 k;
    at(1000);
    {
        PROF_SCOPE("lost");
        fake_cupti_lose_kernel_timestamps(1);
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "no_ts_kernel", T(2000), T(3000));   /* loses its timestamps */
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "ok_kernel", T(4000), T(5000));
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "running_kernel", T(9000), T(30000)); /* ends after prof_stop */
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "queued_kernel", T(31000), T(32000)); /* not begun at prof_stop */
        k = fake_cupti_kernel("incomplete_kernel", T(9500), 0, 77);                       /* a forced flush hands it over unfinished */
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        at(10000);
    }
    at(20000);
}
static void test_lost_and_unfinished(void) {
    prof_events *ev;
    fake_cupti_set_version(130000); /* CUPTI 13.0: kernels may lose their timestamps */
    ev = real_session(0, body_lost);
    fake_cupti_set_version(0);
    if (!ev) return;
    CHECK_EQ_INT(prof_events_stats(ev).cuda_no_timestamps, 1);
    CHECK_EQ_INT(prof_events_stats(ev).cuda_unfinished, 3);
    CHECK_EQ_INT(check_find_event(ev, "no_ts_kernel", 0), -1);
    CHECK_EQ_INT(check_find_event(ev, "queued_kernel", 0), -1);
    CHECK_EQ_INT(check_find_event(ev, "incomplete_kernel", 0), -1);
    CHECK(check_find_event(ev, "running_kernel", 0) >= 0); /* it began in the session: kept */
    check_scope_kernels(ev, "lost", 2, 1000 + 21000, "lost records");
    CHECK(check_log_has(PROF_E_DROPPED, "without timestamps"));
    CHECK(check_log_has(PROF_E_DROPPED, "cudaDeviceSynchronize"));
    prof_events_free(ev);
    /* CUPTI 13.1 fixed it: nothing is lost */
    fake_cupti_set_version(130100);
    ev = real_session(0, body_lost);
    fake_cupti_set_version(0);
    fake_cupti_lose_kernel_timestamps(0);
    if (!ev) return;
    CHECK_EQ_INT(prof_events_stats(ev).cuda_no_timestamps, 0);
    CHECK(check_find_event(ev, "no_ts_kernel", 0) >= 0);
    prof_events_free(ev);
}

/* After prof_stop (and after prof_shutdown) another CUPTI client can
   subscribe; prof.h works again once it has left. */
static void CUPTIAPI other_client_cb(void *u, CUpti_CallbackDomain d, CUpti_CallbackId c, const void *p) { (void)u; (void)d; (void)c; (void)p; }
static void body_one_launch(void) {
    at(1000);
    {
        PROF_SCOPE("one");
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "one_kernel", T(2000), T(3000));
        at(5000);
    }
}
static void test_other_client_follows(void) {
    CUpti_SubscriberHandle h = NULL;
    prof_events *ev = real_session(0, body_one_launch);
    CHECK(check_find_event(ev, "one_kernel", 0) >= 0);
    prof_events_free(ev);
    CHECK_EQ_INT(cuptiSubscribe(&h, other_client_cb, NULL), CUPTI_SUCCESS);
    CHECK_EQ_INT(cuptiUnsubscribe(h), CUPTI_SUCCESS);
    prof_shutdown();
    CHECK_EQ_INT(cuptiSubscribe(&h, other_client_cb, NULL), CUPTI_SUCCESS);
    CHECK_EQ_INT(cuptiUnsubscribe(h), CUPTI_SUCCESS);
    CHECK_EQ_INT(cuptiFinalize(), CUPTI_SUCCESS);
    ev = real_session(0, body_one_launch);
    CHECK_EQ_INT(check_log_count(PROF_E_CUPTI), 0);
    CHECK(check_find_event(ev, "one_kernel", 0) >= 0);
    check_scope_kernels(ev, "one", 1, 1000, "after another client");
    prof_events_free(ev);
}

/* A peer-to-peer copy (MEMCPY2) between two devices. */
static void body_peer(void) {
    at(1000);
    {
        PROF_SCOPE("peer");
        CUpti_ActivityMemcpyPtoP4 m;
        uint32_t corr = fake_cupti_api_enter(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000);
        fake_cupti_api_exit();
        memset(&m, 0, sizeof m);
        m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
        m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
        m.srcKind = m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
        m.bytes = 8 * MIB;
        m.start = T(3000);
        m.end = T(7000);
        m.deviceId = 0;
        m.contextId = 1;
        m.streamId = 7;
        m.srcDeviceId = 0;
        m.dstDeviceId = 1;
        m.correlationId = corr;
        CHECK_EQ_INT(fake_cupti_queue(&m), 0);
        at(8000);
    }
}
static void test_peer_copy(void) {
    prof_events *ev = real_session(0, body_peer);
    expect x;
    if (!ev) return;
    check_scope_kernels(ev, "peer", 1, 4000, "peer copy");
    CHECK(check_find_event(ev, "Memcpy PtoP (Device -> Device)", 0) >= 0);
    memset(&x, 0, sizeof x);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/cupti/trace_peer.json"), PROF_OK);
    exp_add(&x, 1, "\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy PtoP (Device -> Device)\", \"args.bytes\": 8388608, "
                   "\"args.src device\": 0, \"args.dst device\": 1");
    check_trace("build/cupti/trace_peer.json", &x, "peer copy trace");
    prof_events_free(ev);
}

/* ----- names of any length: kernels (300 and 5000 bytes) and devices
   (600-byte names, 14 more devices than the two of main) survive whole:
   no fixed-size name buffer on the way to the events and the trace. ----- */
static char g_kernel_300[301], g_kernel_5000[5001], g_device_names[14][601];
static void body_long_names(void) {
    uint32_t i;
    at(1000);
    {
        PROF_SCOPE("long_names");
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, g_kernel_300, T(2000), T(3000));
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, g_kernel_5000, T(3000), T(4000));
        for (i = 0; i < 14; i++) {
            CUpti_ActivityDevice5 d = fake_cupti_device(2 + i, g_device_names[i]);
            CHECK_EQ_INT(fake_cupti_queue_device(&d), 0);
        }
        at(6000);
    }
}
static void test_long_names(void) {
    prof_events *ev;
    char *text;
    size_t i, j;
    for (i = 0; i < 300; i++) g_kernel_300[i] = (char)('a' + i % 26);
    g_kernel_300[299] = '!'; /* the end is what a cut would lose */
    for (i = 0; i < 5000; i++) g_kernel_5000[i] = (char)('A' + i % 26);
    g_kernel_5000[4999] = '?';
    for (j = 0; j < 14; j++) {
        for (i = 0; i < 600; i++) g_device_names[j][i] = (char)('a' + (i + j) % 26);
        snprintf(g_device_names[j] + 590, 11, "#device%02zu", j + 2);
    }
    ev = real_session(0, body_long_names);
    if (!ev) return;
    CHECK_MSG(check_find_event(ev, g_kernel_300, 0) >= 0, "a kernel named with 300 bytes is not in the events whole");
    CHECK_MSG(check_find_event(ev, g_kernel_5000, 0) >= 0, "a kernel named with 5000 bytes is not in the events whole");
    check_scope_kernels(ev, "long_names", 2, 2000, "long kernel names");
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/cupti/trace_long_names.json"), PROF_OK);
    text = check_read_file_n("build/cupti/trace_long_names.json", NULL);
    if (CHECK(text != NULL)) {
        char want[700];
        for (j = 0; j < 14; j++) {
            int k = snprintf(want, sizeof want, "\"id\": %zu, \"name\": \"", j + 2);
            memcpy(want + k, g_device_names[j], 600);
            memcpy(want + k + 600, "\"", 2);
            CHECK_MSG(strstr(text, want) != NULL, "deviceProperties: device %zu (a 600-byte name) is missing or cut", j + 2);
        }
        CHECK_MSG(strstr(text, "\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"") != NULL, "deviceProperties: device 0 is gone");
        CHECK(strstr(text, g_kernel_5000) != NULL);
        free(text);
    }
    prof_events_free(ev);
}

static void run_child(const char *what, void (*fn)(void)) {
    pid_t p;
    int status = 0;
    fflush(stdout);
    fflush(stderr);
    p = fork();
    if (p == 0) {
        long f0 = check_failures();
        fn();
        prof_shutdown();
        fflush(stdout);
        fflush(stderr);
        _exit(check_failures() > f0 ? 1 : 0);
    }
    if (!CHECK(p > 0)) return;
    while (waitpid(p, &status, 0) < 0 && errno == EINTR) {}
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (in a child process): checks failed (status 0x%x)", what, status);
}

int main(void) {
    case_file cf;
    unsetenv("FAKE_CUPTI_ENV"); /* these tests pick their environments themselves */
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        vc_set(((int64_t)ts.tv_sec + 1) * 1000000000);
    }
    mkdir("build", 0777);
    mkdir("build/cupti", 0777);
    if (load_case(&cf, "tests/tables/25_cupti_profile.case") != 0 || cf.n == 0) {
        fprintf(stderr, "test_cupti: run from the repository root: cannot read tests/tables/25_cupti_profile.case\n");
        return 1;
    }
    test_cpu_only(1);
    /* each as in a fresh process */
    run_child("no driver", child_no_driver);
    run_child("stub driver", child_stub_driver);
    run_child("another CUPTI subscriber", child_other_subscriber);
    run_child("cuptiActivityEnable fails", child_enable_fails);

    {
        /* two GPUs, dumped by the first cuptiActivityEnableAndDump(DEVICE) */
        CUpti_ActivityDevice5 d0 = fake_cupti_device(0, "NVIDIA H100 80GB HBM3"), d1 = fake_cupti_device(1, "NVIDIA H100 80GB HBM3 \"b\"");
        CHECK_EQ_INT(fake_cupti_add_device(&d0), 0);
        CHECK_EQ_INT(fake_cupti_add_device(&d1), 0);
    }
    test_profile(&cf);
    test_arrival_and_sessions(&cf);
    test_threads();
    test_sync_driver_lanes();
    test_dropped();
    test_slow_start();
    test_real_launches();
    test_lost_and_unfinished();
    test_other_client_follows();
    test_peer_copy();
    test_long_names();
    test_cpu_only(0);
    CHECK_MSG(fake_cupti_misuse_count() == 0, "prof.h used CUPTI in a way the real library does not survive (%zu times; see the "
              "'fake_cupti: misuse' lines)", fake_cupti_misuse_count());
    prof_shutdown();
    free(cf.text);
    return check_report();
}
