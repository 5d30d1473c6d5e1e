/* PROF_BEGIN past the event cap still grows the thread's range stack by
   one entry per call: the cap bounds the records, but not the memory of
   ranges it refused. A program with a range that is begun and not ended on
   some path (an early return past its PROF_END; the manual counts the
   opposite mistake, an unbalanced PROF_END) grows without bound for as
   long as the session lasts, whatever max_events says: with max_events =
   1000, 20 million PROF_BEGIN grew the resident set by 469 MB here.

   Every range begun past the cap is dropped with everything inside it,
   so the refused ranges are always the innermost ones of the stack: a
   count of them is all PROF_END needs to match them. Wanted: past the cap
   prof.h's memory stays flat, and the accounting stays exact (every range
   entered is recorded, dropped or open; none unbalanced). Measured with
   allocator hooks that count the live bytes prof.h holds. */
#define _GNU_SOURCE 1
#define FAIL_ALLOC_COUNT_LIVE /* g_live: the bytes prof.h holds */
#include "fail_alloc.h"
#include <stdlib.h>
#include <string.h>

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

/* Ranges begun while off are counted on one stack entry: their ENDs still
   pair with them in order around a recorded range begun in a session. */
static void nesting_across_sessions(void) {
    prof_config cfg;
    prof_events *ev;
    prof_event e;
    memset(&cfg, 0, sizeof cfg);
    PROF_BEGIN("off 1");
    PROF_BEGIN("off 2");
    PROF_BEGIN("off 3");
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    PROF_BEGIN("on");
    PROF_BEGIN("inner");
    PROF_END();        /* inner */
    PROF_END();        /* on */
    PROF_END();        /* off 3 */
    PROF_BEGIN("on 2");
    PROF_END();        /* on 2 */
    PROF_END();        /* off 2 */
    PROF_END();        /* off 1 */
    PROF_END();        /* none: unbalanced */
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 3);
    CHECK_EQ_INT(prof_events_stats(ev).unbalanced_ends, 1);
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    if (prof_events_count(ev) == 3) {
        CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
        CHECK_EQ_STR(e.name, "on");
        CHECK_EQ_INT(e.n_children, 1);
        CHECK_EQ_INT(prof_events_get(ev, 2, &e), PROF_OK);
        CHECK_EQ_STR(e.name, "on 2");
    }
    prof_events_free(ev);
}

int main(void) {
    enum { CAP = 100, N = 1000000 };
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    long i, at_cap, grown;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = CAP;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    for (i = 0; i < 2 * CAP; i++) PROF_BEGIN("leak"); /* the cap is met here */
    at_cap = __atomic_load_n(&g_live, __ATOMIC_RELAXED);
    for (; i < N; i++) PROF_BEGIN("leak");
    grown = __atomic_load_n(&g_live, __ATOMIC_RELAXED) - at_cap;
    printf("%ld PROF_BEGIN past a cap of %d: prof.h's heap grew %ld bytes\n", (long)N - 2 * CAP, CAP, grown);
    CHECK(grown < 64 * 1024);
    for (i = 0; i < N; i++) PROF_END();
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_entered, N);
    CHECK_EQ_INT(st.scopes_recorded, CAP);
    CHECK_EQ_INT(st.scopes_dropped, N - CAP);
    CHECK_EQ_INT(st.open_at_stop, 0);
    CHECK_EQ_INT(st.unbalanced_ends, 0);
    prof_events_free(ev);
    nesting_across_sessions();
    prof_shutdown(); /* prof.h's blocks go back through the hooks (valgrind: none left behind) */
    return check_report();
}
