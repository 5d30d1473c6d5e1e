/* fork() while another thread is inside prof_shutdown, freeing its own
   record blocks. The manual (SIGNALS): "A fork while another thread is
   inside prof_start, prof_step, prof_stop or prof_shutdown leaves the
   child with no session, since that thread's work cannot be finished
   there: its prof_stop says so, and prof_start begins afresh."
   Found: prof_shutdown frees the calling thread's blocks one by one
   while they are still linked from its state (t->head, cleared only
   after the loop). A child forked in the middle keeps that state (its
   thread does not exist there, so it is no one's and never freed) with
   t->head at a block whose header the parent had already freed (its
   records unmapped). The child's first prof_start with reserve_events
   counts the blocks live threads hold (prof__pf_reserve walks every
   state's t->head chain) and reads the freed header: SIGSEGV here in the
   plain build (b->next is the allocator's free-list link), a
   heap-use-after-free under ASan. A program that forks workers while
   another thread shuts the profiler down is enough; the test places the
   fork exactly (PROF__TEST_HOOKS: the shutting thread arms the allocator
   hook at PROF__HOOK_SHUTDOWN, and waits in its first PROF_FREE after
   it, a block's header, until main has forked).
   Wanted: the child starts, records and stops a session of its own. A
   fix: prof_shutdown takes the chain off the state (head, cur, pos, end
   NULL) before it frees it, as the metadata's nodes leave their list
   before they are freed; a child forked meanwhile then sees a state with
   no blocks (the ones not yet freed are lost to it, not read).
   The first case forks at the hook itself, before anything is freed
   (passes now). Hangs end through alarm(10) in the child. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdlib.h>

static __thread int t_arm;
static void fork_here(void); /* (below: waits until main has forked) */
static void test_free(void *p) {
    free(p);
    if (t_arm && p) {
        t_arm = 0;
        fork_here();
    }
}
#define PROF_MALLOC(n) malloc(n)
#define PROF_REALLOC(p, n) realloc(p, n)
#define PROF_FREE(p) test_free(p)
#define PROF__TEST_HOOKS
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_PARENT 1000
#define N_CHILD 500

static int g_mode, g_req, g_done;
static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;

static void fork_here(void) {
    pthread_mutex_lock(&g_m);
    g_req = 1;
    pthread_cond_broadcast(&g_cv);
    while (!g_done) pthread_cond_wait(&g_cv, &g_m);
    pthread_mutex_unlock(&g_m);
}
static void hook(int where) {
    if (where != PROF__HOOK_SHUTDOWN) return;
    if (g_mode) t_arm = 1; /* at its next PROF_FREE: a block's header */
    else fork_here();
}

static size_t g_parent_events;
static void *shutter(void *arg) {
    prof_config cfg;
    prof_events *e;
    int i;
    (void)arg;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    if (prof_start(&cfg) != PROF_OK) return NULL;
    for (i = 0; i < N_PARENT; i++) { PROF_SCOPE("parent"); }
    e = prof_stop();
    g_parent_events = e ? prof_events_count(e) : 0;
    prof_events_free(e);
    prof__test_hook = hook;
    prof_shutdown(); /* frees this thread's blocks */
    prof__test_hook = NULL;
    return NULL;
}

/* The child's verdict: a letter for the first step that went wrong, 'y' when all went right. */
static char child(void) {
    prof_config cfg;
    prof_events *e;
    int i, ok;
    prof__test_hook = NULL;
    alarm(10);
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    cfg.reserve_events = 1000; /* prof_start counts the blocks live threads hold */
    if (prof_start(&cfg) != PROF_OK) return 's';
    for (i = 0; i < N_CHILD; i++) { PROF_SCOPE("child"); }
    if (!(e = prof_stop())) return 't';
    ok = prof_events_count(e) == N_CHILD;
    prof_events_free(e);
    prof_shutdown();
    return ok ? 'y' : 'u';
}

static const char *verdict_text(char v) {
    switch (v) {
    case 's': return "its prof_start failed";
    case 't': return "its prof_stop returned NULL";
    case 'u': return "its list is not its own events";
    case 'y': return "ok";
    default: return "no verdict (a crash: prof_start with reserve_events read the block header the other thread had freed, still linked from its state; or a hang: SIGALRM)";
    }
}

static pthread_t g_shutter;
/* lets the shutting thread go on and waits for it (in the parent, once it has forked) */
static void release_shutter(void) {
    pthread_mutex_lock(&g_m);
    g_done = 1;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_m);
    pthread_join(g_shutter, NULL);
}

static void run(int mode, const char *name) {
    int status, reached;
    char verdict;
    struct timespec until;
    g_mode = mode;
    g_req = g_done = 0;
    if (!CHECK(pthread_create(&g_shutter, NULL, shutter, NULL) == 0)) return;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&g_m);
    while (!g_req && pthread_cond_timedwait(&g_cv, &g_m, &until) == 0) {} /* the other thread is inside prof_shutdown */
    reached = g_req;
    pthread_mutex_unlock(&g_m);
    if (!CHECK_MSG(reached, "%s: prof_shutdown never reached the place of the fork", name)) {
        release_shutter();
        return;
    }
    /* the verdict comes through a pipe: under valgrind the child's exit
       status also reports the other thread's stack, which it cannot reach */
    verdict = check_fork_verdict(child, release_shutter, &status);
    CHECK_MSG(verdict == 'y', "fork while another thread was inside prof_shutdown (%s): the child: %s (%s %d)", name, verdict_text(verdict),
              WIFSIGNALED(status) ? "died of signal" : "exited with", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    CHECK_EQ_INT(g_parent_events, N_PARENT); /* the parent's results are its own */
}

int main(void) {
    prof_set_log(check_log, NULL);
    run(0, "before it frees anything");
    run(1, "its first block freed, still linked");
    CHECK_EQ_INT(check_log_total(), 0);
    return check_report();
}
