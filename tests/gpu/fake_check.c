/* fake_check.c - tests/gpu/run.sh without a GPU: the scenario of
   gpu_check.cu played on the fake CUPTI (tests/fake_cupti) the way CUDA 13
   records it (per-thread buffers completed mid-session, times from prof.h's
   timestamp callback, <<<>>> through __cudaLaunchKernel, copies with a
   driver and a runtime correlation id, a graph's kernels sharing one id,
   memory of each kind), checked by the same code as on a GPU
   (gpu_checks.h), in three sessions.

   fake_check OUT_DIR: writes OUT_DIR/trace_sN.json and expect_sN.json for
   check_trace.py; exit 0 when every check passed. */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "scenario.h"
#include "fake_cupti_control.h"

#include <pthread.h>
#include <time.h>

static int64_t mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The fake GPU: kernels run one after another from 20 us after launch. */
static uint64_t gpu_free;
static uint64_t gpu_slot(int64_t us) {
    uint64_t now = fake_cupti_now() + 20000, s = gpu_free > now ? gpu_free : now;
    gpu_free = s + (uint64_t)us * 1000;
    return s;
}
static void gpu_sync(void) {
    while (fake_cupti_now() < gpu_free + 1000) {}
}

static void launch(int how, const char *name) {
    int64_t us = sc_spin_us(name);
    uint64_t s = gpu_slot(us);
    fake_cupti_launch(how, name, s, s + (uint64_t)us * 1000);
}
static void launch_on(const char *name, uint32_t stream) {
    int64_t us = sc_spin_us(name);
    uint64_t s = gpu_slot(us);
    uint32_t corr = fake_cupti_api_enter(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    CUpti_ActivityKernel10 k;
    fake_cupti_api_exit();
    k = fake_cupti_kernel(name, s, s + (uint64_t)us * 1000, corr);
    k.streamId = stream;
    fake_cupti_queue_kernel(&k);
}

static void *second_thread(void *p) {
    (void)p;
    {
        PROF_SCOPE("thread");
        launch(FAKE_CUPTI_LAUNCH_RUNTIME, "spin_t");
    }
    return NULL;
}

static void session_body(void) {
    static const char *const graph[] = { "graph_k0", "graph_k1", "graph_k2" };
    pthread_t th;
    { PROF_SCOPE("chevron"); launch(FAKE_CUPTI_LAUNCH_CHEVRON, "spin_a"); }
    { PROF_SCOPE("launch_kernel"); launch(FAKE_CUPTI_LAUNCH_RUNTIME, "spin_b"); }
    { PROF_SCOPE("launch_kernel_ex"); launch(FAKE_CUPTI_LAUNCH_RUNTIME_EX, "spin_c"); }
    { PROF_SCOPE("cu_launch"); launch(FAKE_CUPTI_LAUNCH_DRIVER, "spin_d"); }
    {
        PROF_SCOPE("graph");
        uint64_t s = gpu_slot(3 * sc_spin_us("graph_k0"));
        fake_cupti_graph_launch(3, graph, 3, s, (uint64_t)sc_spin_us("graph_k0") * 1000, (uint64_t)sc_spin_us("graph_k0") * 1000);
    }
    {
        PROF_SCOPE("copies");
        uint64_t s = gpu_slot(30);
        uint32_t corr;
        CUpti_ActivityMemset4 ms;
        fake_cupti_memcpy_call(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, SC_MIB, s, s + 10000);
        fake_cupti_memcpy_call(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, SC_MIB, s + 10000, s + 20000);
        fake_cupti_memcpy_call(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 2 * SC_MIB, s + 20000, s + 25000);
        corr = fake_cupti_api_enter(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020);
        fake_cupti_api_exit();
        ms = fake_cupti_memset(4 * SC_MIB, 0, s + 25000, s + 30000, corr);
        fake_cupti_queue_memset(&ms);
    }
    { PROF_SCOPE("streams"); launch_on("spin_s1", 13); launch_on("spin_s2", 14); }
    { PROF_SCOPE("gemm"); launch(FAKE_CUPTI_LAUNCH_RUNTIME, "sgemm_fake_kernel"); }
    {
        PROF_SCOPE("async_mem");
        fake_cupti_malloc_call(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0x7f0000000000ull, 8 * SC_MIB, 0);
        fake_cupti_malloc_call(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0x7f0000000000ull, 8 * SC_MIB, 1);
    }
    { PROF_SCOPE("alloc"); fake_cupti_malloc_call(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0x7f1000000000ull, 16 * SC_MIB, 0); }
    { PROF_SCOPE("pinned"); fake_cupti_malloc_call(CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 0x7f2000000000ull, 4 * SC_MIB, 0); }
    pthread_create(&th, NULL, second_thread, NULL);
    pthread_join(th, NULL);
    fake_cupti_malloc_call(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 0x7f1000000000ull, 16 * SC_MIB, 1);
    fake_cupti_malloc_call(CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 0x7f2000000000ull, 4 * SC_MIB, 1);
    gpu_sync(); /* cudaDeviceSynchronize */
}

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : ".";
    fake_cupti_delivery d;
    int i;
    fake_cupti_reset();
    memset(&d, 0, sizeof d);
    d.per_thread_buffers = 1;
    d.records_per_buffer = 8;
    fake_cupti_set_delivery(&d);
    printf("fake-check: the GPU scenario on the fake CUPTI (no GPU)\n");
    for (i = 1; i <= SC_SESSIONS; i++) {
        prof_config c;
        prof_events *ev;
        gc_session s;
        int64_t t0, k;
        char path[512];
        memset(&c, 0, sizeof c);
        c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
        c.profile_memory = 1;
        sc_expect(&s, i);
        for (k = 0; k < s.nkernels; k++) {
            s.kernels[k].own_ns = sc_spin_us(s.kernels[k].name) * 1000; /* what the kernel would time itself */
            s.kernels[k].stream = !strcmp(s.kernels[k].name, "spin_s1") ? 13 : !strcmp(s.kernels[k].name, "spin_s2") ? 14 : 7;
        }
        t0 = mono();
        if (prof_start(&c) != PROF_OK) { printf("FAIL: prof_start\n"); return 1; }
        session_body();
        ev = prof_stop();
        s.length_ns = mono() - t0;
        gc_check_session(ev, &s);
        snprintf(path, sizeof path, "%s/trace_s%d.json", out, i);
        gc_result(ev && prof_export_chrome_trace(ev, path) == PROF_OK, &s, "trace written: %s", path);
        snprintf(path, sizeof path, "%s/expect_s%d.json", out, i);
        gc_result(gc_write_expect(&s, path) == 0, &s, "expectations written: %s", path);
        prof_events_free(ev);
    }
    printf("info: launch cost with tracing on/off: measured on a GPU only\n");
    prof_shutdown();
    return gc_report("fake-check");
}
