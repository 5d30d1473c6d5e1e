/* prof_stats.malformed_args counts the PROF_SCOPE_ARGS events whose
   prof_args.scope was outside 0-255 (recorded as 0). It was counted when
   the args' record was read, before prof_stop knew whether the scope was
   an event at all: a scope begun in the previous session (stale, not in
   this profile) was counted, and warned of, as a malformed event of this
   one. Wanted: counted only with an event, in the session the event is
   in; a scope across the stop is in neither profile and counted in
   neither. */
#include "prof.h"
#include "check.h"

int main(void) {
    prof_args a;
    prof_events *ev1, *ev2 = NULL, *ev3;
    prof_set_log(check_log, NULL);
    memset(&a, 0, sizeof a);
    a.scope = 300;

    CHECK_EQ_INT(prof_start(NULL), PROF_OK);
    {
        PROF_SCOPE_ARGS("across", &a);
        ev1 = prof_stop();
        CHECK_EQ_INT(prof_start(NULL), PROF_OK);
    }
    { PROF_SCOPE("inside"); }
    check_log_reset();
    ev2 = prof_stop();
    CHECK(ev1 != NULL && ev2 != NULL);
    if (ev1) CHECK_EQ_INT(prof_events_stats(ev1).malformed_args, 0);
    if (ev2) {
        CHECK_EQ_INT(prof_events_count(ev2), 1); /* "inside" only */
        CHECK_EQ_INT(prof_events_stats(ev2).malformed_args, 0);
    }
    CHECK_EQ_INT(check_log_total(), 0); /* nothing to warn of */

    /* the same scope inside one session is counted once, with its warning */
    CHECK_EQ_INT(prof_start(NULL), PROF_OK);
    { PROF_SCOPE_ARGS("within", &a); }
    check_log_reset();
    ev3 = prof_stop();
    CHECK(ev3 != NULL);
    if (ev3) {
        prof_event e;
        CHECK_EQ_INT(prof_events_count(ev3), 1);
        CHECK_EQ_INT(prof_events_get(ev3, 0, &e), PROF_OK);
        CHECK_EQ_INT(e.scope, 0);
        CHECK_EQ_INT(prof_events_stats(ev3).malformed_args, 1);
    }
    CHECK_EQ_INT(check_log_total(), 1);
    prof_events_free(ev1);
    prof_events_free(ev2);
    prof_events_free(ev3);
    return check_report();
}
