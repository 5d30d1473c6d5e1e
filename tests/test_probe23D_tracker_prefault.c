/* An in-process malloc tracker (test_probe23C_malloc_tracker's: malloc,
   calloc, realloc, free over glibc's __libc_*, each block reported with
   prof_alloc/prof_dealloc under a thread-local guard), profile_memory on,
   and one thread that records 70000 scopes. It hangs at the 65025th
   record: prof__grow_n, needing the thread's 65536-record block, calls
   prof__pf_kick, which starts the prefault helper (prof__spawn) with
   prof__pf_lock held; pthread_attr_setaffinity_np callocs the attribute's
   extension (pthread_create allocates too), outside the prof__in_alloc
   mark of 2cee4c0; the tracker's prof_alloc -> prof__mem_record ->
   prof__slots finds the same block still full -> prof__grow_n ->
   prof__pf_kick -> pthread_mutex_lock(&prof__pf_lock), held by this very
   thread (gdb: prof__pf_kick <- prof__grow_n <- prof__slots <-
   prof__mem_record <- prof_alloc <- calloc <- __pthread_attr_extension <-
   pthread_attr_setaffinity_np <- prof__spawn <- prof__pf_kick_locked <-
   prof__pf_kick <- prof__grow_n <- prof__leave_slow). Every program with
   such a tracker that records ~65000 events on a thread hangs (the probe23C
   test records 60000 and just misses it). Runs in a child with an alarm;
   glibc only, not under the sanitizers. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include "malloc_tracker.h"

#if defined(TRACKER)
#define SCOPES 70000
static void *worker(void *arg) {
    int i;
    (void)arg;
    for (i = 0; i < SCOPES; i++) { PROF_SCOPE("w"); }
    return NULL;
}
static char run_child(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    size_t k, n, w = 0;
    alarm(10); /* a hang ends the child: no verdict */
    tracking = 1;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (prof_start(&cfg) != PROF_OK) return 'S';
    if (pthread_create(&th, NULL, worker, NULL) != 0) return 'T';
    pthread_join(th, NULL);
    if (!(ev = prof_stop())) return 'N';
    n = prof_events_count(ev);
    for (k = 0; k < n; k++) {
        prof_event e;
        if (prof_events_get(ev, k, &e) != PROF_OK) return 'G';
        if (strcmp(e.name, "w") == 0) w++;
    }
    prof_events_free(ev);
    return w == SCOPES ? 'Y' : 'C';
}
static void no_release(void) {}
#endif

int main(void) {
#if defined(TRACKER)
    int st;
    char v = check_fork_verdict(run_child, no_release, &st);
    if (v != 'Y')
        fprintf(stderr, "verdict %c, child %s %d\n", v ? v : '-', WIFSIGNALED(st) ? "killed by signal" : "exit status",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    CHECK_EQ_INT(v, 'Y');
#else
    printf("test_probe23D_tracker_prefault: no glibc, or a sanitizer: skipped\n");
    CHECK(1);
#endif
    return check_report();
}
