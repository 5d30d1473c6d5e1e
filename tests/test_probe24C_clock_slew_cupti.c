/* test_probe24C_clock_slew's drift, under PROF_CUPTI: what it does to the
   tree. CUPTI's records are stamped with CLOCK_MONOTONIC (prof.h's
   timestamp callback, prof__cu_timestamp, returns prof__mono_ns) and placed
   from mono_start; the CPU scopes come from the TSC through the process's
   history-wide rate. After CLOCK_MONOTONIC's rate against the TSC changed
   by 20 ppm (an NTP slew) a 10 s session's CPU scopes drift 197 us late
   by its end, so a scope around a cudaLaunchKernel no longer holds the
   call's record: the launch (and its kernel's device time) leaves the
   scope that made it; in the tree it is a top-level event. Even 1 ppm is
   10 us at 10 s, more than a launch call lasts.

   Time is virtual: CLOCK_MONOTONIC, nanosleep and the TSC
   (__builtin_ia32_rdtsc) land in this file (x86-64 only; elsewhere
   skipped), the GPU side is the fake libcupti (tests/fake_cupti). In the
   10 s session a scope "step" runs from 9.9990 s to 9.9999 s; inside it
   a cudaLaunchKernel record [9.99905, 9.99910] s and its kernel
   [9.99950, 9.99960] s (correlation 7). Expected: the launch's parent is
   "step", whose device time total is the kernel's 100 us. */
#define _GNU_SOURCE
#include "fake_tsc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "fake_tsc.h"
#include "check.h"
#include "fake_cupti_control.h"

#if defined(PROBE_FAKE_TSC)
static int64_t slew_from = INT64_MAX; /* from here the TSC runs at hz2 */
static const uint64_t hz1 = 2987654321u, hz2 = 2987714074u; /* hz1 * (1 + 20e-6) */

static uint64_t ticks_at(int64_t v) {
    if (v <= slew_from) return fake_tsc_ticks(v, hz1);
    return fake_tsc_ticks(slew_from, hz1) + fake_tsc_ticks(v - slew_from, hz2);
}
static uint64_t test_rdtsc(void) { return ticks_at(__atomic_load_n(&vc, __ATOMIC_SEQ_CST)); }

static int64_t base;
static void at(int64_t t) { __atomic_store_n(&vc, base + t, __ATOMIC_SEQ_CST); }
static uint64_t T(int64_t t) { return (uint64_t)(base + t); }

static prof_events *session(int64_t stop, int with_gpu) {
    prof_config cfg;
    memset(&cfg, 0, sizeof cfg);
    base = vc;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return NULL;
    if (with_gpu) {
        at(9999000000LL);
        {
            PROF_SCOPE("step");
            CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                                 T(9999050000LL), T(9999100000LL), 7);
            CUpti_ActivityKernel10 k = fake_cupti_kernel("gemm_kernel", T(9999500000LL), T(9999600000LL), 7);
            CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
            CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
            at(9999900000LL);
        }
    }
    at(stop);
    return prof_stop();
}

static int64_t find(prof_events *ev, const char *name) {
    size_t i, n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) return (int64_t)i;
    }
    return -1;
}
#endif

int main(void) {
#if defined(PROBE_FAKE_TSC)
    prof_events *ev;
    int64_t step, launch;
    prof_event es, el;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    ev = session(20000000, 0); /* the first session: 20 ms, nothing on the GPU */
    if (ev) prof_events_free(ev);
    __atomic_add_fetch(&vc, (int64_t)600 * 1000000000, __ATOMIC_SEQ_CST); /* ten minutes on */
    slew_from = vc;                                                      /* CLOCK_MONOTONIC slews by 20 ppm */
    ev = session(10000000000LL, 1);
    if (!CHECK(ev != NULL)) return check_report();
    step = find(ev, "step");
    launch = find(ev, "cudaLaunchKernel");
    if (CHECK(step >= 0) && CHECK(launch >= 0) && CHECK_EQ_INT(prof_events_get(ev, (size_t)step, &es), PROF_OK) &&
        CHECK_EQ_INT(prof_events_get(ev, (size_t)launch, &el), PROF_OK)) {
        CHECK_MSG(el.parent == step, "cudaLaunchKernel [%lld, %lld] ns is not inside the scope that made it, step [%lld, %lld] ns "
                  "(its parent: %lld)", (long long)el.start_ns, (long long)el.end_ns, (long long)es.start_ns, (long long)es.end_ns,
                  (long long)el.parent);
        CHECK_EQ_INT(es.device_time_total_ns, 100000);
        CHECK_MSG(es.start_ns >= 9999000000LL - 2 && es.start_ns <= 9999000000LL + 2, "step began at 9999000000 ns, prof.h says %lld",
                  (long long)es.start_ns);
    }
    prof_events_free(ev);
    return check_report();
#else
    puts("test_probe24C_clock_slew_cupti: skipped (the TSC is faked on x86-64 only)");
    return 0; /* (the plain unit test has no SKIP_RETURN_CODE) */
#endif
}
