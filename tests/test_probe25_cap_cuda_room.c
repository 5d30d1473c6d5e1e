/* max_events and CUDA: the room CUDA's records get ignored the CPU
   allocations (and marks, counter samples) the session holds, which count
   as events under the cap (manual): with max_events 12, 6 allocations and
   a scope, 5 launches with their kernels were all kept. Wanted: the list's
   events and allocations together within max_events, the launches past the
   room dropped with their kernels and counted. (Found in review.) */
#define clock_gettime test_clock_gettime
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
    prof_stats st;
    int i;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.max_events = 12;
    c.profile_memory = 1;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(11000);
    {
        PROF_SCOPE("a");
        for (i = 0; i < 6; i++) prof_alloc((void *)(uintptr_t)(0x1000 + 16 * i), 16);
        for (i = 0; i < 5; i++) {
            CUpti_ActivityAPI l = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                                 T(11100 + 100 * i), T(11150 + 100 * i), 11 + i);
            CUpti_ActivityKernel10 k = fake_cupti_kernel("k", T(20000 + 1000 * i), T(20050 + 1000 * i), 11 + i);
            CHECK_EQ_INT(fake_cupti_queue_api(&l), 0);
            CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        }
        at(40000);
    }
    at(41000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_MSG(prof_events_count(ev) + st.allocs <= c.max_events, "list holds %zu events + %llu allocations, over max_events %zu",
              prof_events_count(ev), (unsigned long long)st.allocs, c.max_events);
    CHECK(st.dropped > 0);
    CHECK(check_log_has(PROF_E_DROPPED, "dropped at the cap of 12 events"));
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
