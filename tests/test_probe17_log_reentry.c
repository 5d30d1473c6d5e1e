/* The log callback calls prof.h back. prof__report releases its own lock
   before the callback ("which may call prof.h"), and on_trace_ready is
   guarded (prof_start/step/stop from it are refused with PROF_E_STATE),
   but prof_stop's warnings (events dropped at the cap, scopes open) are
   reported with the session lock held: a log callback that reacts to a
   warning with prof_stop, prof_start or prof_step (end the session once
   the cap is hit, start the next one, step a schedule) waited for that
   lock forever: the program hung in prof_stop. They must be refused as
   from on_trace_ready (PROF_E_STATE, NULL), and the outer prof_stop must
   return its list. An alarm turns a hang into a failure. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static int g_mode, g_calls;
static prof_result g_inner_start = PROF_OK, g_inner_step = PROF_OK;
static prof_events *g_inner_stop = (prof_events *)1;

static void reenter(prof_log_level level, prof_result code, const char *msg, void *user) {
    (void)level; (void)msg; (void)user;
    if (code != PROF_E_DROPPED || g_calls++) return; /* once, on prof_stop's warning */
    if (g_mode == 0) g_inner_stop = prof_stop();
    else if (g_mode == 1) g_inner_start = prof_start(NULL);
    else g_inner_step = prof_step();
}

static void on_alarm(int sig) {
    static const char m[] = "test_probe17_log_reentry: hung (a prof.h call from the log callback waited for the session lock)\n";
    (void)sig;
    if (write(2, m, sizeof m - 1) < 0) {}
    _exit(1);
}

int main(void) {
    int mode;
    signal(SIGALRM, on_alarm);
    alarm(30);
    for (mode = 0; mode < 3; mode++) {
        prof_config cfg;
        prof_events *ev;
        int i;
        memset(&cfg, 0, sizeof cfg);
        cfg.max_events = 2;
        cfg.log = reenter;
        g_mode = mode;
        g_calls = 0;
        CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
        for (i = 0; i < 10; i++) { PROF_SCOPE("x"); }
        ev = prof_stop(); /* warns: 8 events dropped */
        CHECK_EQ_INT(g_calls, 1);
        CHECK(ev != NULL);
        CHECK_EQ_INT(prof_events_count(ev), 2);
        prof_events_free(ev);
        CHECK_EQ_INT(prof_is_recording(), 0);
    }
    CHECK(g_inner_stop == NULL);
    CHECK_EQ_INT(g_inner_start, PROF_E_STATE);
    CHECK_EQ_INT(g_inner_step, PROF_E_STATE);
    /* no session left behind by a refused prof_start */
    prof_set_log(check_log, NULL);
    CHECK(prof_stop() == NULL);
    return check_report();
}
