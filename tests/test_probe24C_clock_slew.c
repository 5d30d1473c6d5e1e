/* A session's times against CLOCK_MONOTONIC when the TSC's rate against
   CLOCK_MONOTONIC is not what it was earlier in the process.

   prof.h turns ticks into ns with one rate fitted from the process's first
   prof_start to the current prof_stop (prof__clock_calibrate), anchored at
   the session's own start (tick_start, mono_start). CLOCK_MONOTONIC is the
   clock NTP disciplines: ntpd and chronyd change its rate against the
   crystal (and so against the TSC) to correct the frequency error and to
   slew offsets away (ntpd up to 500 ppm, chronyd's maxslewrate 83333 ppm),
   and a crystal's drift with temperature moves that correction by ppm
   over hours. A session late in a long process then runs at a rate the
   history's average does not have, and its CPU times drift from
   CLOCK_MONOTONIC across the session: by the rate difference times the
   session's length. CUPTI's records are stamped with CLOCK_MONOTONIC
   (prof.h's timestamp callback), so under PROF_CUPTI the kernels slide
   against the CPU scopes that launched them by the same amount. PyTorch's
   ApproximateClockToUnixTimeConverter fits each profile from pairs taken
   at its own start and end, which follows the clock the session saw.

   Here time is virtual: CLOCK_MONOTONIC is a counter this file sets
   (clock_gettime and nanosleep land here, as in test_cupti.c), and the
   TSC (__builtin_ia32_rdtsc, x86-64 only) counts an odd 2.987654321 GHz
   against it. A first session of 20 ms; ten minutes later the monotonic
   clock starts running 20 ppm slower against the TSC (a slew); a session
   of 10 s then holds one scope from 1 us to 10 s. Its end is at 10 s of
   CLOCK_MONOTONIC; prof.h says 10.000197 s (197 us late, 19.7 ppm: the
   history's average rate). Fitting the session over its own span
   (tick_start, mono_start) to a pair read at the stop gives it to the
   ns. Elsewhere than x86-64 the TSC cannot be faked: skipped. */
#define _GNU_SOURCE
#include "fake_tsc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "fake_tsc.h"
#include "check.h"

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

/* one session: a scope [from, to] (ns after prof_start), the stop at stop */
static void session(const char *what, int64_t from, int64_t to, int64_t stop) {
    prof_config cfg;
    prof_events *ev;
    prof_event e;
    memset(&cfg, 0, sizeof cfg);
    base = vc;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    at(from);
    {
        PROF_SCOPE("work");
        at(to);
    }
    at(stop);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    if (CHECK_EQ_INT(prof_events_count(ev), 1) && CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK)) {
        CHECK_MSG(e.start_ns >= from - 2 && e.start_ns <= from + 2, "%s: the scope began at %lld ns of CLOCK_MONOTONIC, prof.h says %lld",
                  what, (long long)from, (long long)e.start_ns);
        CHECK_MSG(e.end_ns >= to - 2 && e.end_ns <= to + 2,
                  "%s: the scope ended at %lld ns of CLOCK_MONOTONIC, prof.h says %lld (%+lld ns, %.1f ppm of the session)", what,
                  (long long)to, (long long)e.end_ns, (long long)(e.end_ns - to), 1e6 * (double)(e.end_ns - to) / (double)to);
    }
    prof_events_free(ev);
}
#endif

int main(void) {
#if defined(PROBE_FAKE_TSC)
    prof_set_log(check_log, NULL);
    session("first session (20 ms)", 1000, 15000000, 20000000);
    __atomic_add_fetch(&vc, (int64_t)600 * 1000000000, __ATOMIC_SEQ_CST); /* ten minutes on */
    slew_from = vc;                                                      /* CLOCK_MONOTONIC slews by 20 ppm */
    session("10 s session after a 20 ppm slew", 1000, 10000000000LL, 10000001000LL);
    return check_report();
#else
    puts("test_probe24C_clock_slew: skipped (the TSC is faked on x86-64 only)");
    return 0; /* (the plain unit test has no SKIP_RETURN_CODE) */
#endif
}
