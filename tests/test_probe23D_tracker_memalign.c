/* An in-process malloc tracker (as test_probe23C_malloc_tracker) that also
   interposes posix_memalign, as full trackers do, reporting each block with
   prof_alloc under its thread-local recursion guard. 2cee4c0 marks the
   thread (prof__in_alloc) around every PROF_MALLOC/REALLOC/FREE, so that
   prof.h's own blocks are not tracked (the manual, PROF_MALLOC: "prof.h
   marks the thread while it calls the allocator, and there those
   prof_alloc/prof_dealloc calls are not tracked"); but with the default
   allocator prof.h also calls posix_memalign itself, unmarked: prof__attach
   (the thread's state) and prof__malloc_huge_from (arrays of 2 MiB and
   more). A worker whose first prof.h call is a PROF_SCOPE: prof__attach ->
   posix_memalign -> the tracker -> prof_alloc -> prof__mem_record ->
   prof__thread_get finds no state yet -> prof__attach again (the guard is
   set now, so it returns): the thread gets a second state, bound and
   recording the tracker's report of prof.h's own state block; the outer
   attach then makes the first one and takes the thread's key from it. So
   stats.allocs counts prof.h's block, the session counts 3 threads for 2,
   and the inner state never gets its thread's exit (its key was
   replaced): it stays in the thread list for the process. glibc only,
   not under the sanitizers (their interceptors own malloc). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#define TRACKER_MEMALIGN
#include "malloc_tracker.h"

#if defined(TRACKER)
static void *worker(void *arg) {
    (void)arg;
    { PROF_SCOPE("w"); }
    return NULL;
}
#endif

int main(void) {
#if defined(TRACKER)
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t th;
    size_t k, n, w = 0;
    prof_set_log(check_log, NULL);
    tracking = 1;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    { PROF_SCOPE("main"); }
    if (!CHECK_EQ_INT(pthread_create(&th, NULL, worker, NULL), 0)) return check_report();
    pthread_join(th, NULL);
    ev = prof_stop();
    tracking = 0;
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.allocs, 0);  /* nothing the program allocated; prof.h's own state blocks are not tracked */
    CHECK_EQ_INT(st.threads, 2); /* main and the worker, once each */
    n = prof_events_count(ev);
    for (k = 0; k < n; k++) {
        prof_event e;
        if (prof_events_get(ev, k, &e) == PROF_OK && strcmp(e.name, "w") == 0) w++;
    }
    CHECK_EQ_INT(w, 1);
    prof_events_free(ev);
    /* a second session reaps the exited worker: main's state alone is left */
    if (CHECK_EQ_INT(prof_start(&cfg), PROF_OK) && CHECK((ev = prof_stop()) != NULL)) prof_events_free(ev);
    {
        prof__tstate *t;
        size_t states = 0;
        pthread_mutex_lock(&prof__g_lock);
        for (t = prof__g.threads; t; t = t->next) states++;
        pthread_mutex_unlock(&prof__g_lock);
        CHECK_EQ_INT(states, 1);
    }
#else
    printf("test_probe23D_tracker_memalign: no glibc, or a sanitizer: skipped\n");
    CHECK(1);
#endif
    return check_report();
}
