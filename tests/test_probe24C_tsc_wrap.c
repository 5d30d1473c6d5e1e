/* A TSC that wraps past 2^64 during a session. prof.h compares raw ticks
   with < and > to tell a session's records from earlier ones and from
   ones after the stop (prof__c_stale: x < tick_start; prof__c_late:
   x > tick_stop; the thread's bind_tick against tick_start in
   prof__c_decode_thread), while it converts them as differences
   (x - tick_start, which wraps correctly). Once the counter has wrapped,
   tick_stop is below the ticks read before the wrap and tick_start above
   those read after it: of three scopes (before the wrap, across it, after
   it) prof.h keeps the one across, drops the one before as "late",
   uncounted, and counts the one after as open at the stop (prof_stats:
   2 entered, 1 recorded, 1 open, for 3 scopes that all ended). A 64-bit TSC wraps after 195 years at 3 GHz from 0, so
   this needs a counter that does not start near 0: a TSC offset or
   TSC_ADJUST written by a hypervisor or firmware, or a virtual counter
   with an offset. Low severity; comparing differences
   ((int64_t)(x - tick_start) < 0, (int64_t)(x - tick_stop) > 0) costs
   nothing and holds for any start.

   Time is virtual (clock_gettime, nanosleep and __builtin_ia32_rdtsc land
   here, as in test_probe24C_clock_slew.c; x86-64 only, elsewhere skipped):
   a TSC of 2.987654321 GHz that passes 2^64 5 ms into the first
   session, which holds three scopes: before the wrap, across it and
   after it. All three must be in the list, at their times to the ns. */
#define _GNU_SOURCE
#include "fake_tsc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "fake_tsc.h"
#include "check.h"

#if defined(PROBE_FAKE_TSC)
static const uint64_t hz = 2987654321u;
static uint64_t offset; /* the TSC is offset + vc's ticks, mod 2^64 */

static uint64_t scale(int64_t v) { return fake_tsc_ticks(v, hz); }
static uint64_t test_rdtsc(void) { return offset + scale(__atomic_load_n(&vc, __ATOMIC_SEQ_CST)); }
#endif

int main(void) {
#if defined(PROBE_FAKE_TSC)
    static const char *const names[3] = { "before", "across", "after" };
    static const int64_t from[3] = { 1000000, 4000000, 10000000 }, to[3] = { 3000000, 6000000, 12000000 };
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    int64_t base = vc;
    size_t i;
    prof_set_log(check_log, NULL);
    offset = 0 - scale(base + 5000000); /* 2^64 is reached 5 ms after prof_start */
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    for (i = 0; i < 3; i++) {
        vc = base + from[i];
        {
            PROF_SCOPE_DYN(names[i]);
            vc = base + to[i];
        }
    }
    vc = base + 30000000;
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_entered, 3);
    CHECK_EQ_INT(st.scopes_recorded, 3);
    if (CHECK_EQ_INT(prof_events_count(ev), 3)) {
        for (i = 0; i < 3; i++) {
            prof_event e;
            if (!CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK)) continue;
            CHECK_EQ_STR(e.name, names[i]);
            CHECK_MSG(e.start_ns >= from[i] - 2 && e.start_ns <= from[i] + 2 && e.end_ns >= to[i] - 2 && e.end_ns <= to[i] + 2,
                      "%s: [%lld, %lld] ns, expected [%lld, %lld]", names[i], (long long)e.start_ns, (long long)e.end_ns,
                      (long long)from[i], (long long)to[i]);
        }
    } else {
        fprintf(stderr, "the session the TSC wrapped in kept %zu of its 3 scopes (stats: %llu entered, %llu recorded, %llu dropped, %llu open)\n",
                prof_events_count(ev), (unsigned long long)st.scopes_entered, (unsigned long long)st.scopes_recorded,
                (unsigned long long)st.scopes_dropped, (unsigned long long)st.open_at_stop);
        for (i = 0; i < prof_events_count(ev); i++) {
            prof_event e;
            if (prof_events_get(ev, i, &e) == PROF_OK)
                fprintf(stderr, "  kept: %s [%lld, %lld] ns\n", e.name, (long long)e.start_ns, (long long)e.end_ns);
        }
    }
    prof_events_free(ev);
    return check_report();
#else
    puts("test_probe24C_tsc_wrap: skipped (the TSC is faked on x86-64 only)");
    return 0; /* (the plain unit test has no SKIP_RETURN_CODE) */
#endif
}
