/* Which scope owns a kernel when CUPTI's stamps of its launch and the
   scopes' ticks disagree by a few ns (the two clocks meet through the start
   pair, see test_probe24A_launch_overhang): the innermost scope open at
   the middle of the call, whatever its ends say. Two edges the tree and
   the call's start each get wrong:
   - the call stamped 10 ns before the scope that made it began ("op"
     [2000, 5000], the call [1990, 3000]): the tree puts the call in
     "outer", and the scope open at its start is "outer" too; op owns it;
   - the call stamped as beginning exactly when the scope before it ended
     ("prev" [2000, 3000], the call [3000, 4000] in "outer"): open at its
     start is "prev" (its end is inclusive, as PyTorch's intervals), but
     the call was made after prev, in outer: outer owns it. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"


static prof_events *run(int which) {
    prof_config c;
    CUpti_ActivityAPI a;
    CUpti_ActivityKernel10 k;
    fake_cupti_reset();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return NULL;
    at(1000);
    {
        PROF_SCOPE("outer");
        at(2000);
        if (which == 0) {
            PROF_SCOPE("op");
            a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(1990), T(3000), 5);
            CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
            at(5000);
        } else {
            {
                PROF_SCOPE("prev");
                at(3000);
            }
            a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(3000), T(4000), 5);
            CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        }
        k = fake_cupti_kernel("the_kernel", T(6000), T(7000), 5);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        at(9000);
    }
    at(10000);
    return prof_stop();
}

int main(void) {
    prof_events *ev;
    unsetenv("FAKE_CUPTI_ENV");
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    if (CHECK((ev = run(0)) != NULL)) {
        prof_event op = check_get_event(ev, check_find_event(ev, "op", 0)), outer = check_get_event(ev, check_find_event(ev, "outer", 0));
        CHECK_MSG(op.n_kernels == 1 && op.self_device_time_total_ns == 1000, "op (its call stamped 10 ns before it) owns %zu kernels",
                  op.n_kernels);
        CHECK_EQ_INT(outer.self_device_time_total_ns, 0);
        prof_events_free(ev);
    }
    if (CHECK((ev = run(1)) != NULL)) {
        prof_event prev = check_get_event(ev, check_find_event(ev, "prev", 0)), outer = check_get_event(ev, check_find_event(ev, "outer", 0));
        CHECK_MSG(prev.n_kernels == 0, "prev (which ended as the call began) owns %zu kernels", prev.n_kernels);
        CHECK_EQ_INT(outer.n_kernels, 1);
        CHECK_EQ_INT(outer.self_device_time_total_ns, 1000);
        prof_events_free(ev);
    }
    prof_shutdown();
    return check_report();
}
