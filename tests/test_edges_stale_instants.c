/* Marks, counter samples and async records whose clock was read before
   the session began are none of its: a thread reads the clock first
   (prof__instant, prof__async), then sees the session's epoch, so a
   PROF_MARK racing with prof_start (or with a prof_stop and the next
   prof_start) records a time from before the session. prof_stop leaves
   such records out, as it does scopes that began before their thread's
   session (prof__c_stale): else the trace gets an instant at a negative
   time, before the session's origin, and the counts (prof_stats.marks,
   .counters, .async_records) include them.
   The race is forced with the test's own TSC (fake_tsc.h): the next clock
   read returns a time 5 ms before prof_start. Found by mutation testing:
   keeping every non-scope record whatever its time left every other
   test passing. x86-64 only (the TSC is faked there), else skipped. */
#define _GNU_SOURCE
#include "fake_tsc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "fake_tsc.h"
#include "check.h"

#include <string.h>
#include <sys/stat.h>

#define TRACE "build/test_edges_stale_instants.json"

#if defined(PROBE_FAKE_TSC)
#define TSC_HZ 2500000000u /* 5 ticks per 2 ns */
static uint64_t test_rdtsc(void) {
    uint64_t t;
    return fake_tsc_take(&t) ? t : fake_tsc_ticks(__atomic_load_n(&vc, __ATOMIC_SEQ_CST), TSC_HZ);
}
static void force_old(int64_t v) { fake_tsc_force(fake_tsc_ticks(v, TSC_HZ)); }
#endif

int main(void) {
#if defined(PROBE_FAKE_TSC)
    prof_events *ev;
    prof_stats st;
    int64_t base = vc;
    char *trace;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    if (!CHECK_EQ_INT(prof_start(NULL), PROF_OK)) return check_report();
    vc = base + 1000000;
    { PROF_SCOPE("s"); }
    force_old(base - 5000000);
    PROF_MARK("stale_mark");
    force_old(base - 5000000);
    PROF_COUNTER("stale_counter", 1.0);
    force_old(base - 5000000);
    PROF_ASYNC_BEGIN("stale_async", 7);
    PROF_ASYNC_END(7); /* its begin left out: this end is unmatched */
    PROF_MARK("fresh_mark");
    vc = base + 30000000; /* past the stop's clock fit: no wait */
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.marks, 1);
    CHECK_EQ_INT(st.counters, 0);
    CHECK_EQ_INT(st.async_records, 1);
    CHECK_EQ_INT(st.unmatched_async, 1);
    CHECK_EQ_INT(prof_events_count(ev), 1); /* s; no async range */
    if (CHECK_EQ_INT(prof_export_chrome_trace(ev, TRACE), PROF_OK) && CHECK((trace = check_read_file(TRACE)) != NULL)) {
        CHECK(strstr(trace, "\"fresh_mark\"") != NULL);
        CHECK(strstr(trace, "\"stale_") == NULL);
        CHECK(strstr(trace, "\"ts\": -") == NULL);
        free(trace);
    }
    prof_events_free(ev);
    return check_report();
#else
    puts("test_edges_stale_instants: skipped (the TSC is faked on x86-64 only)");
    return 0;
#endif
}
