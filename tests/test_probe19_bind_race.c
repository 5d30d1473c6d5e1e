/* A thread that binds to a session while prof_stop snapshots the threads
   writes past prof_stop's snapshot array (heap corruption).

   prof__c_snapshot counts the threads whose bound_epoch is the session's,
   allocates that many snapshots, then walks the list again and writes one
   for every thread bound to the session at that moment. prof__g_lock keeps
   the list still, but not bound_epoch: prof__thread_bind reads the epoch,
   maps the thread's first block (mmap, prefault: long), and only then
   stores bound_epoch, with no lock and no second look at the epoch. A
   thread whose first scope began just before prof_stop cleared the epoch
   can store it between the two passes: the second pass finds one thread
   more than it made room for, and memsets and fills a prof__snap past the
   end of the array.

   Found by a hostile program: one thread cycling prof_start/prof_stop
   (and exporting), two threads recording with PROF_SCOPE_DYN and renaming
   themselves. ASan: heap-buffer-overflow, WRITE of size 80 in
   prof__c_snapshot (prof.h, the memset of the snapshot), in 2 of 3 runs
   of 3 s; the plain build aborted in free() ("invalid pointer").

   Made exact here with the allocator hooks: the new thread's first block
   header (PROF_MALLOC of a prof__block, inside prof__thread_bind) waits
   until prof_stop asks for its snapshot array (PROF_REALLOC, between the
   two passes); that array is handed out with a guard area behind it,
   checked when prof.h frees it. Wanted: nothing written past the array
   (the late thread is either in the session's snapshot or not, with the
   accounting exact). */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { GUARD = 4096 };
static size_t g_block_size, g_snap_size; /* set in main, from the implementation's types */
static __thread int tl_worker;
static pthread_t g_main;
static int g_armed;           /* prof_stop is running on main */
static int g_worker_in_bind;  /* the worker waits in its first block's allocation */
static int g_release;         /* ... until this is set */
static int g_worker_bound;    /* its scope began (bind returned) */
static void *g_guarded;       /* the snapshot array, with the guard behind it */
static size_t g_guarded_n;    /* its size: room for one or two threads */
static int g_guard_broken = -1; /* main thread only */

static void pause_ms(int ms) {
    struct timespec ts;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)ms * 1000000L;
    nanosleep(&ts, NULL);
}
static int wait_flag(int *flag, int ms) {
    int i;
    for (i = 0; i < ms && !__atomic_load_n(flag, __ATOMIC_ACQUIRE); i++) pause_ms(1);
    return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}
static void *test_malloc(size_t n) {
    if (tl_worker && n == g_block_size && !__atomic_load_n(&g_worker_in_bind, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&g_worker_in_bind, 1, __ATOMIC_RELEASE);
        wait_flag(&g_release, 1000); /* fixed: prof_stop waits for this bind, which then goes on after 1 s */
    }
    return malloc(n);
}
static void *test_realloc(void *p, size_t n) {
    if (!p && (n == g_snap_size || n == 2 * g_snap_size) && __atomic_load_n(&g_armed, __ATOMIC_ACQUIRE) && pthread_equal(pthread_self(), g_main) && !__atomic_load_n(&g_guarded, __ATOMIC_ACQUIRE)) {
        void *q;
        /* between prof__c_snapshot's count and its writes: let the worker
           finish binding, then hand out the array with a guard */
        __atomic_store_n(&g_release, 1, __ATOMIC_RELEASE);
        wait_flag(&g_worker_bound, 2000);
        if ((q = malloc(n + GUARD)) != NULL) memset((char *)q + n, 0xAB, GUARD);
        g_guarded_n = n;
        __atomic_store_n(&g_guarded, q, __ATOMIC_RELEASE);
        return q;
    }
    return realloc(p, n);
}
static void test_free(void *p) {
    if (p && p == __atomic_load_n(&g_guarded, __ATOMIC_ACQUIRE)) {
        size_t i;
        g_guard_broken = 0;
        for (i = 0; i < GUARD; i++)
            if (((unsigned char *)p)[g_guarded_n + i] != 0xAB) { g_guard_broken = 1; break; }
        __atomic_store_n(&g_guarded, (void *)NULL, __ATOMIC_RELEASE);
    }
    free(p);
}
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) test_realloc((p), (n))
#define PROF_FREE(p) test_free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static void *worker(void *arg) {
    (void)arg;
    tl_worker = 1;
    {
        PROF_SCOPE("late");
        __atomic_store_n(&g_worker_bound, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t t;
    g_block_size = sizeof(prof__block);
    g_snap_size = sizeof(prof__snap);
    g_main = pthread_self();
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.no_prefault_thread = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    { PROF_SCOPE("main"); }
    if (!CHECK_EQ_INT(pthread_create(&t, NULL, worker, NULL), 0)) return check_report();
    if (!CHECK(wait_flag(&g_worker_in_bind, 5000))) return check_report();
    __atomic_store_n(&g_armed, 1, __ATOMIC_RELEASE);
    ev = prof_stop();
    __atomic_store_n(&g_armed, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&g_release, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    CHECK(ev != NULL);
    if (ev) {
        st = prof_events_stats(ev);
        CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
        prof_events_free(ev);
    }
    prof_shutdown();
    prof__collector_free(&prof__c_kept); /* hands the array back through test_free */
    printf("snapshot array: %s\n", g_guard_broken < 0 ? "not checked (kept)" : g_guard_broken ? "written past its end" : "intact");
    CHECK(g_guard_broken == 0);
    return check_report();
}
