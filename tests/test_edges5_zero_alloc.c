/* A CUDA allocation record of 0 bytes (CUPTI's MEMORY2 for a 0-byte
   cudaMalloc / cudaMallocAsync) is no block, as prof_alloc of 0 bytes is
   none on the CPU: prof__cug_memory leaves it out. Kept, it would be a
   memory record of 0 bytes, which prof__cug_release_sizes takes for a
   release of unknown size: at an address still live it would free that
   block. Checked: the list holds the one real allocation (4096 bytes) and
   the op's device memory is 4096. (Mutation pass: `&& m->bytes` in the
   allocation test could go without a test failing.) */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"

int main(void) {
    prof_config c;
    prof_events *ev;
    size_t i, cuda_records = 0;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.profile_memory = 1;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("op");
        CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, T(1100), T(1200), 51);
        CUpti_ActivityMemory4 m = fake_cupti_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x7000, 4096, T(1150), 51);
        CUpti_ActivityAPI z = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, T(1300), T(1400), 52);
        CUpti_ActivityMemory4 zm = fake_cupti_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x7000, 0, T(1350), 52);
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        CHECK_EQ_INT(fake_cupti_queue_memory(&m), 0);
        CHECK_EQ_INT(fake_cupti_queue_api(&z), 0);
        CHECK_EQ_INT(fake_cupti_queue_memory(&zm), 0); /* 0 bytes, at the live block's address */
        at(2000);
    }
    at(3000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    for (i = 0; i < ev->nmem; i++) cuda_records += ev->mem[i].device_type == PROF_DEVICE_CUDA;
    CHECK_EQ_INT(cuda_records, 1);
    CHECK_EQ_INT(check_event_named(ev, "op").device_memory_usage, 4096);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
