/* prof_stats.threads is "threads that recorded", but a thread that records
   again from a TLS destructor that runs after prof.h's own (a thread-local
   cache freed with prof_free, a scope in a cleanup handler: test_thread_churn
   does this) gets a second recorder state and is counted twice. Its events
   carry one thread id and the traces show one thread (names merged by id),
   so the count disagrees with the list it describes: here 2 threads
   recorded and threads says 3. Wanted: threads counts distinct threads
   (ids) that recorded. */
#include "prof.h"
#include "check.h"

static pthread_key_t g_key;

static void late_dtor(void *p) {
    (void)p;
    { PROF_SCOPE("in dtor"); } /* after prof.h's destructor: a new state */
}
static void *worker(void *arg) {
    (void)arg;
    { PROF_SCOPE("first"); } /* attaches: prof.h's key is created before g_key */
    pthread_setspecific(g_key, (void *)1);
    return NULL;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t t;
    size_t i, n, tids = 0;
    uint64_t seen[4];
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    { PROF_SCOPE("main"); } /* prof.h's key exists from here */
    pthread_key_create(&g_key, late_dtor);
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        size_t k;
        if (prof_events_get(ev, i, &e) != PROF_OK) continue;
        for (k = 0; k < tids && seen[k] != e.thread; k++) {}
        if (k == tids && tids < 4) seen[tids++] = e.thread;
    }
    printf("%zu events on %zu thread ids; prof_stats.threads %llu\n", n, tids, (unsigned long long)st.threads);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(tids, 2);
    CHECK_EQ_INT(st.threads, tids);
    prof_events_free(ev);
    return check_report();
}
