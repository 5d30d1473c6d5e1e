/* The warnings of a schedule's window end name prof_stop though the user
   called prof_step: prof__c_warn (phase 9 of the collection, shared by
   prof_stop and the window end in prof_step) writes "prof_stop: " into
   every message. A PROF_BEGIN range that spans two steps (or a scope of
   another thread still running at the step) logs at prof_step:
     prof_stop: PROF_BEGIN("span") at ...:NN is still open; it is not in the profile
     prof_stop: 1 scope was still open in all (...); it is not in the profile
       (a scope jumped over by longjmp, left by a computed goto (goto *p),
       or by exit or pthread_exit, stays open)
   and a window that met the cap logs "prof_stop: N events were dropped
   when the cap ...". No prof_stop was called: the user is sent to the
   wrong call (and, for a range that is simply still running, to
   longjmp). Wanted: messages logged by prof_step say prof_step (or "at the
   end of the recording window"), never "prof_stop:". */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static int windows;
static void ready(prof_events *ev, void *u) {
    (void)ev;
    (void)u;
    windows++;
}

static void no_prof_stop_in_log(const char *what) {
    size_t i;
    const check_log_entry *e;
    for (i = 0; (e = check_log_get(i)) != NULL; i++) {
        if (!CHECK(strncmp(e->message, "prof_stop:", 10) != 0))
            fprintf(stderr, "  %s: logged by prof_step: %s\n", what, e->message);
    }
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    int i;
    memset(&cfg, 0, sizeof cfg);
    cfg.schedule.active = 1; /* every step ends a window */
    cfg.on_trace_ready = ready;
    cfg.log = check_log;

    /* a range that spans a step */
    CHECK(prof_start(&cfg) == PROF_OK);
    PROF_BEGIN("span");
    check_log_reset();
    CHECK(prof_step() == PROF_OK);
    CHECK(windows == 1);
    CHECK(check_log_count(PROF_E_OPEN_SCOPES) >= 1);
    no_prof_stop_in_log("open range");
    PROF_END();
    ev = prof_stop();
    CHECK(ev != NULL);
    prof_events_free(ev);

    /* a window past the cap */
    cfg.max_events = 8;
    CHECK(prof_start(&cfg) == PROF_OK);
    check_log_reset();
    for (i = 0; i < 100; i++) { PROF_SCOPE("s"); }
    CHECK(prof_step() == PROF_OK);
    CHECK(check_log_count(PROF_E_DROPPED) >= 1);
    no_prof_stop_in_log("cap");
    ev = prof_stop();
    CHECK(ev != NULL);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
