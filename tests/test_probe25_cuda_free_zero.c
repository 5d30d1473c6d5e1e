/* A CUDA memory release whose record says 0 bytes. CUPTI's MEMORY2
   record of a release carries the block's size in the CUDA versions
   seen, but a release of 0 bytes must not leave the block allocated
   forever: prof.h matches memory records by address (as PyTorch's memory
   profile does), so the release of a block allocated in the session
   frees the bytes its allocation took, whatever its own record says.
   Here: cudaMalloc of 4 MiB at A, a kernel, then cudaFree of A whose
   record says 0 bytes. Wanted: the trace's last [memory] instant on the
   device has "Total Allocated": 0 and "Bytes": -4194304, and the op that
   freed it shows -4 MiB of CUDA memory. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"
#include "virtual_mono.h"

#include <sys/stat.h>

#define A 0x7f0000100000ull
#define MIB (1024u * 1024u)

static void q_rt(CUpti_CallbackId cbid, int64_t s, int64_t e, uint32_t corr) {
    CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, cbid, T(s), T(e), corr);
    CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
}
static void q_mem(CUpti_ActivityMemoryOperationType op, uint64_t addr, uint64_t bytes, int64_t ts, uint32_t corr) {
    CUpti_ActivityMemory4 m = fake_cupti_memory(op, addr, bytes, T(ts), corr);
    CHECK_EQ_INT(fake_cupti_queue_memory(&m), 0);
}

int main(void) {
    prof_config c;
    prof_events *ev;
    char *text;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    virtual_mono_init();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("alloc_op");
        q_rt(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 1100, 1500, 7);
        q_mem(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, A, 4 * MIB, 1200, 7);
        at(2000);
    }
    at(3000);
    {
        PROF_SCOPE("free_op");
        q_rt(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 3100, 3500, 8);
        q_mem(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, A, 0, 3200, 8);
        at(4000);
    }
    at(5000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    {
        size_t i;
        for (i = 0; i < prof_events_count(ev); i++) {
            prof_event e;
            if (prof_events_get(ev, i, &e) != PROF_OK) continue;
            if (strcmp(e.name, "alloc_op") == 0) CHECK_EQ_INT(e.device_memory_usage, 4 * MIB);
            if (strcmp(e.name, "free_op") == 0) CHECK_MSG(e.device_memory_usage == -(int64_t)(4 * MIB), "free_op's CUDA memory: %lld", (long long)e.device_memory_usage);
        }
    }
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/probe25_cuda_free_zero.json"), PROF_OK);
    text = check_read_file("build/probe25_cuda_free_zero.json");
    if (CHECK(text != NULL)) {
        const char *p = NULL, *q = text;
        while ((q = strstr(q, "\"name\": \"[memory]\"")) != NULL) { p = q; q++; }
        CHECK(p != NULL);
        if (p) {
            CHECK_MSG(strstr(p, "\"Total Allocated\": 0,") != NULL, "the last [memory] instant: %.300s", p);
            CHECK_MSG(strstr(p, "\"Bytes\": -4194304") != NULL, "the last [memory] instant: %.300s", p);
        }
        free(text);
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
