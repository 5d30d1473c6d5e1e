/* Threads that come and go (one per request) during a long session whose
   max_events is reached: each thread that exits having recorded nothing
   (every scope it entered was refused by the cap) still keeps its whole
   thread state (prof__tstate, 408 bytes on x86-64) until prof_stop, in
   prof__thread_exit (the `live` branch keeps every state bound to the
   recording session, records or none). So past the cap memory grows by
   one state per thread, without bound: 5000 such threads held 2 MB here,
   a server profiling a million requests would hold 400 MB, though the
   manual says max_events bounds what is kept and "threads that come and
   go cost memory for the events kept, not for the threads".

   Correct: a thread that exits bound to the session with no records
   gives its state back at exit (its counts, scopes entered and dropped,
   folded into the session's totals so prof_stats stays exact); what
   prof.h holds after 400 such threads equals what it held after 200.
   Measured with allocator hooks that count the live bytes prof.h holds.
   Fixed: such a thread's counts go to the session's (prof__g.exited) and
   its state goes at exit; prof_stats is as it was. */
#define _GNU_SOURCE 1
#define FAIL_ALLOC_COUNT_LIVE /* g_live: the bytes prof.h holds */
#include "fail_alloc.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static void *request(void *arg) {
    int i;
    (void)arg;
    for (i = 0; i < 3; i++) { PROF_SCOPE("request"); }
    return NULL;
}
static void one_thread(void) {
    pthread_t th;
    if (!CHECK(pthread_create(&th, NULL, request, NULL) == 0)) return;
    pthread_join(th, NULL);
}
static long live(void) { return __atomic_load_n(&g_live, __ATOMIC_RELAXED); }

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    long at200 = 0, at400;
    int i;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = 64;
    cfg.log = check_log;
    cfg.no_prefault_thread = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    { int k; for (k = 0; k < 200; k++) { PROF_SCOPE("fill"); } } /* the cap is spent here */
    for (i = 1; i <= 400; i++) {
        one_thread();
        if (i == 200) at200 = live();
    }
    at400 = live();
    printf("past the cap: %ld bytes grown over threads 201-400 (%.1f per thread)\n", at400 - at200, (at400 - at200) / 200.0);
    CHECK_EQ_INT(at400, at200);
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        st = prof_events_stats(ev);
        CHECK_EQ_INT(st.scopes_entered, 200 + 400 * 3);
        CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
        CHECK(st.scopes_recorded <= 64);
        CHECK_EQ_INT(st.scopes_dropped, 200 + 400 * 3 - st.scopes_recorded); /* none open */
        CHECK_EQ_INT(st.open_at_stop, 0);
        CHECK_EQ_INT(st.threads, 401); /* the exited ones counted as before */
        prof_events_free(ev);
    }
    prof_shutdown();
    return check_report();
}
