/* prof_shutdown called while a session records: it frees nothing (the
   session's buffers are in use) and says so with a warning (PROF_E_STATE);
   recording goes on and the next prof_stop returns every event. After the
   stop it frees quietly. Found by the manual audit (session 22): it did
   nothing and said nothing, so a program that meant to end profiling kept
   recording without a word. */
#include "prof.h"
#include "check.h"

static size_t count_named(prof_events *ev, const char *name) {
    size_t i, k = 0;
    prof_event e;
    for (i = 0; i < prof_events_count(ev); i++)
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) k++;
    return k;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    int i;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    for (i = 0; i < 100; i++) { PROF_SCOPE("before"); }
    prof_shutdown();
    CHECK_EQ_INT(check_log_count(PROF_E_STATE), 1);
    CHECK(check_log_has(PROF_E_STATE, "prof_shutdown: a session is recording"));
    CHECK_EQ_INT(prof_is_recording(), 1);
    for (i = 0; i < 100; i++) { PROF_SCOPE("after"); }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK_EQ_INT(count_named(ev, "before"), 100);
        CHECK_EQ_INT(count_named(ev, "after"), 100);
        prof_events_free(ev);
    }
    check_log_reset();
    prof_shutdown(); /* no session: frees, says nothing */
    CHECK_EQ_INT(check_log_total(), 0);
    return check_report();
}
