/* prof_stop names each PROF_BEGIN the calling thread left open, one
   warning each. Those warnings were reported while prof_stop held
   prof__g_lock (the thread list's lock), so a log callback that called
   a prof.h function taking that lock (prof_set_thread_name: a logger
   naming its thread on its first message) waited for it forever: the
   program hung in prof_stop. The warnings must reach the callback after
   the lock is released, the callback's call must take effect, and the
   list must hold the closed scope. An alarm turns a hang into a
   failure. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static int g_named, g_summary;

static void logger(prof_log_level level, prof_result code, const char *msg, void *user) {
    (void)level; (void)user;
    if (code != PROF_E_OPEN_SCOPES) return;
    if (strstr(msg, "PROF_BEGIN(\"left open\")")) g_named++;
    else g_summary++;
    prof_set_thread_name("logger"); /* takes prof__g_lock */
}

static void on_alarm(int sig) {
    static const char m[] = "test_s20_log_glock: hung (the log callback waited for prof__g_lock)\n";
    (void)sig;
    if (write(2, m, sizeof m - 1) < 0) {}
    _exit(1);
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    int round;
    signal(SIGALRM, on_alarm);
    alarm(30);
    memset(&cfg, 0, sizeof cfg);
    cfg.log = logger;
    for (round = 0; round < 2; round++) { /* the second: the thread already named */
        g_named = g_summary = 0;
        CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
        { PROF_SCOPE("closed"); }
        PROF_BEGIN("left open");
        ev = prof_stop();
        PROF_END();
        CHECK_EQ_INT(g_named, 1);
        CHECK_EQ_INT(g_summary, 1);
        CHECK(ev != NULL);
        CHECK_EQ_INT(prof_events_count(ev), 1);
        if (ev) {
            prof_event e;
            CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
            CHECK_EQ_STR(e.name, "closed");
            CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 1);
        }
        prof_events_free(ev);
    }
    /* the name set from the callback is the thread's */
    CHECK_EQ_INT(prof_start(NULL), PROF_OK);
    { PROF_SCOPE("named"); }
    ev = prof_stop();
    CHECK(ev != NULL);
    if (ev) {
        prof_event e;
        CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
        CHECK_EQ_STR(e.thread_name, "logger");
    }
    prof_events_free(ev);
    return check_report();
}
