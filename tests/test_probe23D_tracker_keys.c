/* An in-process malloc tracker (test_probe23C_malloc_tracker's: malloc,
   calloc, realloc, free over glibc's __libc_*, each block reported with
   prof_alloc/prof_dealloc under a thread-local guard) in a program that
   has made 32 or more pthread keys before prof.h makes its own (libraries
   make keys: OpenMP, CUDA, MPI, ...). prof_start hangs: prof__attach
   calls pthread_setspecific with prof__g_lock held and outside the
   prof__in_alloc mark of 2cee4c0; glibc's pthread_setspecific callocs the
   thread's second-level key array for a key >= 32; the tracker reports it
   with prof_alloc -> prof__mem_record -> prof__thread_get, which finds no
   state yet (prof__tls is set after the key) -> prof__attach ->
   pthread_mutex_lock(&prof__g_lock), held by this thread (gdb:
   prof__attach <- prof__thread_get <- prof__mem_record <- prof_alloc <-
   calloc <- pthread_setspecific <- prof__attach <- prof__thread_bind <-
   prof__begin_recording). Every new thread's first scope does the same.
   Runs in a child with an alarm; glibc only, not under the sanitizers. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include "malloc_tracker.h"

#if defined(TRACKER)
static void *worker(void *arg) {
    (void)arg;
    { PROF_SCOPE("w"); }
    return NULL;
}
static char run_child(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_key_t key;
    pthread_t th;
    size_t k, n, w = 0;
    int i;
    alarm(10); /* a hang ends the child: no verdict */
    for (i = 0; i < 40; i++)
        if (pthread_key_create(&key, NULL) != 0) return 'K'; /* the program's (its libraries') keys */
    tracking = 1;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (prof_start(&cfg) != PROF_OK) return 'S';
    { PROF_SCOPE("main"); }
    if (pthread_create(&th, NULL, worker, NULL) != 0) return 'T';
    pthread_join(th, NULL);
    if (!(ev = prof_stop())) return 'N';
    n = prof_events_count(ev);
    for (k = 0; k < n; k++) {
        prof_event e;
        if (prof_events_get(ev, k, &e) != PROF_OK) return 'G';
        if (strcmp(e.name, "w") == 0 || strcmp(e.name, "main") == 0) w++;
    }
    prof_events_free(ev);
    return w == 2 ? 'Y' : 'C';
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
    printf("test_probe23D_tracker_keys: no glibc, or a sanitizer: skipped\n");
    CHECK(1);
#endif
    return check_report();
}
