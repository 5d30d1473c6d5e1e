/* The session's window on CUPTI's clock is closed at both ends
   (prof__cu_span_ok, prof__cug_in): GPU work and CUDA calls that begin
   exactly at prof_start's origin or exactly at prof_stop's time are the
   session's, and work that ends exactly at prof_stop is finished (not
   counted in prof_stats.cuda_unfinished). Only work that begins after
   the stop is left out (counted as unfinished), and work that ends after
   it is kept and counted. (Mutation pass: each of these comparisons
   could be made strict, or not strict, without a test failing.) */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"


static void queue_kernel(const char *name, int64_t t0, int64_t t1, uint32_t corr) {
    CUpti_ActivityKernel10 k = fake_cupti_kernel(name, T(t0), T(t1), corr);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
}
static void queue_call(int64_t t0, int64_t t1, uint32_t corr) {
    CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020, T(t0), T(t1), corr);
    CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
}

int main(void) {
    prof_config c;
    prof_events *ev;
    prof_stats st;
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
        PROF_SCOPE("op");
        at(2000);
    }
    queue_kernel("k_at_start", 0, 100, 101);      /* begins at the origin: kept */
    queue_kernel("k_ends_at_stop", 5000, 6000, 102); /* ends at the stop: kept, finished */
    queue_kernel("k_at_stop", 6000, 6100, 103);   /* begins at the stop: kept, unfinished */
    queue_kernel("k_after_stop", 6001, 6100, 104); /* begins after it: left out, unfinished */
    queue_call(0, 50, 105);                        /* a call at the origin: kept */
    queue_call(6000, 6050, 106);                   /* a call at the stop: kept */
    queue_call(6001, 6050, 107);                   /* after it: left out */
    at(6000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK(check_find_event(ev, "k_at_start", 0) >= 0); /* (a missing event reads start 0) */
    CHECK_EQ_INT(check_event_named(ev, "k_at_start").start_ns, 0);
    CHECK_EQ_INT(check_event_named(ev, "k_ends_at_stop").end_ns, 6000);
    CHECK_EQ_INT(check_event_named(ev, "k_at_stop").start_ns, 6000);
    CHECK_EQ_INT(check_find_event(ev, "k_after_stop", 0), -1);
    {
        size_t i, n = prof_events_count(ev), calls = 0;
        for (i = 0; i < n; i++) {
            prof_event e;
            if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, "cudaStreamQuery") == 0) {
                calls++;
                CHECK(e.start_ns == 0 || e.start_ns == 6000);
            }
        }
        CHECK_EQ_INT(calls, 2);
    }
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.cuda_unfinished, 2); /* k_at_stop (kept) and k_after_stop (left out); not k_ends_at_stop */
    CHECK_EQ_INT(st.cuda_no_timestamps, 0);
    CHECK(check_log_has(PROF_E_DROPPED, "2 CUDA kernels, copies or sets were not finished at prof_stop"));
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
