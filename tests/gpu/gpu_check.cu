// gpu_check.cu - tests/gpu/run.sh on a machine with an NVIDIA GPU: known
// work under prof.h scopes in three sessions, checked against what the
// program measured itself (gpu_checks.h, the same checks the fake run
// makes in `make test`), then the cost of a kernel launch with tracing on
// and off.
//
//   gpu_check OUT_DIR   (writes OUT_DIR/trace_sN.json, expect_sN.json)
//
// Launches: spin kernels of set clock counts through <<<>>>,
// cudaLaunchKernel, cudaLaunchKernelExC and cuLaunchKernel, a CUDA graph of
// three kernels, two streams, a second thread; copies of known sizes each
// way and a memset; a cuBLAS GEMM; cudaMalloc, cudaMallocAsync/cudaFreeAsync
// and pinned host memory. Each spin kernel is timed with cudaEvents too.
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

#define SPIN(name) __global__ void name(long long cycles) { \
    long long t0 = clock64(); while (clock64() - t0 < cycles) {} }
SPIN(spin_a) SPIN(spin_b) SPIN(spin_c) SPIN(spin_d) SPIN(spin_s1) SPIN(spin_s2) SPIN(spin_t)
SPIN(graph_k0) SPIN(graph_k1) SPIN(graph_k2)
__global__ void empty_kernel() {}

static int64_t mono() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static long long cycles(const char *name) { return sc_spin_us(name) * g_cycles_per_us; }

// One launch between two events on its stream; the elapsed time goes to
// the session's expectation once the GPU is done.
struct timed { cudaEvent_t a, b; const char *name; };
static timed g_timed[16];
static int g_ntimed;
static void mark_begin(const char *name, cudaStream_t st) {
    timed *t = &g_timed[g_ntimed++];
    t->name = name;
    CK(cudaEventRecord(t->a, st));
}
static void mark_end(cudaStream_t st) { CK(cudaEventRecord(g_timed[g_ntimed - 1].b, st)); }

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
    mark_begin("spin_t", 0);
    spin_t<<<1, 1>>>(c);
    mark_end(0);
    return NULL;
}

static void session_body() {
    long long c;
    void *args[] = { &c };
    pthread_t th;
    { PROF_SCOPE("chevron"); c = cycles("spin_a"); mark_begin("spin_a", 0); spin_a<<<1, 1>>>(c); mark_end(0); }
    {
        PROF_SCOPE("launch_kernel");
        c = cycles("spin_b");
        mark_begin("spin_b", 0);
        CK(cudaLaunchKernel((const void *)spin_b, dim3(1), dim3(1), args, 0, 0));
        mark_end(0);
    }
    {
        PROF_SCOPE("launch_kernel_ex");
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(1);
        cfg.blockDim = dim3(1);
        c = cycles("spin_c");
        mark_begin("spin_c", 0);
        CK(cudaLaunchKernelExC(&cfg, (const void *)spin_c, args));
        mark_end(0);
    }
    {
        PROF_SCOPE("cu_launch");
        cudaFunction_t f;
        CK(cudaGetFuncBySymbol(&f, (const void *)spin_d));
        c = cycles("spin_d");
        mark_begin("spin_d", 0);
        if (cuLaunchKernel((CUfunction)f, 1, 1, 1, 1, 1, 1, 0, 0, args, NULL) != CUDA_SUCCESS) printf("FAIL: cuLaunchKernel\n");
        mark_end(0);
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
        mark_begin("spin_s1", g_s1); spin_s1<<<1, 1, 0, g_s1>>>(c); mark_end(g_s1);
        mark_begin("spin_s2", g_s2); spin_s2<<<1, 1, 0, g_s2>>>(c); mark_end(g_s2);
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

static void launch_cost(void) {
    const int n = 100000;
    prof_config cfg;
    prof_events *ev;
    int64_t t0, off, on, stop;
    size_t i, kernels = 0;
    for (i = 0; i < 1000; i++) empty_kernel<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    t0 = mono();
    for (int k = 0; k < n; k++) empty_kernel<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    off = mono() - t0;
    memset(&cfg, 0, sizeof cfg);
    cfg.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    prof_start(&cfg);
    t0 = mono();
    for (int k = 0; k < n; k++) empty_kernel<<<1, 1>>>();
    CK(cudaDeviceSynchronize());
    on = mono() - t0;
    t0 = mono();
    ev = prof_stop();
    stop = mono() - t0;
    for (i = 0; ev && i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type == PROF_DEVICE_CUDA && gc_name_is(e.name, "empty_kernel")) kernels++;
    }
    gc_result(kernels == (size_t)n && ev && prof_events_stats(ev).dropped == 0, NULL,
              "launch cost: %d empty kernels, %.3f us/launch tracing off, %.3f us/launch tracing on (+%.3f us), prof_stop %.1f ms; %zu kernels recorded, %llu dropped",
              n, off / 1e3 / n, on / 1e3 / n, (on - off) / 1e3 / n, stop / 1e6, kernels, ev ? (unsigned long long)prof_events_stats(ev).dropped : 0ull);
    prof_events_free(ev);
}

int main(int argc, char **argv) {
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
    for (i = 0; i < 16; i++) { CK(cudaEventCreate(&g_timed[i].a)); CK(cudaEventCreate(&g_timed[i].b)); }
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
        graph_k0<<<1, 1, 0, g_s0>>>(c);
        graph_k1<<<1, 1, 0, g_s0>>>(c);
        graph_k2<<<1, 1, 0, g_s0>>>(c);
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
        memset(&cfg, 0, sizeof cfg);
        cfg.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
        cfg.profile_memory = 1;
        sc_expect(&s, i);
        if (!g_sgemm) s.nany = 0;
        g_ntimed = 0;
        t0 = mono();
        if (prof_start(&cfg) != PROF_OK) { printf("FAIL: prof_start\n"); return 1; }
        session_body();
        ev = prof_stop();
        s.length_ns = mono() - t0;
        for (int k = 0; k < g_ntimed; k++) {
            float ms = 0;
            gc_kernel *x = sc_kernel(&s, g_timed[k].name);
            CK(cudaEventElapsedTime(&ms, g_timed[k].a, g_timed[k].b));
            if (x) x->event_ns = (int64_t)(ms * 1e6);
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
    launch_cost();
    {   // another CUPTI client can follow prof.h in this process
        CUpti_SubscriberHandle h;
        gc_result(cuptiSubscribe(&h, (CUpti_CallbackFunc)other_client, NULL) == CUPTI_SUCCESS, NULL, "another CUPTI subscriber after prof_stop");
        cuptiUnsubscribe(h);
    }
    prof_shutdown();
    return gc_report("gpu-check");
}
