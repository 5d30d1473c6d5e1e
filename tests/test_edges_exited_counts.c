/* The counts of threads that exit with no record block (prof.h frees
   their state at once and keeps only their counts, prof__g.exited):
   - a thread that bound without a block (its first call was a PROF_END
     with no PROF_BEGIN, after the cap had spent the budget), then began a
     PROF_BEGIN range with budget another thread gave back on exit, and
     exited with that range open: the range counts in open_at_stop, so
     that scopes_entered == scopes_recorded + scopes_dropped + open_at_stop
     (prof_stats documents each);
   - threads whose scopes the cap refused all, and one that only ended a
     scope it never began, count in prof_stats.threads ("those whose
     records yield no event included").
   Found by mutation testing: dropping the exited threads' share of the
   open count, or their thread count, left every other test passing. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <semaphore.h>
#include <string.h>

static sem_t a_go, a_done, b_bound, b_go;
static void *thread_a(void *p) {
    (void)p;
    { PROF_SCOPE("a_scope"); } /* takes a share of the budget, most of it unused */
    sem_post(&a_done);
    sem_wait(&a_go);
    return NULL; /* gives the unused share back */
}
static void *thread_b(void *p) {
    (void)p;
    PROF_END(); /* unbalanced: binds the thread, with no block (the budget is spent) */
    sem_post(&b_bound);
    sem_wait(&b_go);
    PROF_BEGIN("b_open"); /* admitted with what thread a gave back */
    return NULL;          /* exits with it open and no block */
}

static void open_range_of_exited_thread(void) {
    pthread_t ta, tb;
    prof_events *ev;
    prof_stats st;
    prof_config cfg;
    int i;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = 1000;
    sem_init(&a_go, 0, 0);
    sem_init(&a_done, 0, 0);
    sem_init(&b_bound, 0, 0);
    sem_init(&b_go, 0, 0);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    pthread_create(&ta, NULL, thread_a, NULL);
    sem_wait(&a_done);
    for (i = 0; i < 3000; i++) { PROF_SCOPE("fill"); } /* past the cap */
    pthread_create(&tb, NULL, thread_b, NULL);
    sem_wait(&b_bound);
    sem_post(&a_go);
    pthread_join(ta, NULL);
    sem_post(&b_go);
    pthread_join(tb, NULL);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.unbalanced_ends, 1);
    CHECK_EQ_INT(st.open_at_stop, 1);
    CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
    CHECK_EQ_INT(st.threads, 3);
    prof_events_free(ev);
    sem_destroy(&a_go);
    sem_destroy(&a_done);
    sem_destroy(&b_bound);
    sem_destroy(&b_go);
}

static void *only_end(void *p) { (void)p; PROF_END(); return NULL; }
static void *all_capped(void *p) {
    (void)p;
    { PROF_SCOPE("capped"); }
    { PROF_SCOPE("capped"); }
    return NULL;
}
/* max_events 1: the main thread's scope takes it; the other two threads
   record nothing and exit before prof_stop. */
static void threads_without_records(void) {
    pthread_t t;
    prof_events *ev;
    prof_stats st;
    prof_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    { PROF_SCOPE("main_scope"); }
    pthread_create(&t, NULL, only_end, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, all_capped, NULL);
    pthread_join(t, NULL);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_INT(st.threads, 3);
    CHECK_EQ_INT(st.unbalanced_ends, 1);
    CHECK_EQ_INT(st.scopes_dropped, 2);
    CHECK_EQ_INT(st.open_at_stop, 0);
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    open_range_of_exited_thread();
    threads_without_records();
    return check_report();
}
