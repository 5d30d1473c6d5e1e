/* The cap's rule for CUDA calls: from the moment the cap refused a
   thread's scopes, the CUDA calls that thread makes are dropped with the
   GPU work they launched (prof__cug_cap_threads). The rule looked the
   refused thread up by its kernel id alone, so once the kernel gave that
   id to a later thread, the later thread's calls were dropped too, though
   the cap never refused it and there was room: here thread A is refused
   (a mark's share of the budget held meanwhile comes back at its exit),
   then thread B, given A's id (tests/tid_reuse.h; skipped where no id can
   be chosen), records a scope with a cudaLaunchKernel and its kernel
   inside: all three must be kept, and A's own calls after its refusal
   still dropped. Each state now keeps its thread's exit time, and a call
   is past a refused thread's cap only between its refusal and its exit. */
#define _GNU_SOURCE
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"
#include "virtual_mono.h"
#include "tid_reuse.h"

static pid_t g_a_tid;
static int g_a_scopes;
static void launch(const char *kernel, int64_t t, uint32_t corr) {
    CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(t), T(t + 100), corr);
    CUpti_ActivityKernel10 k = fake_cupti_kernel(kernel, T(t + 200), T(t + 300), corr);
    a.threadId = (uint32_t)tid_reuse_gettid();
    CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
}
static void *thread_a(void *p) {
    (void)p;
    g_a_tid = tid_reuse_gettid();
    PROF_MARK("a_mark"); /* takes a share of the budget for marks, given back at the exit */
    at(2000);
    for (g_a_scopes = 0; g_a_scopes < 100000; g_a_scopes++) { PROF_SCOPE("a_scope"); }
    at(2500);
    launch("a_kernel", 2500, 76); /* after the refusal: dropped */
    at(3000);
    return NULL;
}
static void *thread_b(void *p) {
    (void)p;
    at(5000);
    {
        PROF_SCOPE("b_scope");
        launch("b_kernel", 5100, 77);
        at(6000);
    }
    return NULL;
}

int main(void) {
    prof_config c;
    prof_events *ev;
    pthread_t th;
    int got;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.max_events = 1000;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    pthread_create(&th, NULL, thread_a, NULL);
    pthread_join(th, NULL);
    CHECK_EQ_INT(g_a_scopes, 100000);
    got = tid_reuse_run(g_a_tid, thread_b, NULL);
    if (got == 0) {
        printf("test_tid_reuse_cupti_cap: skipped: no way here to give a new thread an ended one's id (ns_last_pid not writable, pid_max large)\n");
        prof_events_free(prof_stop());
        prof_shutdown();
        return 77;
    }
    CHECK_EQ_INT(got, 1);
    at(9000);
    check_log_reset();
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK(check_count_named(ev, "a_scope") > 0 && check_count_named(ev, "a_scope") < 1000);
    CHECK_EQ_INT(check_count_named(ev, "b_scope"), 1);
    CHECK_MSG(check_count_named(ev, "b_kernel") == 1, "B's kernel was dropped (the cap never refused B)");
    CHECK_EQ_INT(check_count_named(ev, "a_kernel"), 0);       /* A's, after its refusal */
    CHECK_EQ_INT(check_count_named(ev, "cudaLaunchKernel"), 1); /* B's only */
    {
        int64_t k = check_find_event(ev, "cudaLaunchKernel", 0);
        prof_event l = check_get_event(ev, k), b = check_event_named(ev, "b_scope");
        CHECK_EQ_INT(l.thread, (uint64_t)g_a_tid);
        CHECK_EQ_INT(l.parent, check_find_event(ev, "b_scope", 0));
        CHECK_EQ_INT(b.thread, (uint64_t)g_a_tid);
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
