/* fork() while another thread is inside prof_start, clearing the metadata
   of the session before (prof__meta_clear_locked, under prof__g_lock).
   The manual (SIGNALS): "A fork() is fine: the child starts with prof.h's
   locks free and its memory table whole."
   Found: prof__atfork_child re-makes prof__g_lock free, but what the lock
   guards may be caught in the middle of a change. prof__meta_clear_locked
   frees a key's name and value before it takes the node off the list
   (prof__g_meta still points at it): a child forked between the two holds
   a list whose first node names freed memory. Its next prof_start clears
   the list again and frees them a second time (glibc: "free(): double
   free detected" where it notices, SIGABRT; ASan: attempting
   double-free; the test's allocator hook counts it in every build); a
   prof_stop copies them first (a read after free). Here the allocator hook holds
   the other thread between the frees until the fork is done (at most 1 s:
   a prof.h that takes its locks around the fork makes the fork wait for
   the clear instead, which is fine), so the timing is exact; in a real
   program the window is a few frees long.
   Wanted: the child's list is whole (empty, or as before the clear), and
   it runs a session with metadata of its own. A fix: take the node off
   the list before freeing it (prof__g_meta = n first), or take
   prof__g_lock in the atfork prepare handler and give it back in the
   parent and the child, as the memory shards are (every structure it
   guards is then whole at the fork). */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* The allocator hook: on the thread that sets t_hold, the free after
   t_hold frees (the key's name and value: the third is the node) waits
   until main has forked, or for 1 s. */
static __thread int t_hold;
static int g_inside, g_forked;
static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static void *g_freed[2];   /* what the other thread freed before it waited */
static int g_in_child, g_double;
static void test_free(void *p) {
    if (g_in_child && p && (p == g_freed[0] || p == g_freed[1])) {
        g_double = 1; /* freed again: counted, not done (glibc need not notice: the block sits in the other thread's tcache) */
        return;
    }
    if (t_hold && p && t_hold > 1) g_freed[3 - t_hold] = p;
    if (t_hold && p && --t_hold == 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_mutex_lock(&g_m);
        g_inside = 1;
        pthread_cond_broadcast(&g_cv);
        while (!g_forked && pthread_cond_timedwait(&g_cv, &g_m, &until) == 0) {}
        pthread_mutex_unlock(&g_m);
    }
    free(p);
}
#define PROF_MALLOC(n) malloc(n)
#define PROF_REALLOC(p, n) realloc(p, n)
#define PROF_FREE(p) test_free(p)

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void *starter(void *arg) {
    prof_config cfg;
    (void)arg;
    memset(&cfg, 0, sizeof cfg);
    t_hold = 3; /* prof_start clears the one key: its name, its value, then the node */
    if (prof_start(&cfg) == PROF_OK) prof_events_free(prof_stop());
    t_hold = 0;
    return NULL;
}

/* The child: a session with metadata of its own, its trace, another session. */
static char child(void) {
    prof_config cfg;
    prof_events *ev;
    int ok;
    alarm(10);
    g_in_child = 1;
    memset(&cfg, 0, sizeof cfg);
    /* (a prof.h that waits at the fork for the other thread's clear may
       fork once its prof_start has begun a session: the child stops it) */
    if (prof_start(&cfg) != PROF_OK) {
        if (g_double) return 'd';
        prof_events_free(prof_stop());
        if (prof_start(&cfg) != PROF_OK) return 's';
    }
    if (g_double) return 'd';
    if (prof_add_metadata("child_key", "child_value") != PROF_OK) return 'm';
    { PROF_SCOPE("child_scope"); }
    if (!(ev = prof_stop())) return 't';
    ok = prof_export_chrome_trace(ev, "/dev/null") == PROF_OK;
    prof_events_free(ev);
    if (!ok) return 'e';
    if (prof_start(&cfg) != PROF_OK) return 'S';
    if (!(ev = prof_stop())) return 'T';
    prof_events_free(ev);
    return g_double ? 'd' : 'y';
}

/* lets the starting thread go on with its frees */
static void release(void) {
    pthread_mutex_lock(&g_m);
    g_forked = 1;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_m);
}

int main(void) {
    prof_config cfg;
    pthread_t t;
    int status;
    char verdict;
    prof_set_log(check_log, NULL);
    /* a session with one key; it stays until the next prof_start */
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return check_report();
    CHECK_EQ_INT(prof_add_metadata("parent_key", "parent_value"), PROF_OK);
    prof_events_free(prof_stop());
    if (!CHECK(pthread_create(&t, NULL, starter, NULL) == 0)) return check_report();
    pthread_mutex_lock(&g_m);
    while (!g_inside) pthread_cond_wait(&g_cv, &g_m); /* the other thread is between the frees */
    pthread_mutex_unlock(&g_m);
    verdict = check_fork_verdict(child, release, &status);
    pthread_join(t, NULL);
    CHECK_MSG(verdict == 'y', "the child forked while another thread's prof_start cleared the metadata: verdict '%c', %s %d%s", verdict ? verdict : '-',
              WIFSIGNALED(status) ? "died of signal" : "exited with", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
              verdict == 'd' || (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) ? " (the child's prof_start freed again the key's name and value that prof__g_meta still held)" : "");
    return check_report();
}
