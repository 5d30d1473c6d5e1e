/* Virtual time for the tests of prof.h's clock (x86-64 only): the TSC
   (__builtin_ia32_rdtsc) and CLOCK_MONOTONIC (clock_gettime, nanosleep)
   that prof.h's implementation reads are the test's own.

   Include it twice, around the implementation:

       #define _GNU_SOURCE
       #include "fake_tsc.h"      (renames the three calls)
       #define PROF_IMPLEMENTATION
       #include "prof.h"
       #include "fake_tsc.h"      (the renames undone; vc, the clock calls)

   Where the TSC cannot be faked (not x86-64, or PROF_CLOCK_MONOTONIC)
   PROBE_FAKE_TSC stays undefined and the test skips. The test defines
       static uint64_t test_rdtsc(void);
   (the TSC it wants, usually fake_tsc_ticks(vc, hz), after any read
   fake_tsc_force queued); time moves only when the test sets vc, or by
   prof.h's own nanosleeps. */
#if !defined(FAKE_TSC_RENAMED)
#define FAKE_TSC_RENAMED 1
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) && !defined(PROF_CLOCK_MONOTONIC)
#define PROBE_FAKE_TSC 1
#define clock_gettime test_clock_gettime
#define nanosleep test_nanosleep
#define __builtin_ia32_rdtsc test_rdtsc
int test_clock_gettime(clockid_t clk, struct timespec *ts);
int test_nanosleep(const struct timespec *req, struct timespec *rem);
static uint64_t test_rdtsc(void);
#endif

#elif !defined(FAKE_TSC_DEFINED)
#define FAKE_TSC_DEFINED 1
#if defined(PROBE_FAKE_TSC)
#undef clock_gettime
#undef nanosleep
#undef __builtin_ia32_rdtsc
extern int clock_gettime(clockid_t clk, struct timespec *ts); /* the real one */

static int64_t vc = 1000000000000LL; /* virtual CLOCK_MONOTONIC, ns */
static int64_t fake_tsc_jump;        /* added to vc at the next CLOCK_MONOTONIC read */

/* floor(v ns * hz / 1e9), exact in 64 bits (v >= 0) */
static __attribute__((__unused__)) uint64_t fake_tsc_ticks(int64_t v, uint64_t hz) {
    uint64_t s = (uint64_t)v / 1000000000u, ns = (uint64_t)v % 1000000000u;
    return s * hz + ns * hz / 1000000000u;
}
/* Reads of the TSC forced ahead of the clock (a time before a session's
   start, a counter that goes back): fake_tsc_force(t) queues t for a
   coming read (four at most); the test's test_rdtsc takes them first
   with fake_tsc_take. (Set before the reads they are for, on any thread.) */
static uint64_t fake_tsc_forced[4];
static int fake_tsc_nforced;
static __attribute__((__unused__)) void fake_tsc_force(uint64_t ticks) {
    int n = __atomic_load_n(&fake_tsc_nforced, __ATOMIC_SEQ_CST);
    if (n < 4) {
        fake_tsc_forced[n] = ticks;
        __atomic_store_n(&fake_tsc_nforced, n + 1, __ATOMIC_SEQ_CST);
    }
}
static __attribute__((__unused__)) int fake_tsc_take(uint64_t *ticks) {
    int n = __atomic_load_n(&fake_tsc_nforced, __ATOMIC_SEQ_CST), k;
    if (!n) return 0;
    *ticks = fake_tsc_forced[0];
    for (k = 1; k < n; k++) fake_tsc_forced[k - 1] = fake_tsc_forced[k];
    __atomic_store_n(&fake_tsc_nforced, n - 1, __ATOMIC_SEQ_CST);
    return 1;
}
int test_clock_gettime(clockid_t clk, struct timespec *ts) {
    if (clk == CLOCK_MONOTONIC) {
        int64_t v, jump = __atomic_exchange_n(&fake_tsc_jump, 0, __ATOMIC_SEQ_CST);
        v = __atomic_add_fetch(&vc, jump, __ATOMIC_SEQ_CST);
        ts->tv_sec = (time_t)(v / 1000000000);
        ts->tv_nsec = (long)(v % 1000000000);
        return 0;
    }
    return clock_gettime(clk, ts);
}
int test_nanosleep(const struct timespec *req, struct timespec *rem) {
    (void)rem;
    __atomic_add_fetch(&vc, (int64_t)req->tv_sec * 1000000000 + req->tv_nsec, __ATOMIC_SEQ_CST);
    return 0;
}
#endif
#endif
