/* An in-process malloc tracker, the common way to profile every
   allocation: the program defines malloc/calloc/realloc/free over glibc's
   __libc_* functions and reports each block with prof_alloc/prof_dealloc,
   with the usual thread-local guard against its own recursion. prof.h is
   built with its default allocator, so its own mallocs reach the tracker
   too. Once the program also reports blocks of a pool of its own with
   prof_alloc (called directly: the guard is not set), it hangs:
   prof__live_put holds the shard's lock and grows the shard through
   prof__live_rehash -> malloc -> the tracker -> prof_alloc ->
   prof__live_put, which waits for a shard lock this thread holds (gdb:
   two prof__live_put frames, futex_wait on prof__g_live). Runs in a child
   with an alarm; glibc only, and not under the sanitizers (whose
   interceptors own malloc). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include "malloc_tracker.h"

#if defined(TRACKER)
#define POOL 20000
static char run_child(void) {
    prof_config cfg;
    prof_events *ev;
    uintptr_t i;
    size_t n, k, gets = 0;
    alarm(10); /* a hang ends the child: no verdict */
    tracking = 1;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (prof_start(&cfg) != PROF_OK) return 'S';
    for (i = 1; i <= POOL; i++) { /* the pool's blocks, reported by hand */
        PROF_SCOPE("pool_get");
        prof_alloc((const void *)(i << 6), 64);
    }
    if (!(ev = prof_stop())) return 'N';
    n = prof_events_count(ev);
    for (k = 0; k < n; k++) {
        prof_event e;
        if (prof_events_get(ev, k, &e) != PROF_OK) return 'G';
        if (strcmp(e.name, "pool_get") == 0) {
            gets++;
            if (e.cpu_memory_usage < 64) return 'M'; /* its block (and any malloc of prof.h's inside it) */
        }
    }
    prof_events_free(ev);
    for (i = 1; i <= POOL; i++) prof_dealloc((const void *)(i << 6));
    prof_shutdown();
    return gets == POOL ? 'Y' : 'C';
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
    printf("test_probe23C_malloc_tracker: no glibc, or a sanitizer: skipped\n");
    CHECK(1);
#endif
    return check_report();
}
