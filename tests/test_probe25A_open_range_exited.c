/* test_probe25A_open_range_exited.c - a PROF_BEGIN range left open by a
   worker thread that then exits (a pool task that forgot its PROF_END, a
   std::thread whose function returned early) is not named at prof_stop.

   prof_stop names the calling thread's open PROF_BEGIN ranges, a line per
   site: 'prof_stop: PROF_BEGIN("main_range") at FILE:LINE is still open;
   it is not in the profile' (prof__c_name_open, prof.h ~6663: "the calling
   thread's still-open PROF_BEGIN ranges"). For a thread that exited with
   one open, prof__thread_exit frees the range stack (PROF__FREE(t->open),
   prof.h ~4843), so the stop says only "1 scope was still open; ...
   (still running then, as on another thread or across a step; or jumped
   over by longjmp, ...)": no site, no hint that it is a PROF_BEGIN
   without its PROF_END, though prof.h knew both when the thread exited
   (the range and its site are in the stack it frees). The thread is gone,
   so nothing races the naming. A user of a thread pool has no way to find
   which range leaked.

   Correct: the range is counted open (it is) and named as the calling
   thread's are, e.g. 'PROF_BEGIN("worker_range") at ...:LINE is still open'.
   The counts are checked too (they are right today). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static void *worker(void *arg) {
    (void)arg;
    { PROF_SCOPE("worker_scope"); }
    PROF_BEGIN("worker_range"); /* no PROF_END: the thread returns with it open */
    { PROF_SCOPE("inside_range"); }
    return NULL;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    memset(&cfg, 0, sizeof cfg);
    prof_set_log(check_log, NULL);
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    CHECK_EQ_INT(pthread_create(&th, NULL, worker, NULL), 0);
    CHECK_EQ_INT(pthread_join(th, NULL), 0);
    PROF_BEGIN("main_range"); /* the calling thread's: named today */
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 2);
    CHECK_EQ_INT(prof_events_count(ev), 2); /* worker_scope, inside_range */
    CHECK(check_log_find(PROF_E_OPEN_SCOPES, "PROF_BEGIN(\"main_range\")", NULL));
    CHECK(check_log_find(PROF_E_OPEN_SCOPES, "PROF_BEGIN(\"worker_range\")", NULL));
    prof_events_free(ev);
    PROF_END();
    return check_report();
}
