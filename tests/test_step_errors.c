/* prof_step's and the session calls' errors, as the manual states them:
   - Out of memory at the end of a schedule's recording window, the window
     is lost and prof_step says so: PROF_E_NOMEM, logged with the function's
     name (it returned PROF_OK, so a caller that checks results saw
     nothing). The next window is delivered whole.
   - Out of memory while a warm-up's records are thrown away loses nothing:
     PROF_OK, no error (it said "its events are lost").
   - Every message of prof_start, prof_step and prof_stop is logged with
     the session lock held, so a log callback that calls one of them is
     refused (PROF_E_STATE), errors included: prof_stop's "no session" and
     prof_start's invalid config used to be logged after the lock was let
     go, and a prof_start from the callback then started a session beside
     the failing call. */
#define _GNU_SOURCE 1
#define FAIL_ALLOC_ALL
#include "fail_alloc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <string.h>

static int g_errors, g_nomem_step; /* PROF_LOG_ERROR lines; of them prof_step's window lost */
static int g_ready, g_reenter;     /* windows delivered; 1: the callback calls prof_start, 2: prof_stop */
static size_t g_ready_n;
static prof_result g_inner = PROF_OK;
static prof_events *g_inner_stop = (prof_events *)1;

static void on_log(prof_log_level level, prof_result code, const char *msg, void *user) {
    (void)user;
    if (level != PROF_LOG_ERROR) return;
    g_errors++;
    if (code == PROF_E_NOMEM && strncmp(msg, "prof_step: out of memory", 24) == 0 && strstr(msg, "its events are lost")) g_nomem_step++;
    if (g_reenter == 1) { g_reenter = 0; g_inner = prof_start(NULL); }
    if (g_reenter == 2) { g_reenter = 0; g_inner_stop = prof_stop(); }
}
static void on_ready(prof_events *ev, void *user) {
    (void)user;
    g_ready++;
    g_ready_n = prof_events_count(ev);
}
static void scopes(int n) {
    int i;
    for (i = 0; i < n; i++) { PROF_SCOPE("work"); }
}
static prof_result step_without_memory(void) {
    prof_result r;
    g_fail_all = 1;
    r = prof_step();
    g_fail_all = 0;
    return r;
}

/* A session with a schedule of `warmup` warm-up steps, then one step
   recorded and delivered (to on_ready), repeated; the counts reset. */
static void start_schedule(int warmup) {
    prof_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = on_log;
    cfg.schedule.warmup = warmup;
    cfg.schedule.active = 1;
    cfg.on_trace_ready = on_ready;
    g_errors = g_nomem_step = g_ready = 0;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
}
static void stop_schedule(void) {
    prof_events *ev = prof_stop();
    CHECK(ev != NULL);
    prof_events_free(ev);
}

/* schedule active=1: every step ends a window; the second one has no memory */
static void window_lost(void) {
    start_schedule(0);
    scopes(10);
    CHECK_EQ_INT(prof_step(), PROF_OK);
    CHECK_EQ_INT(g_ready, 1);
    scopes(10);
    CHECK_EQ_INT(step_without_memory(), PROF_E_NOMEM);
    CHECK_EQ_INT(g_ready, 1);                  /* the window is lost ... */
    CHECK_EQ_INT(g_nomem_step, 1);             /* ... and said so, once, by name */
    CHECK_EQ_INT(g_errors, 1);
    CHECK(strstr(prof_last_error(), "prof_step: out of memory") != NULL);
    scopes(7);
    CHECK_EQ_INT(prof_step(), PROF_OK);        /* the next window whole */
    CHECK_EQ_INT(g_ready, 2);
    CHECK(g_ready_n >= 7);
    stop_schedule();
}

/* warm-up, then record: the warm-up's records go while memory is out */
static void warmup_discard(void) {
    start_schedule(1);
    scopes(10);                                /* step 0: warm-up */
    CHECK_EQ_INT(step_without_memory(), PROF_OK);
    CHECK_EQ_INT(g_errors, 0);
    scopes(5);                                 /* step 1: recorded and delivered */
    CHECK_EQ_INT(prof_step(), PROF_OK);
    CHECK_EQ_INT(g_ready, 1);
    CHECK(g_ready_n >= 5);
    stop_schedule();
}

/* a log callback that calls prof_start or prof_stop on an error of them */
static void reentry_on_errors(void) {
    prof_config cfg;
    prof_events *ev;
    memset(&cfg, 0, sizeof cfg);
    prof_set_log(on_log, NULL);

    g_reenter = 1; g_inner = PROF_OK;
    CHECK(prof_stop() == NULL);                /* no session: the error's callback starts one */
    CHECK_EQ_INT(g_inner, PROF_E_STATE);
    CHECK_EQ_INT(prof_is_recording(), 0);

    g_reenter = 1; g_inner = PROF_OK;
    CHECK_EQ_INT(prof_step(), PROF_E_STATE);
    CHECK_EQ_INT(g_inner, PROF_E_STATE);
    CHECK_EQ_INT(prof_is_recording(), 0);

    cfg.schedule.active = -1;                  /* invalid */
    g_reenter = 1; g_inner = PROF_OK;
    CHECK_EQ_INT(prof_start(&cfg), PROF_E_ARG);
    CHECK_EQ_INT(g_inner, PROF_E_STATE);
    CHECK_EQ_INT(prof_is_recording(), 0);

    cfg.schedule.active = 0;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    g_reenter = 2; g_inner_stop = (prof_events *)1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_E_STATE); /* already running: the callback's prof_stop is refused */
    CHECK(g_inner_stop == NULL);
    CHECK_EQ_INT(prof_is_recording(), 1);
    scopes(3);
    ev = prof_stop();
    CHECK(ev != NULL && prof_events_count(ev) == 3);
    prof_events_free(ev);
    g_reenter = 0;
    prof_set_log(NULL, NULL);
}

/* A log callback that answers every error with prof_shutdown and a
   prof_start: refused inside prof_stop's error, and the refusals were
   logged through the callback again, which called again: unbounded
   recursion, a crash. A refusal inside the log callback now goes to
   prof_last_error and the call's result only. */
static int g_depth, g_max_depth, g_storm;
static void storm(prof_log_level level, prof_result code, const char *msg, void *user) {
    (void)code; (void)msg; (void)user;
    if (level != PROF_LOG_ERROR) return;
    g_storm++;
    if (++g_depth > g_max_depth) g_max_depth = g_depth;
    if (g_depth < 6) { /* (a bound, so that the old header fails instead of overflowing its stack: two calls a level) */
        prof_shutdown();
        (void)prof_start(NULL);
    }
    g_depth--;
}
static void refusal_not_logged_again(void) {
    prof_set_log(storm, NULL);
    g_storm = g_max_depth = 0;
    CHECK(prof_stop() == NULL);                /* no session: one error, the callback's calls refused */
    CHECK_EQ_INT(g_max_depth, 1);
    CHECK_EQ_INT(g_storm, 1);
    CHECK(strstr(prof_last_error(), "called from the log callback") != NULL);
    CHECK_EQ_INT(prof_is_recording(), 0);
    g_storm = g_max_depth = 0;
    CHECK_EQ_INT(prof_step(), PROF_E_STATE);
    CHECK_EQ_INT(g_max_depth, 1);
    CHECK_EQ_INT(prof_is_recording(), 0);
    prof_set_log(NULL, NULL);
}
/* The same inside on_trace_ready: an export there fails (a directory that
   is not there), its error goes to the storm callback, whose prof_start
   is refused; that refusal went through the callback again as well. */
static void export_fails(prof_events *ev, void *user) {
    (void)user;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/no such directory/step_errors.json"), PROF_E_IO);
}
static void refusal_in_trace_ready(void) {
    prof_config cfg;
    prof_events *ev;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = storm;
    cfg.schedule.active = 1;
    cfg.on_trace_ready = export_fails;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    g_storm = g_max_depth = 0;
    scopes(3);
    CHECK_EQ_INT(prof_step(), PROF_OK);
    CHECK_EQ_INT(g_max_depth, 1);
    CHECK_EQ_INT(g_storm, 1);
    ev = prof_stop();
    prof_events_free(ev);
    prof_set_log(NULL, NULL);
}

int main(void) {
    window_lost();
    warmup_discard();
    reentry_on_errors();
    refusal_not_logged_again();
    refusal_in_trace_ready();
    prof_shutdown();
    return check_report();
}
