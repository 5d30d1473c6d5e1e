/* GPU work of a CUDA call that Kineto's filter leaves out (a driver-API
   cuMemcpyHtoD_v2) belongs to the scope open at the middle of the call
   (prof__cu_owner: start + (end - start) / 2, rounded down), the same
   rule as for a kept call; prof__cu_hide keeps the call's start and end
   for it. Here scope s1 ends at 1050 and s2 begins at 1051; the call
   spans [1000, 1101] (middle 1050.5, rounded down to 1050): s1 owns the
   copy; a second call over [1001, 1101] (middle 1051) is s2's: a scope
   is open at the instant it begins and at the instant it ends (boundaries
   prof__cu_open_at includes). And a CUDA call that took 0 ns (start == end, as a coarse clock
   gives) is an event like any other. (Mutation pass: the hidden call's
   end stored as its start, or its start and end swapped, and `a->end <
   a->start` made `<=`, and either bound of prof__cu_open_at made strict,
   each went unnoticed.) */
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
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("s1");
        at(1050);
    }
    at(1051);
    {
        PROF_SCOPE("s2");
        at(1300);
    }
    {
        CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, T(1000), T(1101), 41);
        CUpti_ActivityMemcpy6 m = fake_cupti_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, T(1400), T(1500), 41);
        CUpti_ActivityAPI q = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020, T(1200), T(1200), 42);
        /* a second one over [1001, 1101]: its middle, 1051, is when s2 begins: s2's */
        CUpti_ActivityAPI b = fake_cupti_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, T(1001), T(1101), 43);
        CUpti_ActivityMemcpy6 n = fake_cupti_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, T(1600), T(1630), 43);
        m.runtimeCorrelationId = 0; /* no runtime call around it */
        n.runtimeCorrelationId = 0;
        CHECK_EQ_INT(fake_cupti_queue_api(&b), 0);
        CHECK_EQ_INT(fake_cupti_queue_memcpy(&n), 0);
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        CHECK_EQ_INT(fake_cupti_queue_memcpy(&m), 0);
        CHECK_EQ_INT(fake_cupti_queue_api(&q), 0);
    }
    at(2000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    {
        prof_event s1 = check_event_named(ev, "s1"), s2 = check_event_named(ev, "s2"), q = check_event_named(ev, "cudaStreamQuery");
        CHECK_EQ_INT(s1.end_ns, 1050);
        CHECK_EQ_INT(s2.start_ns, 1051);
        CHECK_MSG(s1.n_kernels == 1 && s1.device_time_total_ns == 100, "s1 (open at the call's middle) owns %zu kernels, %lld ns; s2 %zu",
                  s1.n_kernels, (long long)s1.device_time_total_ns, s2.n_kernels);
        CHECK_MSG(s2.n_kernels == 1 && s2.device_time_total_ns == 30, "s2 (begun at the second call's middle) owns %zu kernels, %lld ns",
                  s2.n_kernels, (long long)s2.device_time_total_ns);
        CHECK_EQ_INT(q.start_ns, 1200);
        CHECK_EQ_INT(q.end_ns, 1200);
        CHECK(q.parent >= 0); /* inside s2 [1051, 1300] */
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
