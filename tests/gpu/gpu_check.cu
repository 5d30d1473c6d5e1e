// gpu_check.cu - tests/gpu/run.sh on a machine with an NVIDIA GPU: known
// work under prof.h scopes in three sessions, checked against what the
// program measured itself (gpu_checks.h, the same checks the fake run
// makes in `make test`), then 100k-kernel sessions (all recorded?).
//
//   gpu_check OUT_DIR            (writes OUT_DIR/trace_sN.json, expect_sN.json)
//   gpu_check --cost off|bare|prof   one fresh process's cost of a launch:
//                                untraced, bare CUPTI (the floor), prof.h
//
// Launches: spin kernels of set clock counts through <<<>>>,
// cudaLaunchKernel, cudaLaunchKernelExC and cuLaunchKernel, a CUDA graph of
// three kernels, two streams, a second thread; copies of known sizes each
// way and a memset; a cuBLAS GEMM; cudaMalloc, cudaMallocAsync/cudaFreeAsync
// and pinned host memory. Each spin kernel times itself with the GPU's
// %globaltimer (what CUPTI's kernel records are stamped with): events
// recorded around a launch would also count the launch's own CPU time,
// which on an idle stream, a new thread or the first launch under CUPTI is
// tens to hundreds of microseconds.
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "scenario.h"

#include <cublas_v2.h> /* types only: cuBLAS is loaded at run time, if the machine has it */
#include <cuda.h>
#include <dlfcn.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("FAIL: %s: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); exit(2); } } while (0)

static long long g_cycles_per_us;

__device__ unsigned long long g_spin_ns[16]; // each timed launch's own duration
__device__ __forceinline__ unsigned long long globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#define SPIN(name) __global__ void name(long long cycles, int slot) { \
    unsigned long long g0 = globaltimer(); long long t0 = clock64(); \
    while (clock64() - t0 < cycles) {} \
    if (slot >= 0) g_spin_ns[slot] = globaltimer() - g0; }
SPIN(spin_a) SPIN(spin_b) SPIN(spin_c) SPIN(spin_d) SPIN(spin_s1) SPIN(spin_s2) SPIN(spin_t)
SPIN(graph_k0) SPIN(graph_k1) SPIN(graph_k2)
__global__ void empty_kernel() {}

static int64_t mono() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static prof_config cuda_config(void) { // CPU and CUDA, the rest default
    prof_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    return cfg;
}
static long long cycles(const char *name) { return sc_spin_us(name) * g_cycles_per_us; }

// The slot of g_spin_ns a timed launch writes; read back after prof_stop
// (a copy inside the session would be one more GPU event).
static const char *g_timed[16];
static int g_ntimed;
static int timed_slot(const char *name) { g_timed[g_ntimed] = name; return g_ntimed++; }

static cudaStream_t g_s0, g_s1, g_s2;
static cudaGraphExec_t g_graph;
static cublasHandle_t g_blas;
typedef cublasStatus_t (*cublas_create_fn)(cublasHandle_t *);
typedef cublasStatus_t (*cublas_sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *,
                                          const float *, int, const float *, int, const float *, float *, int);
static cublas_sgemm_fn g_sgemm;
static float *g_ga, *g_gb, *g_gc;
static char *g_dev, *g_dev2, *g_host;

static void *second_thread(void *) {
    PROF_SCOPE("thread");
    long long c = cycles("spin_t");
    spin_t<<<1, 1>>>(c, timed_slot("spin_t"));
    return NULL;
}

static void session_body() {
    long long c;
    int slot;
    void *args[] = { &c, &slot };
    pthread_t th;
    { PROF_SCOPE("chevron"); c = cycles("spin_a"); spin_a<<<1, 1>>>(c, timed_slot("spin_a")); }
    {
        PROF_SCOPE("launch_kernel");
        c = cycles("spin_b");
        slot = timed_slot("spin_b");
        CK(cudaLaunchKernel((const void *)spin_b, dim3(1), dim3(1), args, 0, 0));
    }
    {
        PROF_SCOPE("launch_kernel_ex");
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(1);
        cfg.blockDim = dim3(1);
        c = cycles("spin_c");
        slot = timed_slot("spin_c");
        CK(cudaLaunchKernelExC(&cfg, (const void *)spin_c, args));
    }
    {
        PROF_SCOPE("cu_launch");
        cudaFunction_t f;
        CK(cudaGetFuncBySymbol(&f, (const void *)spin_d));
        c = cycles("spin_d");
        slot = timed_slot("spin_d");
        if (cuLaunchKernel((CUfunction)f, 1, 1, 1, 1, 1, 1, 0, 0, args, NULL) != CUDA_SUCCESS) printf("FAIL: cuLaunchKernel\n");
    }
    { PROF_SCOPE("graph"); CK(cudaGraphLaunch(g_graph, g_s0)); }
    {
        PROF_SCOPE("copies");
        CK(cudaMemcpy(g_dev, g_host, SC_MIB, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(g_host, g_dev, SC_MIB, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(g_dev2, g_dev, 2 * SC_MIB, cudaMemcpyDeviceToDevice));
        CK(cudaMemset(g_dev, 0, 4 * SC_MIB));
    }
    {
        PROF_SCOPE("streams");
        c = cycles("spin_s1");
        spin_s1<<<1, 1, 0, g_s1>>>(c, timed_slot("spin_s1"));
        spin_s2<<<1, 1, 0, g_s2>>>(c, timed_slot("spin_s2"));
    }
    {
        PROF_SCOPE("gemm");
        const float one = 1.0f, zero = 0.0f;
        if (g_sgemm) g_sgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, 512, 512, 512, &one, g_ga, 512, g_gb, 512, &zero, g_gc, 512);
    }
    {
        PROF_SCOPE("async_mem");
        void *p = NULL;
        CK(cudaMallocAsync(&p, 8 * SC_MIB, g_s0));
        CK(cudaFreeAsync(p, g_s0));
        CK(cudaStreamSynchronize(g_s0));
    }
    void *big = NULL, *pinned = NULL;
    { PROF_SCOPE("alloc"); CK(cudaMalloc(&big, 16 * SC_MIB)); }
    { PROF_SCOPE("pinned"); CK(cudaMallocHost(&pinned, 4 * SC_MIB)); }
    pthread_create(&th, NULL, second_thread, NULL);
    pthread_join(th, NULL);
    CK(cudaDeviceSynchronize()); // every kernel done before prof_stop
    CK(cudaFree(big));
    CK(cudaFreeHost(pinned));
}

// CUPTI's id of a stream (what its records carry), -1 if unknown.
static int64_t cupti_stream(cudaStream_t s) {
    CUcontext ctx = NULL;
    uint32_t id = 0;
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || cuptiGetStreamIdEx(ctx, (CUstream)s, 0, &id) != CUPTI_SUCCESS) return -1;
    return id;
}

static void CUPTIAPI other_client(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

// The cost of a launch. In this process (after the sessions): LC_N empty
// kernels under prof.h, LC_RUNS times, all recorded, and prof_stop's time.
// The figures come from fresh processes (`gpu_check --cost MODE`, run.sh
// alternates them): once CUPTI has been used, a process's untraced
// launches stay slower, so only a fresh one gives a fair floor.
#define LC_N 100000
#define LC_RUNS 5
static int64_t launches(void) {
    int64_t t0 = mono();
    for (int k = 0; k < LC_N; k++) empty_kernel<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    return mono() - t0;
}
static size_t empty_kernels(prof_events *ev) { // the empty_kernel launches recorded
    size_t i, n = 0;
    for (i = 0; ev && i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type == PROF_DEVICE_CUDA && gc_name_is(e.name, "empty_kernel")) n++;
    }
    return n;
}

static void launch_cost_prof(void) {
    int64_t stop[LC_RUNS];
    size_t kernels = 0;
    unsigned long long dropped = 0;
    int r;
    for (r = 0; r < LC_RUNS; r++) {
        prof_config cfg = cuda_config();
        prof_events *ev;
        int64_t t0;
        prof_start(&cfg);
        launches();
        t0 = mono();
        ev = prof_stop();
        stop[r] = mono() - t0;
        kernels = empty_kernels(ev);
        dropped += ev ? prof_events_stats(ev).dropped : 1;
        prof_events_free(ev);
        if (kernels != LC_N) break;
    }
    int runs = r < LC_RUNS ? r + 1 : LC_RUNS; // the runs that set a time
    for (int i = 1; i < runs; i++) // the median of prof_stop's times
        for (int j = i; j > 0 && stop[j] < stop[j - 1]; j--) { int64_t t = stop[j]; stop[j] = stop[j - 1]; stop[j - 1] = t; }
    gc_result(r == LC_RUNS && kernels == LC_N && dropped == 0, NULL,
              "%d sessions of %d empty kernels: %d ran, all recorded (%zu in the last), %llu dropped; prof_stop %.1f ms (median)",
              LC_RUNS, LC_N, runs, kernels, dropped, stop[runs / 2] / 1e6);
}

// Launches from many threads: TC_THREADS that exit before prof_stop and
// TC_THREADS of a pool still waiting at it, each launching TC_N kernels,
// each in its own scope. CUDA 13 gives each thread a CUPTI buffer of its
// own; every kernel must come back, in the scope that launched it.
#define TC_THREADS 16
#define TC_N 500
static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_pool_cond = PTHREAD_COND_INITIALIZER;
static int g_pool_done, g_pool_launched;
static void launch_many(void) {
    for (int i = 0; i < TC_N; i++) {
        PROF_SCOPE("launch");
        empty_kernel<<<1, 1>>>();
    }
}
static void *launcher(void *arg) {
    int pool = arg != NULL;
    if (pool) {
        PROF_SCOPE("pool_worker");
        launch_many();
    } else {
        PROF_SCOPE("short_worker");
        launch_many();
    }
    CK(cudaStreamSynchronize(0));
    if (pool) { // wait, alive, until prof_stop has returned
        pthread_mutex_lock(&g_pool_lock);
        g_pool_launched++;
        pthread_cond_broadcast(&g_pool_cond);
        while (!g_pool_done) pthread_cond_wait(&g_pool_cond, &g_pool_lock);
        pthread_mutex_unlock(&g_pool_lock);
    }
    return NULL;
}
static void thread_launches(void) {
    pthread_t shortt[TC_THREADS], pool[TC_THREADS];
    prof_config cfg;
    prof_events *ev;
    size_t i, n, kernels, launches = 0, owned = 0, workers = 0;
    cfg = cuda_config();
    prof_start(&cfg);
    int nshort = 0, npool = 0;
    for (int t = 0; t < TC_THREADS; t++) { // (counts of the threads that started)
        nshort += pthread_create(&shortt[nshort], NULL, launcher, NULL) == 0;
        npool += pthread_create(&pool[npool], NULL, launcher, (void *)1) == 0;
    }
    for (int t = 0; t < nshort; t++) pthread_join(shortt[t], NULL);
    pthread_mutex_lock(&g_pool_lock);
    while (g_pool_launched < npool) pthread_cond_wait(&g_pool_cond, &g_pool_lock);
    pthread_mutex_unlock(&g_pool_lock);
    CK(cudaDeviceSynchronize());
    ev = prof_stop();
    pthread_mutex_lock(&g_pool_lock);
    g_pool_done = 1;
    pthread_cond_broadcast(&g_pool_cond);
    pthread_mutex_unlock(&g_pool_lock);
    for (int t = 0; t < npool; t++) pthread_join(pool[t], NULL);
    n = ev ? prof_events_count(ev) : 0;
    kernels = empty_kernels(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK) continue;
        if (e.device_type == PROF_DEVICE_CPU && !strcmp(e.name, "launch")) {
            launches++;
            owned += e.n_kernels == 1 && e.self_device_time_total_ns > 0;
        }
        if (e.device_type == PROF_DEVICE_CPU && (!strcmp(e.name, "short_worker") || !strcmp(e.name, "pool_worker"))) workers++;
    }
    gc_result(ev && nshort == TC_THREADS && npool == TC_THREADS && kernels == 2 * TC_THREADS * TC_N && launches == kernels && owned == kernels &&
              workers == 2 * TC_THREADS &&
              prof_events_stats(ev).dropped == 0, NULL,
              "%d threads that exit before prof_stop and %d alive at it, %d launches each: %zu kernels, %zu launch scopes, %zu owning "
              "exactly their kernel, %zu workers, %llu dropped",
              TC_THREADS, TC_THREADS, TC_N, kernels, launches, owned, workers, ev ? (unsigned long long)prof_events_stats(ev).dropped : 0ull);
    prof_events_free(ev);
}

// Bare CUPTI: the record kinds and clock prof.h asks for, buffers only
// counted and freed: the floor any tracer built on CUPTI's records pays.
// Variants that take one of prof.h's choices at a time, to see what its
// added cost is made of: bare-tid (system thread ids), bare-sub (a callback
// subscriber, no domain enabled), bare-keep (1 MiB buffers kept to the
// end, each one fresh memory).
static size_t g_bare_records;
static int g_bare_keep;
static uint8_t **g_kept;
static size_t g_nkept;
static void CUPTIAPI bare_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *size = g_bare_keep ? (size_t)1 << 20 : (size_t)8 << 20;
    *buffer = (uint8_t *)malloc(*size);
    *max_records = 0;
}
static void CUPTIAPI bare_completed(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t valid) {
    CUpti_Activity *r = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) g_bare_records++;
    if (g_bare_keep && (g_nkept & (g_nkept + 1)) == 0) g_kept = (uint8_t **)realloc(g_kept, (2 * g_nkept + 1) * sizeof *g_kept);
    if (g_bare_keep && g_kept) g_kept[g_nkept++] = buffer;
    else free(buffer);
}
static void CUPTIAPI bare_callback(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}
static uint64_t CUPTIAPI bare_clock(void) { return (uint64_t)mono(); }

// gpu_check --cost off|bare|prof: one fresh process's launch cost, as
// "cost MODE NS_PER_LAUNCH RECORDS" (bare: CUPTI's records; prof: the
// kernels prof.h recorded).
static int cost_main(const char *mode) {
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_MEMORY2};
    size_t k, records = 0;
    int64_t t;
    CK(cudaSetDevice(0));
    for (int i = 0; i < 1000; i++) empty_kernel<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    if (!strcmp(mode, "off")) {
        t = launches();
    } else if (!strncmp(mode, "bare", 4)) {
        CUpti_SubscriberHandle h;
        g_bare_keep = !strcmp(mode, "bare-keep");
        if (!strcmp(mode, "bare-tid") && cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) != CUPTI_SUCCESS) return 1;
        if (!strcmp(mode, "bare-sub") && cuptiSubscribe(&h, (CUpti_CallbackFunc)bare_callback, NULL) != CUPTI_SUCCESS) return 1;
        if (cuptiActivityRegisterCallbacks(bare_requested, bare_completed) != CUPTI_SUCCESS ||
            cuptiActivityRegisterTimestampCallback(bare_clock) != CUPTI_SUCCESS) { printf("FAIL: bare CUPTI refused\n"); return 1; }
        for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            if (cuptiActivityEnable(kinds[k]) != CUPTI_SUCCESS) { printf("FAIL: bare CUPTI: kind %d refused\n", (int)kinds[k]); return 1; }
        t = launches();
        cuptiActivityFlushAll(1);
        records = g_bare_records;
    } else if (!strcmp(mode, "prof")) {
        prof_config cfg = cuda_config();
        prof_events *ev;
        if (prof_start(&cfg) != PROF_OK) { printf("FAIL: prof_start\n"); return 1; }
        t = launches();
        ev = prof_stop();
        records = empty_kernels(ev);
        prof_events_free(ev);
        prof_shutdown();
        if (records != LC_N) printf("FAIL: --cost prof: %zu of %d kernels recorded\n", records, LC_N);
    } else {
        printf("FAIL: --cost off|bare|prof\n");
        return 2;
    }
    printf("cost %s %.1f %zu\n", mode, (double)t / LC_N, records);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--cost")) return cost_main(argc > 2 ? argv[2] : "");
    const char *out = argc > 1 ? argv[1] : ".";
    int clock_khz = 0, dev = 0, i;
    int64_t legacy, s1, s2;
    cudaDeviceProp prop;
    cudaGraph_t graph;
    char path[512];
    CK(cudaSetDevice(0));
    CK(cudaGetDeviceProperties(&prop, dev));
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    g_cycles_per_us = clock_khz / 1000;
    {
        int drv = 0, rt = 0;
        uint32_t cupti = 0;
        cudaDriverGetVersion(&drv);
        cudaRuntimeGetVersion(&rt);
        cuptiGetVersion(&cupti);
        printf("info: GPU %s (cc %d.%d, %d SMs, %d MHz), driver CUDA %d.%d, runtime %d.%d, CUPTI API %u\n", prop.name, prop.major, prop.minor,
               prop.multiProcessorCount, clock_khz / 1000, drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10, cupti);
    }
    // everything the sessions use exists before the first one
    CK(cudaStreamCreateWithFlags(&g_s0, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&g_s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&g_s2, cudaStreamNonBlocking));
    CK(cudaMalloc(&g_dev, 4 * SC_MIB));
    CK(cudaMalloc(&g_dev2, 4 * SC_MIB));
    g_host = (char *)malloc(4 * SC_MIB);
    memset(g_host, 1, 4 * SC_MIB);
    CK(cudaMalloc(&g_ga, 512 * 512 * 4));
    CK(cudaMalloc(&g_gb, 512 * 512 * 4));
    CK(cudaMalloc(&g_gc, 512 * 512 * 4));
    {   // cuBLAS from the machine's toolkit (too big to carry along): the GEMM is skipped without it
        void *lib = dlopen("libcublas.so.13", RTLD_NOW);
        cublas_create_fn create;
        if (!lib) lib = dlopen("libcublas.so.12", RTLD_NOW);
        if (!lib) lib = dlopen("libcublas.so", RTLD_NOW);
        create = lib ? (cublas_create_fn)dlsym(lib, "cublasCreate_v2") : NULL;
        g_sgemm = lib ? (cublas_sgemm_fn)dlsym(lib, "cublasSgemm_v2") : NULL;
        if (!create || !g_sgemm || create(&g_blas) != CUBLAS_STATUS_SUCCESS) {
            g_sgemm = NULL;
            printf("skip: no cuBLAS on this machine (libcublas.so.13/.12): the GEMM is not checked\n");
        }
    }
    CK(cudaStreamBeginCapture(g_s0, cudaStreamCaptureModeGlobal));
    {
        long long c = cycles("graph_k0");
        graph_k0<<<1, 1, 0, g_s0>>>(c, -1);
        graph_k1<<<1, 1, 0, g_s0>>>(c, -1);
        graph_k2<<<1, 1, 0, g_s0>>>(c, -1);
    }
    CK(cudaStreamEndCapture(g_s0, &graph));
    CK(cudaGraphInstantiate(&g_graph, graph, 0));
    CK(cudaDeviceSynchronize());
    // CUPTI's ids of the streams, asked before prof.h takes CUPTI (-1: not checked)
    legacy = cupti_stream(0);
    s1 = cupti_stream(g_s1);
    s2 = cupti_stream(g_s2);
    printf("info: CUPTI stream ids: legacy %lld, s1 %lld, s2 %lld\n", (long long)legacy, (long long)s1, (long long)s2);

    for (i = 1; i <= SC_SESSIONS; i++) {
        prof_config cfg;
        prof_events *ev;
        gc_session s;
        int64_t t0;
        cfg = cuda_config();
        cfg.profile_memory = 1;
        sc_expect(&s, i);
        if (!g_sgemm) s.nany = 0;
        g_ntimed = 0;
        t0 = mono();
        if (prof_start(&cfg) != PROF_OK) { printf("FAIL: prof_start\n"); return 1; }
        session_body();
        ev = prof_stop();
        s.length_ns = mono() - t0;
        {
            unsigned long long own[16];
            CK(cudaMemcpyFromSymbol(own, g_spin_ns, sizeof own));
            for (int k = 0; k < g_ntimed; k++) {
                gc_kernel *x = sc_kernel(&s, g_timed[k]);
                if (x) x->own_ns = (int64_t)own[k];
            }
        }
        {
            for (int k = 0; k < s.nkernels; k++) {
                gc_kernel *x = &s.kernels[k];
                x->stream = !strcmp(x->name, "spin_s1") ? s1 : !strcmp(x->name, "spin_s2") ? s2 : strncmp(x->name, "graph", 5) ? legacy : -1;
            }
        }
        gc_check_session(ev, &s);
        snprintf(path, sizeof path, "%s/trace_s%d.json", out, i);
        gc_result(ev && prof_export_chrome_trace(ev, path) == PROF_OK, &s, "trace written: %s", path);
        snprintf(path, sizeof path, "%s/expect_s%d.json", out, i);
        gc_result(gc_write_expect(&s, path) == 0, &s, "expectations written: %s", path);
        if (i == 1 && ev) {
            char *t = prof_events_table(ev, NULL);
            if (t) printf("%s\n", t);
            prof_free_string(t);
        }
        prof_events_free(ev);
    }
    launch_cost_prof();
    thread_launches();
    {   // another CUPTI client can follow prof.h in this process
        CUpti_SubscriberHandle h;
        gc_result(cuptiSubscribe(&h, (CUpti_CallbackFunc)other_client, NULL) == CUPTI_SUCCESS, NULL, "another CUPTI subscriber after prof_stop");
        cuptiUnsubscribe(h);
    }
    prof_shutdown();
    return gc_report("gpu-check");
}
