/* Threads that record from another library's pthread-key destructors,
   run after prof.h's own (its "late" thread states):
   - prof_stats.threads counts each thread once. glibc runs the
     destructors up to 4 times, and a destructor that records and sets its
     key again makes a late state on each pass; when the thread recorded in
     the session only there, each of those counted (3 workers: threads 13
     instead of 4).
   - Another thread's exit reaps late states under the lock while their
     threads, still in their destructors, bind to the session without it:
     the binding is read atomically (TSan reported a data race on
     bound_epoch; the _tsan build of this test checks it). */
#define _GNU_SOURCE
#include "prof.h"
#include "check.h"
#include <pthread.h>

#define NT 3
static pthread_key_t key;
static pthread_barrier_t b1, b2;

static void rearm(void *p) {
    { PROF_SCOPE("in_key_destructor"); }
    pthread_setspecific(key, p); /* again: the next pass runs it too */
}
static void *worker(void *a) {
    (void)a;
    pthread_barrier_wait(&b1);
    { PROF_SCOPE("before_session"); } /* a state, in the first session */
    pthread_barrier_wait(&b2);        /* main: prof_stop, prof_start */
    pthread_barrier_wait(&b1);
    pthread_setspecific(key, (void *)1);
    return NULL;                      /* records 4 times on its way out */
}
static void test_late_counted_once(void) {
    prof_config c;
    pthread_t t[NT];
    prof_events *ev;
    prof_stats st;
    int i;
    memset(&c, 0, sizeof c);
    pthread_barrier_init(&b1, NULL, NT + 1);
    pthread_barrier_init(&b2, NULL, NT + 1);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("main"); }                    /* prof.h's key first, then ours */
    CHECK_EQ_INT(pthread_key_create(&key, rearm), 0);
    for (i = 0; i < NT; i++) CHECK_EQ_INT(pthread_create(&t[i], NULL, worker, NULL), 0);
    pthread_barrier_wait(&b1);
    pthread_barrier_wait(&b2);
    prof_events_free(prof_stop());
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("main2"); }
    pthread_barrier_wait(&b1);
    for (i = 0; i < NT; i++) pthread_join(t[i], NULL);
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        st = prof_events_stats(ev);
        CHECK_EQ_INT(st.scopes_recorded, 1 + 4 * NT);
        CHECK_EQ_INT(st.scopes_entered, 1 + 4 * NT);
        CHECK_EQ_INT(st.threads, 1 + NT);
        prof_events_free(ev);
    }
    pthread_key_delete(key);
    pthread_barrier_destroy(&b1);
    pthread_barrier_destroy(&b2);
}

/* Rounds of threads that record, then once more from a late destructor,
   while earlier rounds' late states are reaped by the next threads'
   exits. */
static pthread_key_t key2;
static void once(void *p) { (void)p; PROF_SCOPE("late_once"); }
static void *short_worker(void *a) {
    (void)a;
    { PROF_SCOPE("body"); } /* its state first: the destructor's is a late one */
    pthread_setspecific(key2, (void *)1);
    return NULL;
}
static void test_late_reaped_while_binding(void) {
    prof_config c;
    prof_events *ev;
    int r, i;
    memset(&c, 0, sizeof c);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("main"); }
    CHECK_EQ_INT(pthread_key_create(&key2, once), 0);
    for (r = 0; r < 100; r++) {
        pthread_t t[8];
        for (i = 0; i < 8; i++) CHECK_EQ_INT(pthread_create(&t[i], NULL, short_worker, NULL), 0);
        for (i = 0; i < 8; i++) pthread_join(t[i], NULL);
    }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        prof_stats st = prof_events_stats(ev);
        CHECK_EQ_INT(st.scopes_recorded, 1 + 2 * 800);
        CHECK_EQ_INT(st.scopes_entered, 1 + 2 * 800);
        CHECK_EQ_INT(st.threads, 1 + 800);
        prof_events_free(ev);
    }
    pthread_key_delete(key2);
}


int main(void) {
#if defined(TEST_TSAN)
    /* TSan's own key destructor tears the thread's allocator down before
       the last pass, whose malloc (anyone's) then crashes inside TSan */
    printf("# test_late_counted_once skipped under TSan\n");
    (void)test_late_counted_once;
#else
    test_late_counted_once();
#endif
    test_late_reaped_while_binding();
    prof_shutdown();
    return check_report();
}
