/* max_events and CUDA (prof__cug_cap_room): the calls take the room the
   CPU's events left in the order they began, each with its GPU work.
   Session 1: a call whose cost is exactly the room left is kept (the
   room is a limit, not a bound to stay under), and a filtered call that
   launched nothing (cudaGetDevice: no records of its id in the list)
   costs nothing and is no unit at all. Session 2: once one call does not
   fit, every later one is dropped, also one small enough for the room
   that was left (a filtered call's copy: 1 record), as the cap drops
   everything after the first thing it refused. (Mutation pass: `*c <=
   room` made `<`, the `room = 0` after a refusal, and the test that skips
   hidden calls without records could each go without a test failing;
   without that test the decision loop reads a NULL slot; and a call
   whose kernels came first in the buffers must still be a unit.) */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"

static int has(prof_events *ev, const char *name) {
    size_t i, n = prof_events_count(ev);
    prof_event e;
    for (i = 0; i < n; i++)
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) return 1;
    return 0;
}
static void launch(int64_t t, uint32_t corr, const char *kernel, int nkernels, int kernels_first) {
    int m;
    CUpti_ActivityAPI l = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, nkernels > 1 ? CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000
                                                                                   : CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                         T(t), T(t + 50), corr);
    if (!kernels_first) CHECK_EQ_INT(fake_cupti_queue_api(&l), 0);
    for (m = 0; m < nkernels; m++) {
        CUpti_ActivityKernel10 k = fake_cupti_kernel(kernel, T(t + 5000 + 100 * m), T(t + 5050 + 100 * m), corr);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
    }
    if (kernels_first) CHECK_EQ_INT(fake_cupti_queue_api(&l), 0); /* (CUPTI's buffers come in any order) */
}

int main(void) {
    prof_config c;
    prof_events *ev;
    prof_stats st;
    unsetenv("FAKE_CUPTI_ENV");
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;

    /* session 1: one scope, room for 4 CUDA records */
    fake_cupti_reset();
    c.max_events = 5;
    at(0);
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("a");
        CUpti_ActivityAPI g = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, T(1050), T(1060), 10);
        CHECK_EQ_INT(fake_cupti_queue_api(&g), 0); /* filtered out, launches nothing */
        launch(1100, 11, "l1", 1, 0);
        launch(1200, 12, "l2", 1, 0); /* cost 2, room 2: fits */
        launch(1300, 13, "l3", 1, 0); /* no room */
        at(2000);
    }
    at(10000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK(has(ev, "a"));
    CHECK(has(ev, "l1"));
    CHECK_MSG(has(ev, "l2"), "the launch that fills the room exactly is dropped");
    CHECK(!has(ev, "l3"));
    CHECK_EQ_INT(prof_events_count(ev), 5);
    CHECK_EQ_INT(st.dropped, 2); /* l3's call and kernel */
    prof_events_free(ev);

    /* session 2: room for 3: l1 (2) fits, g2 (4) does not, and nothing after it does */
    check_log_reset();
    fake_cupti_reset();
    c.max_events = 4;
    at(20000);
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(21000);
    {
        PROF_SCOPE("a");
        launch(21100, 21, "l1", 1, 0);
        launch(21200, 22, "g2", 3, 1); /* its kernels before its call */
        {
            CUpti_ActivityAPI d = fake_cupti_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, T(21300), T(21310), 23);
            CUpti_ActivityMemcpy6 m = fake_cupti_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, T(27000), T(27100), 23);
            m.runtimeCorrelationId = 0;
            CHECK_EQ_INT(fake_cupti_queue_api(&d), 0);
            CHECK_EQ_INT(fake_cupti_queue_memcpy(&m), 0);
        }
        at(22000);
    }
    at(30000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK(has(ev, "l1"));
    CHECK(!has(ev, "g2"));
    CHECK_MSG(!has(ev, "Memcpy HtoD (Pageable -> Device)"), "a call after the first refused one is kept");
    CHECK_EQ_INT(prof_events_count(ev), 3);
    CHECK_EQ_INT(st.dropped, 5); /* g2's call and 3 kernels, the copy */
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
