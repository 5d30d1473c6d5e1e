/* A window ends when prof_stop (or prof_step) is called, not when the
   prefault helper is done: prof_stop joined the helper first, and it may
   be mapping and faulting in an 8 MiB block (milliseconds, more on a
   loaded host) while the other threads record on; their scopes of that
   time were kept as the window's (found in zstd -T4 with prof_step in its
   frame loop: 25k of a window's 136k events began up to 15.8 ms after the
   window's last step had ended). Recording now ends first.
   Here the helper is held inside its mmap (the test defines mmap: the
   executable's definition comes first) until a worker has run a scope
   "late", begun 300 ms after prof_stop was called: the list must not hold
   it. Not under TSan, whose runtime maps memory before anything is set
   up (it skips there). */
#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "sanitizers.h"
#if defined(TEST_TSAN)
#  define NO_HOOKS 1 /* TSan interposes mmap and posix_memalign itself */
#endif
#if defined(NO_HOOKS)
#  define HOOKS 0
#else
#  define HOOKS 1
#endif

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
static pthread_t g_main, g_worker;
static int g_armed, g_in_mmap, g_stop_called, g_late_done, g_quit, g_have_worker;
static int64_t g_stop_ms;
#define LOAD(p) __atomic_load_n(p, __ATOMIC_SEQ_CST)
#define STORE(p, v) __atomic_store_n(p, v, __ATOMIC_SEQ_CST)

#if !defined(NO_HOOKS)
/* The helper's map (any thread but these two), once armed: held until the
   worker's late scope is done (5 s at most). */
void *mmap(void *a, size_t l, int p, int f, int fd, off_t o) {
    if (LOAD(&g_armed) && LOAD(&g_have_worker) && !pthread_equal(pthread_self(), g_main) && !pthread_equal(pthread_self(), g_worker)) {
        int64_t t0 = mono_ms();
        STORE(&g_in_mmap, 1);
        while (!LOAD(&g_late_done) && mono_ms() - t0 < 5000) {
            struct timespec ts = { 0, 1000000 };
            nanosleep(&ts, NULL);
        }
        STORE(&g_armed, 0);
    }
    return (void *)syscall(SYS_mmap, a, l, p, f, fd, o);
}
#endif

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <string.h>

static volatile unsigned long g_sink;
static unsigned long g_scopes;
static void spin(void) {
    int k;
    for (k = 0; k < 300; k++) g_sink++;
}
static void *worker(void *arg) {
    unsigned long i = 0;
    (void)arg;
    while (!LOAD(&g_quit)) {
        if (LOAD(&g_stop_called) && !LOAD(&g_late_done) && mono_ms() - g_stop_ms >= 300) {
            { PROF_SCOPE("late"); spin(); }
            STORE(&g_late_done, 1);
        }
        {
            PROF_SCOPE("work");
            if (i > 1000000) spin(); /* fast to the largest blocks, then about 1M scopes a second */
        }
        STORE(&g_scopes, ++i);
    }
    return NULL;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    size_t n, i, late = 0, work = 0;
    int64_t t0;
    if (!HOOKS) {
        puts("skipped: the test's mmap cannot be defined under TSan");
        return 77;
    }
    memset(&cfg, 0, sizeof cfg);
    g_main = pthread_self();
    prof_set_log(check_log, NULL);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    if (!CHECK(pthread_create(&g_worker, NULL, worker, NULL) == 0)) return check_report();
    STORE(&g_have_worker, 1);
    for (t0 = mono_ms(); LOAD(&g_scopes) < 1000000 && mono_ms() - t0 < 20000;) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    STORE(&g_armed, 1);
    /* the helper maps its next block once the worker takes a ready one */
    for (t0 = mono_ms(); !LOAD(&g_in_mmap) && mono_ms() - t0 < 20000;) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    if (!CHECK_MSG(LOAD(&g_in_mmap), "the prefault helper mapped no block in 20 s")) STORE(&g_late_done, 1);
    g_stop_ms = mono_ms();
    STORE(&g_stop_called, 1);
    ev = prof_stop();
    STORE(&g_quit, 1);
    CHECK(pthread_join(g_worker, NULL) == 0);
    CHECK(LOAD(&g_late_done));
    if (!CHECK(ev != NULL)) return check_report();
    n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        prof_events_get(ev, i, &e);
        late += strcmp(e.name, "late") == 0;
        work += strcmp(e.name, "work") == 0;
    }
    if (!CHECK_EQ_INT(late, 0)) fprintf(stderr, "a scope begun 300 ms after prof_stop was called is in its list\n");
    CHECK(work >= 1000000);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
