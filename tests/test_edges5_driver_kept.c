/* Kineto's filter of driver-API calls (cuda_flags 0) keeps launches and
   allocations by the name's prefix (prof__cu_api_kept): cuLaunchKernelEx
   and cuLaunchKernel_ptsz are launches as cuLaunchKernel is, and
   cuMemAlloc_v2 / cuMemFree_v2 (CUPTI's names keep a "_v2" suffix) are
   allocations; other driver calls (cuCtxSynchronize) are left out. Each
   kept call is an event, and its kernel joins the scope around it.
   (Mutation pass: the prefix test made an exact comparison went
   unnoticed: the suite's driver calls are all named exactly as the
   list.) */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"

static void drv(CUpti_CallbackId cbid, int64_t t, uint32_t corr) {
    CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_DRIVER, cbid, T(t), T(t + 50), corr);
    CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
}

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
        PROF_SCOPE("op");
        CUpti_ActivityKernel10 k = fake_cupti_kernel("kex", T(3000), T(3100), 61);
        drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, 1100, 61);
        drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, 1200, 62);
        drv(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, 1300, 63);
        drv(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, 1400, 64);
        drv(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, 1500, 65);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        at(2000);
    }
    at(4000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(check_event_named(ev, "cuLaunchKernelEx").start_ns, 1100);
    CHECK_EQ_INT(check_event_named(ev, "cuLaunchKernel_ptsz").start_ns, 1200);
    CHECK_EQ_INT(check_event_named(ev, "cuMemAlloc_v2").start_ns, 1300);
    CHECK_EQ_INT(check_event_named(ev, "cuMemFree_v2").start_ns, 1400);
    CHECK_EQ_INT(check_find_event(ev, "cuCtxSynchronize", 0), -1);
    CHECK_EQ_INT(check_event_named(ev, "op").n_kernels, 1);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
