/* A process that used CUPTI in an earlier session (stopped: unsubscribed,
   finalized) forks. CUDA does not cross a fork (a child of a process that
   used it cannot), so the child must call CUPTI no more: prof.h marked the
   child only when CUPTI was subscribed or enabled at the fork, so a child
   forked after a stop (a DataLoader's workers after a profiled epoch)
   subscribed again in its own prof_start. Wanted: the child's session
   makes no CUPTI call, records its CPU scope and says once that CUDA is
   not recorded. (Found in review.) */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

#include <sys/wait.h>
#include <unistd.h>

static int cupti_calls(void) {
    static const char *const apis[] = { "cuptiSubscribe", "cuptiActivityEnable", "cuptiActivityFlushAll",
                                        "cuptiUnsubscribe", "cuptiFinalize" };
    size_t k;
    int n = 0;
    for (k = 0; k < sizeof apis / sizeof apis[0]; k++) n += fake_cupti_call_count(apis[k]);
    return n;
}

static prof_config g_cfg;

static char child(void) {
    int calls0 = cupti_calls();
    prof_events *ev;
    size_t i, scopes = 0;
#if defined(TEST_TSAN)
    return '0'; /* TSan refuses the child of a multi-threaded fork its own work (as test_probe24A_fork_cupti_lock) */
#endif
    if (prof_start(&g_cfg) != PROF_OK) return '2';
    { PROF_SCOPE("child"); }
    ev = prof_stop();
    if (!ev) return '3';
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, "child") == 0) scopes++;
    }
    prof_events_free(ev);
    if (scopes != 1) return '4';
    if (cupti_calls() != calls0) return '5';
    if (!check_log_has(PROF_E_CUPTI, "forked from one that used CUDA")) return '6';
    return '0';
}
static void nothing(void) {}

int main(void) {
    prof_events *ev;
    int status;
    char verdict;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    memset(&g_cfg, 0, sizeof g_cfg);
    g_cfg.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    g_cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&g_cfg), PROF_OK)) return check_report();
    { PROF_SCOPE("parent"); }
    ev = prof_stop();
    CHECK(ev != NULL);
    prof_events_free(ev);
    CHECK(fake_cupti_call_count("cuptiSubscribe") >= 1); /* the parent used CUPTI */
    verdict = check_fork_verdict(child, nothing, &status);
    CHECK_MSG(verdict == '0', "the child of a process that used CUPTI: verdict %c (5: it called CUPTI; 6: no word why CUDA is not recorded)",
              verdict ? verdict : '?');
    prof_shutdown();
    return check_report();
}
