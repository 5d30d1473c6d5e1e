/* fork() while another thread is inside prof_stop. The manual (SIGNALS):
   "A fork() is fine: the child starts with prof.h's locks free". The child
   then goes on with prof.h: it stops the session it inherited, starts a
   new one, records, stops it. The parent's results are its own.
   The fork is placed exactly with the test hooks of prof_stop
   (PROF__TEST_HOOKS): the stopping thread waits in the hook until another
   thread has forked.
   Found, in the child (the parent is fine):
   - forked after the snapshot (PROF__HOOK_SNAPPED): its prof_stop finds
     the collection the parent's prof_stop was making (prof__c_kept with a
     phase) and finishes it, returning the 1000 events recorded before the
     fork, but through the path for a collection kept by an out-of-memory
     prof_stop, which leaves prof__s.active alone (the failed prof_stop
     had cleared it; the fork caught it set). The session is never over:
     prof_start fails "a session is already running; call prof_stop
     first" (PROF_E_STATE) after a prof_stop that returned a list.
   - forked after recording ended, before the snapshot (PROF__HOOK_ENDED,
     the epoch is 0 and prof__c_kept.phase is still PROF__C_NONE: the
     hook, the clock's calibration, then the phase): its prof_stop returns
     NULL and reports nothing (no log message, no error code: the "no
     session" check in prof__end_recording returns NULL silently), and the
     1000 events recorded before the fork, still in its memory, are lost.
   - forked while the collection moves one of its arrays (a realloc whose
     new address prof.h has not stored yet: the list's events, cut to size
     in prof__c_order, placed by the allocator hook): the child's prof_stop goes on
     with the half-made collection as if it had been kept by an
     out-of-memory prof_stop, and frees or reallocs the old array again
     (a double free; a random fork during prof_stop showed the same under
     ASan, in prof__grow from prof__build_tree).
   Wanted: a prof_stop in the child either returns the events or reports
   why not, and after it the child can start a session (the lead may
   choose between the events and an error for the second case: the test
   accepts either, never a silent NULL), and it never goes on with a
   collection another thread was making (only one that a failed
   prof_stop kept). A fix: prof__atfork_child drops a collection that
   was running on another thread at the fork (a flag set while prof_stop
   collects; its memory is lost, the session is over: the child's
   prof_stop then says there is no session). Also: prof_stop's path for a
   kept collection clears prof__s.active once it returns a list (as the
   normal path does); prof__c_end sets its phase before anything a fork
   can catch it in (or prof__atfork_child finishes the step: a collector
   whose epoch is set and phase is NONE). Hangs end through alarm(10) in
   the child. */
#define _GNU_SOURCE 1
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The allocator hooks. The third case arms t_arm on the stopping thread:
   its next realloc of a block moves it (the old one freed) and waits
   there, before prof.h has stored the new address, until the fork is
   done: the realloc of the collection's event array (its list cut to
   size, prof__c_order), kept in the collector (prof__c_kept). In the
   child, a free or realloc of that old block is counted (g_double) and
   not done. */
static __thread int t_arm;
static void *g_freed;
static int g_in_child, g_double;
static void fork_here(void); /* (below: waits until main has forked) */
static int is_event_array(const void *p); /* (below: the collection's list's events) */
static void *test_realloc(void *p, size_t n) {
    if (g_in_child && p && p == g_freed) { g_double = 1; return malloc(n); }
    if (t_arm && p && n && is_event_array(p)) {
        void *q = malloc(n);
        size_t old = malloc_usable_size(p);
        t_arm = 0;
        if (!q) return NULL;
        memcpy(q, p, old < n ? old : n);
        g_freed = p; /* (kept as an address, compared only) */
        free(p);
        fork_here();
        return q;
    }
    return realloc(p, n);
}
static void test_free(void *p) {
    if (g_in_child && p && p == g_freed) { g_double = 1; return; }
    free(p);
}
#define PROF_MALLOC(n) malloc(n)
#define PROF_REALLOC(p, n) test_realloc(p, n)
#define PROF_FREE(p) test_free(p)

#define PROF__TEST_HOOKS
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_BEFORE 1000
#define N_CHILD 500

static int g_where, g_mode, g_req, g_done;
static int is_event_array(const void *p) { return prof__c_kept.e && p == (const void *)prof__c_kept.e->ev; }
static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static size_t g_parent_events, g_parent_a;

static void hook(int where) {
    if (where != g_where) return;
    if (g_mode) { /* at the stopper's next realloc instead */
        t_arm = 1;
        return;
    }
    fork_here();
}
static void fork_here(void) {
    pthread_mutex_lock(&g_m);
    g_req = 1;
    pthread_cond_broadcast(&g_cv);
    while (!g_done) pthread_cond_wait(&g_cv, &g_m);
    pthread_mutex_unlock(&g_m);
}

static size_t count_named(prof_events *e, const char *name) {
    size_t i, k = 0;
    for (i = 0; e && i < prof_events_count(e); i++) {
        prof_event x;
        if (prof_events_get(e, i, &x) == PROF_OK && strcmp(x.name, name) == 0) k++;
    }
    return k;
}

static void *stopper(void *arg) {
    prof_events *e = prof_stop();
    (void)arg;
    g_parent_events = e ? prof_events_count(e) : 0;
    g_parent_a = count_named(e, "before_fork");
    prof_events_free(e);
    return NULL;
}

/* The child's verdict: a letter for the first step that went wrong, 'y' when all went right. */
static char child(void) {
    prof_config cfg;
    prof_events *e;
    size_t logged;
    int i;
    prof__test_hook = NULL;
    g_in_child = 1;
    alarm(10);
    check_log_reset();
    e = prof_stop();
    if (g_double) return 'd';
    logged = check_log_total();
    if (e) {
        if (count_named(e, "before_fork") != N_BEFORE) return 'c'; /* a list, but not the events of the session */
        prof_events_free(e);
    } else if (!logged) {
        return 'n'; /* NULL and nothing said why */
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    if (prof_start(&cfg) != PROF_OK) return 's'; /* the child cannot start a session */
    for (i = 0; i < N_CHILD; i++) { PROF_SCOPE("child"); }
    if (!(e = prof_stop())) return 't';
    i = count_named(e, "child") == N_CHILD && prof_events_count(e) == N_CHILD;
    prof_events_free(e);
    return g_double ? 'd' : i ? 'y' : 'u';
}

static const char *verdict_text(char v) {
    switch (v) {
    case 'c': return "its prof_stop returned a list without the session's events";
    case 'n': return "its prof_stop returned NULL and reported nothing (the events recorded before the fork are lost)";
    case 's': return "prof_start failed after prof_stop (PROF_E_STATE: a session is already running)";
    case 't': return "its own session's prof_stop returned NULL";
    case 'u': return "its own session's list is not its events";
    case 'd': return "its prof_stop went on with the other thread's collection half-way through a change: it freed again a block that thread had already given back (a double free)";
    case 'y': return "ok";
    default: return "no verdict (a crash or a hang: SIGALRM)";
    }
}

/* lets the stopping thread leave the hook */
static void release(void) {
    pthread_mutex_lock(&g_m);
    g_done = 1;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_m);
}

static void run(int where, int mode, const char *name) {
    prof_config cfg;
    pthread_t t;
    int i, status;
    char verdict;
    g_where = where;
    g_mode = mode;
    g_req = g_done = 0;
    g_freed = NULL;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    cfg.record_shapes = 1; /* (records of shapes give the list room past its events: prof__c_order cuts it to size, the third case) */
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    for (i = 0; i < N_BEFORE; i++) { PROF_SCOPE_SHAPES("before_fork", 2, 3, 4, 2, 4, 5); }
    prof__test_hook = hook;
    if (!CHECK(pthread_create(&t, NULL, stopper, NULL) == 0)) return;
    {
        struct timespec until;
        int reached;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        pthread_mutex_lock(&g_m);
        while (!g_req && pthread_cond_timedwait(&g_cv, &g_m, &until) == 0) {} /* the other thread is at the hook, inside prof_stop */
        reached = g_req;
        pthread_mutex_unlock(&g_m);
        if (!CHECK_MSG(reached, "%s: prof_stop never reached the place of the fork", name)) {
            g_mode = 0;
            pthread_join(t, NULL);
            return;
        }
    }
    verdict = check_fork_verdict(child, release, &status);
    pthread_join(t, NULL);
    prof__test_hook = NULL;
    CHECK_MSG(verdict == 'y', "fork while another thread was in prof_stop (%s): the child: %s (status 0x%x)", name, verdict_text(verdict), status);
    /* the parent's results are its own */
    CHECK_EQ_INT(g_parent_a, N_BEFORE);
    CHECK_EQ_INT(g_parent_events, N_BEFORE);
}

int main(void) {
    prof_set_log(check_log, NULL);
    run(PROF__HOOK_SNAPPED, 0, "every thread snapshotted");
    run(PROF__HOOK_ENDED, 0, "recording ended, before the snapshot");
    run(PROF__HOOK_SNAPPED, 1, "the collection moving one of its arrays");
    return check_report();
}
