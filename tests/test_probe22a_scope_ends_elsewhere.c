/* A scope that begins on one thread and ends on another: a fiber (a
   ucontext coroutine, as work-stealing fiber schedulers and C++20
   coroutines resumed elsewhere do) that holds a PROF_SCOPE across a
   switch, suspended on thread A and resumed on thread B after A has
   exited and the session was stopped and a new one started.
   The manual (RECORDING MACROS): "A scope must end on the thread that
   began it. ... its end would write into the first thread's records
   while that thread records too, which loses records and can crash the
   program." Here the first thread no longer records at all: it has
   exited, and prof_stop has freed its state.
   Found: the scope's end (prof__scope_leave, inlined in the user's code)
   writes through the prof__thread pointer it took at its start: A's
   state, freed by the prof_stop that read A's records (a dead thread's
   state goes once it is collected). A heap-use-after-free: SIGSEGV here
   in the plain build, ASan's report under ASan; a program whose fibers
   migrate crashes at the first scope held across a switch whose thread
   has gone, however rare.
   Wanted (the project's rule: a clear error for misuse, never a crash):
   the end on another thread is not written into a state that is not the
   ending thread's; it is counted and reported (as an unbalanced end, or
   the scope as open at the stop), and the accounting stays exact
   (scopes entered == recorded + dropped + open). One way: the scope's
   end compares s.t with prof__tls (one thread-local load) and takes the
   slow path when they differ. The manual's sentence then changes too.
   Fixed: the end compares s.t with prof__tls and, when they differ, is
   counted with B's unbalanced ends (prof__leave_foreign), not written.
   The scenario runs in a child, so a crash is a failure with its signal.
   Skipped under TSan and ASan, which do not follow swapcontext between
   threads without their fiber annotations (ASan says so at the first
   swapcontext, and under ctest's load crashed inside the fiber). The plain
   and valgrind runs check it. */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <signal.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "sanitizers.h"

static ucontext_t fiber_ctx, a_ctx, b_ctx;
static char fiber_stack[256 * 1024];

static void fiber(void) {
    PROF_SCOPE("held_across_switch");
    swapcontext(&fiber_ctx, &a_ctx); /* suspended on A ... */
    { PROF_SCOPE("after_resume"); }  /* ... resumed on B */
}                                     /* the scope ends on B; then uc_link: back to B */

static void *thread_a(void *arg) {
    (void)arg;
    { PROF_SCOPE("a_own"); }
    swapcontext(&a_ctx, &fiber_ctx);
    return NULL; /* exits with the fiber suspended */
}
static void *thread_b(void *arg) {
    (void)arg;
    { PROF_SCOPE("b_own"); }
    swapcontext(&b_ctx, &fiber_ctx);
    return NULL;
}

/* 0 = no crash and exact accounting; else the step that failed */
static int scenario(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t t;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    getcontext(&fiber_ctx);
    fiber_ctx.uc_stack.ss_sp = fiber_stack;
    fiber_ctx.uc_stack.ss_size = sizeof fiber_stack;
    fiber_ctx.uc_link = &b_ctx;
    makecontext(&fiber_ctx, fiber, 0);
    if (prof_start(&cfg) != PROF_OK) return 2;
    if (pthread_create(&t, NULL, thread_a, NULL) != 0) return 3;
    pthread_join(t, NULL); /* A has exited */
    ev = prof_stop();      /* reads A's records: its state goes */
    if (!ev) return 4;
    prof_events_free(ev);
    if (prof_start(&cfg) != PROF_OK) return 5;
    if (pthread_create(&t, NULL, thread_b, NULL) != 0) return 6;
    pthread_join(t, NULL);
    ev = prof_stop();
    if (!ev) return 7;
    st = prof_events_stats(ev);
    printf("second session: %zu events, entered %llu, recorded %llu, dropped %llu, open %llu, unbalanced %llu\n", prof_events_count(ev),
           (unsigned long long)st.scopes_entered, (unsigned long long)st.scopes_recorded, (unsigned long long)st.scopes_dropped,
           (unsigned long long)st.open_at_stop, (unsigned long long)st.unbalanced_ends);
    if (st.scopes_entered != st.scopes_recorded + st.scopes_dropped + st.open_at_stop) return 8;
    if (st.scopes_recorded != 2) return 9; /* b_own, after_resume */
    if (st.unbalanced_ends != 1) return 10; /* the end on B: counted, not recorded */
    prof_events_free(ev);
    prof_shutdown();
    return 0;
}

int main(void) {
    int status = 0;
    pid_t pid;
#if defined(TEST_TSAN) || defined(TEST_ASAN)
    printf("skipped under TSan and ASan: neither follows swapcontext between threads without its fiber annotations (ASan's own warning; under load its stack bookkeeping crashed the fiber)\n");
    return 0;
#endif
    prof_set_log(check_log, NULL);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int r;
        alarm(10);
        r = scenario();
        fflush(NULL);
        _exit(r);
    }
    if (!CHECK(pid > 0)) return check_report();
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "a scope begun on a thread that exited (its state freed by prof_stop) and ended on another in the next session: the child %s %d%s",
              WIFSIGNALED(status) ? "died of signal" : "exited with", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
              WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV ? " (the scope's end wrote through the freed state of the first thread)" : "");
    return check_report();
}
