/* Which scope owns a kernel when the middle of its launch call falls
   exactly on a scope's end (test_probe24_launch_edges has the other two
   edges). The owner is the innermost scope open at the call's middle,
   start + (end - start) / 2, and a scope's end is inclusive (as PyTorch's
   intervals): "prev" [2000, 3500] inside "outer", the call [3000, 4000]
   (middle 3500 = prev's end) and the call [3000, 4001] (middle rounded
   down to 3500): prev owns the kernel (1 kernel, 1000 ns of self device
   time), outer none. One ns later, the call [3001, 4001] (middle 3501),
   prev has ended: outer owns it. Timed on the virtual clock of
   virtual_mono.h, with the fake CUPTI. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"


/* outer [1000, 9000] holds prev [2000, 3500]; the launch call [call_start,
   call_end] made on the same thread; its kernel [6000, 7000]. */
static prof_events *run(int64_t call_start, int64_t call_end) {
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
        {
            PROF_SCOPE("prev");
            at(3500);
        }
        a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(call_start), T(call_end), 5);
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        k = fake_cupti_kernel("the_kernel", T(6000), T(7000), 5);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        at(9000);
    }
    at(10000);
    return prof_stop();
}

static void owner(int64_t call_start, int64_t call_end, int prev_owns) {
    prof_events *ev = run(call_start, call_end);
    if (CHECK(ev != NULL)) {
        prof_event prev = check_get_event(ev, check_find_event(ev, "prev", 0)), outer = check_get_event(ev, check_find_event(ev, "outer", 0));
        CHECK_EQ_INT(prev.start_ns, 2000);
        CHECK_EQ_INT(prev.end_ns, 3500);
        CHECK_MSG(prev.n_kernels == (prev_owns ? 1u : 0u), "call [%lld, %lld]: prev owns %zu kernels", (long long)call_start, (long long)call_end,
                  prev.n_kernels);
        CHECK_EQ_INT(prev.self_device_time_total_ns, prev_owns ? 1000 : 0);
        CHECK_MSG(outer.n_kernels == (prev_owns ? 0u : 1u), "call [%lld, %lld]: outer owns %zu kernels", (long long)call_start, (long long)call_end,
                  outer.n_kernels);
        CHECK_EQ_INT(outer.self_device_time_total_ns, prev_owns ? 0 : 1000);
        CHECK_EQ_INT(outer.device_time_total_ns, 1000);
        prof_events_free(ev);
    }
}

int main(void) {
    unsetenv("FAKE_CUPTI_ENV");
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    owner(3000, 4000, 1); /* middle 3500: prev's end */
    owner(3000, 4001, 1); /* middle 3500.5, rounded down */
    owner(3001, 4001, 0); /* middle 3501: after prev */
    prof_shutdown();
    return check_report();
}
