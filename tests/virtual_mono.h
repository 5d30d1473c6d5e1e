/* A virtual CLOCK_MONOTONIC for tests that put prof.h's clock reads (with
   -DPROF_CLOCK_MONOTONIC) and CUPTI's stamps on one exact timeline, as
   tests/test_cupti.c does. The test file defines, before prof.h,
       #define clock_gettime test_clock_gettime
       #define PROF_CLOCK_MONOTONIC 1
   then #undef clock_gettime after it, and includes this file after
   check.h. virtual_mono_init() sets the origin 1000 s past the real clock;
   at(t) moves the clock to t ns after it, T(t) is that time as a CUPTI
   stamp. CLOCK_REALTIME stays real. */
#ifndef PROF_TEST_VIRTUAL_MONO_H
#define PROF_TEST_VIRTUAL_MONO_H

extern int clock_gettime(clockid_t clk, struct timespec *ts); /* the real one */

static int64_t vc_ns; /* virtual CLOCK_MONOTONIC */
int test_clock_gettime(clockid_t clk, struct timespec *ts);
int test_clock_gettime(clockid_t clk, struct timespec *ts) {
    if (clk == CLOCK_MONOTONIC) {
        int64_t v = __atomic_load_n(&vc_ns, __ATOMIC_SEQ_CST);
        ts->tv_sec = (time_t)(v / 1000000000);
        ts->tv_nsec = (long)(v % 1000000000);
        return 0;
    }
    return clock_gettime(clk, ts);
}
static int64_t g_base;
static CHECK__UNUSED void at(int64_t t) { __atomic_store_n(&vc_ns, g_base + t, __ATOMIC_SEQ_CST); }
static CHECK__UNUSED uint64_t T(int64_t t) { return (uint64_t)(g_base + t); }
static CHECK__UNUSED void virtual_mono_init(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    g_base = ((int64_t)ts.tv_sec + 1000) * 1000000000;
}

#endif
