/* fork() while another thread is inside prof_alloc_ex with a category
   seen for the first time. The manual (SIGNALS): "A fork() is fine: the
   child starts with prof.h's locks free and its memory table whole."
   Found: prof__cat_intern holds prof__cat_lock across the allocation of
   the new category's text (PROF_MALLOC), and prof__atfork_child re-makes
   prof__g_lock, the session lock, the prefault lock, the log lock and the
   memory shards, but not prof__cat_lock. A child forked while another
   thread held it waits forever at its first new category: any
   prof_alloc_ex with a category not interned before the fork (no session
   needed: prof_alloc_ex interns first). A program that forks workers
   while a thread allocates is enough; here the allocator hook holds the
   other thread inside the lock until the fork is done, so the timing is
   exact. (prof.h registers its fork handlers at its first prof_alloc_ex
   or prof_start: the program here has allocated once before, as any that
   forks mid-allocation has. The first prof_alloc_ex of a process interns
   before it registers them: a fork caught inside that very first one is
   not helped by a reset in the child alone.)
   Wanted: the child interns its own categories (prof__cat_lock made free
   in the child, or taken around the fork like the shards). A hang fails
   through an alarm in the child, with a message. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdlib.h>

/* The allocator hook: the thread that sets t_hold stops in its next
   allocation (inside prof__cat_lock) until main has forked. */
static __thread int t_hold;
static int g_inside, g_forked;
static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static void *test_malloc(size_t n) {
    if (t_hold) {
        t_hold = 0;
        pthread_mutex_lock(&g_m);
        g_inside = 1;
        pthread_cond_broadcast(&g_cv);
        while (!g_forked) pthread_cond_wait(&g_cv, &g_m);
        pthread_mutex_unlock(&g_m);
    }
    return malloc(n);
}
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) realloc(p, n)
#define PROF_FREE(p) free(p)

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_block[64];

static void *allocator(void *arg) {
    (void)arg;
    t_hold = 1;
    prof_alloc_ex(g_block, 16, PROF_DEVICE_CPU, 0, "before_fork_category");
    prof_dealloc(g_block);
    return NULL;
}

/* The child: a new category of its own, then one recorded in a session. */
static char child(void) {
    static char mine[32];
    prof_config cfg;
    prof_events *ev;
    alarm(10); /* a hang: SIGALRM */
    prof_alloc_ex(mine, 8, PROF_DEVICE_CPU, 0, "child_category");
    prof_dealloc(mine);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (prof_start(&cfg) != PROF_OK) return '2';
    {
        PROF_SCOPE("child_scope");
        prof_alloc_ex(mine, 8, PROF_DEVICE_CPU, 0, "child_category_2");
        prof_dealloc(mine);
    }
    if (!(ev = prof_stop())) return '3';
    prof_events_free(ev);
    return '0';
}

/* lets the allocating thread leave prof__cat_lock */
static void release(void) {
    pthread_mutex_lock(&g_m);
    g_forked = 1;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_m);
}

int main(void) {
    pthread_t t;
    int status;
    char verdict;
    prof_set_log(check_log, NULL);
    prof_alloc_ex(g_block, 16, PROF_DEVICE_CPU, 0, "warm_up"); /* prof.h's fork handlers are in */
    prof_dealloc(g_block);
    if (!CHECK(pthread_create(&t, NULL, allocator, NULL) == 0)) return check_report();
    pthread_mutex_lock(&g_m);
    while (!g_inside) pthread_cond_wait(&g_cv, &g_m); /* the other thread holds prof__cat_lock now */
    pthread_mutex_unlock(&g_m);
    verdict = check_fork_verdict(child, release, &status);
    pthread_join(t, NULL);
    CHECK_MSG(verdict == '0', "the child forked while another thread interned a category: verdict '%c', %s %d%s", verdict ? verdict : '-',
              WIFSIGNALED(status) ? "died of signal" : "exited with", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
              WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? " (SIGALRM: its prof_alloc_ex waited for prof__cat_lock forever)" : "");
    /* the parent goes on as before */
    prof_alloc_ex(g_block, 16, PROF_DEVICE_CPU, 0, "parent_after_fork");
    prof_dealloc(g_block);
    CHECK_EQ_INT(check_log_total(), 0);
    return check_report();
}
