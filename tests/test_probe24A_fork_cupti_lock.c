/* fork() while CUPTI's buffer callback is inside prof.h's CUPTI lock.
   The manual (SIGNALS): "A fork() is fine: the child starts with prof.h's
   locks free and its memory table whole, and goes on with the session it
   inherited." prof__atfork_child makes prof__g_lock, prof__s.lock,
   prof__pf_lock, prof__log_lock and prof__cat_lock afresh, but not
   prof__cu.lock, the lock of CUPTI's buffer list, which prof__cu_requested
   (bufferRequested, run by CUPTI on every thread that launches CUDA work
   when its buffer is full) and prof__cu_completed (bufferCompleted, on
   CUPTI's own worker thread) take. A child forked while one of them holds
   it (PyTorch's DataLoader forks its workers while the training thread
   launches kernels) has the lock held by a thread that does not exist
   there: the child's prof_stop waits for it forever, in prof__cupti_stop
   (the dropped-record count) or prof__cug_take.
   Here the allocator hook holds the thread that asks for a buffer (the
   fake's per-thread buffers: bufferRequested on the launching thread)
   inside prof__cu_requested's PROF__MALLOC, the lock held, until the fork
   is done, so the timing is exact. The child then stops the session it
   inherited and runs one of its own; an alarm turns a hang into a
   failure.
   Wanted: the child's prof_stop returns (prof__cu.lock made afresh in the
   atfork child handler, as the other locks are; or taken around the fork
   in the prepare handler).
   And CUDA does not cross a fork: a child of a process that used it
   cannot use it (the driver refuses), and CUPTI's own threads and locks
   stay the parent's, so a call into CUPTI in the child may never return.
   The child's prof_stop and its own sessions call CUPTI no more (the
   fake counts the calls), its session records the CPU and says once that
   CUDA is not recorded. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_c = PTHREAD_COND_INITIALIZER;
static int g_inside, g_forked;
static __thread int t_hold;

/* The worker's buffer allocation waits (lock of prof.h held) until main forked. */
static void *test_malloc(size_t n) {
    if (t_hold && n >= ((size_t)1 << 20)) {
        struct timespec dl;
        t_hold = 0;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 5;
        pthread_mutex_lock(&g_m);
        g_inside = 1;
        pthread_cond_broadcast(&g_c);
        while (!g_forked)
            if (pthread_cond_timedwait(&g_c, &g_m, &dl) != 0) break;
        pthread_mutex_unlock(&g_m);
    }
    return malloc(n);
}
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) realloc((p), (n))
#define PROF_FREE(p) free(p)
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t g_t0;
static void *worker(void *arg) {
    CUpti_ActivityKernel10 k = fake_cupti_kernel((const char *)arg, (uint64_t)(g_t0 + 1000), (uint64_t)(g_t0 + 2000), 0);
    t_hold = 1; /* the first record asks for a buffer on this thread */
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
    t_hold = 0;
    return NULL;
}

static size_t count_kernels(prof_events *ev, const char *name) {
    size_t i, n = 0;
    for (i = 0; ev && i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type == PROF_DEVICE_CUDA && strcmp(e.name, name) == 0) n++;
    }
    return n;
}

static int64_t find_name(prof_events *ev, const char *name) {
    size_t i;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) return (int64_t)i;
    }
    return -1;
}

static int cupti_calls(void) {
    static const char *const names[] = { "cuptiActivityFlushAll", "cuptiActivityDisable", "cuptiActivityEnable", "cuptiSubscribe",
                                         "cuptiUnsubscribe", "cuptiFinalize", "cuptiActivityGetNumDroppedRecords" };
    size_t i;
    int n = 0;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) n += fake_cupti_call_count(names[i]);
    return n;
}

static int child(void) {
    prof_config c;
    prof_events *ev;
    pthread_t th;
    size_t n;
    int calls0 = cupti_calls();
    g_forked = 1; /* (no more holds here) */
    alarm(5); /* a hang is a failure */
    ev = prof_stop(); /* the session inherited from the parent */
    if (!ev) { fprintf(stderr, "child: prof_stop of the inherited session returned NULL\n"); return 2; }
    prof_events_free(ev);
    if (cupti_calls() != calls0) { fprintf(stderr, "child: prof_stop called CUPTI %d times\n", cupti_calls() - calls0); return 6; }
#if defined(TEST_TSAN)
    return 0; /* TSan refuses new threads in the child of a multi-threaded fork */
#endif
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    if (prof_start(&c) != PROF_OK) { fprintf(stderr, "child: prof_start failed\n"); return 3; }
    g_t0 = now_ns();
    {
        PROF_SCOPE("child_scope");
        if (pthread_create(&th, NULL, worker, (void *)"child_kernel") != 0) return 4;
        pthread_join(th, NULL);
    }
    while (now_ns() < g_t0 + 100000) {}
    ev = prof_stop();
    n = count_kernels(ev, "child_kernel");
    if (!ev || find_name(ev, "child_scope") < 0) { fprintf(stderr, "child: its own session lacks the CPU's scope\n"); return 7; }
    prof_events_free(ev);
    if (n != 0) { fprintf(stderr, "child: its own session has %zu child_kernel, expected none (no CUDA after a fork)\n", n); return 5; }
    if (cupti_calls() != calls0) { fprintf(stderr, "child: its session called CUPTI %d times\n", cupti_calls() - calls0); return 6; }
    if (!check_log_has(PROF_E_CUPTI, "forked from one that used CUDA")) { fprintf(stderr, "child: no word that CUDA is not recorded\n"); return 8; }
    return 0;
}

int main(void) {
    prof_config c;
    fake_cupti_delivery d;
    prof_events *ev;
    pthread_t th;
    pid_t pid;
    int status = 0, fds[2];
    char verdict = 0;
    prof_set_log(check_log, NULL);
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    memset(&d, 0, sizeof d);
    d.per_thread_buffers = 1; /* as the real library: bufferRequested on the launching thread */
    fake_cupti_set_delivery(&d);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    g_t0 = now_ns();
    CHECK_EQ_INT(pthread_create(&th, NULL, worker, (void *)"parent_kernel"), 0);
    pthread_mutex_lock(&g_m);
    while (!g_inside) pthread_cond_wait(&g_c, &g_m);
    pthread_mutex_unlock(&g_m);
    /* the worker is inside prof__cu_requested, prof__cu.lock held */
    fflush(stdout);
    fflush(stderr);
    /* the child's verdict comes through a pipe: under valgrind its exit
       status also reports what the held thread had allocated, which the
       child cannot reach (as check_fork_verdict) */
    if (!CHECK(pipe(fds) == 0)) return check_report();
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        verdict = (char)('0' + child());
        if (write(fds[1], &verdict, 1) != 1) _exit(2);
        _exit(0);
    }
    close(fds[1]);
    pthread_mutex_lock(&g_m);
    g_forked = 1;
    pthread_cond_broadcast(&g_c);
    pthread_mutex_unlock(&g_m);
    pthread_join(th, NULL);
    if (CHECK(pid > 0)) {
        if (read(fds[0], &verdict, 1) != 1) verdict = 0;
        while (waitpid(pid, &status, 0) < 0) {}
        if (verdict > '0') fprintf(stderr, "child's verdict: %c\n", verdict);
        CHECK_MSG(verdict == '0',
                  "the child forked while another thread held prof__cu.lock (inside bufferRequested): %s %d",
                  WIFSIGNALED(status) ? (WTERMSIG(status) == SIGALRM ? "hung (killed by the alarm after 5 s) in prof_stop; signal"
                                                                      : "killed by signal")
                                      : "exit status",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    close(fds[0]);
    while (now_ns() < g_t0 + 100000) {}
    ev = prof_stop();
    CHECK_EQ_INT(count_kernels(ev, "parent_kernel"), 1); /* the parent is not affected */
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
