/* A failed CUPTI join (prof__cupti_correlate out of memory) takes back the
   kernels it attached, so that the retry attaches each once. The failure
   here comes inside the kernel loop: 40 ops launch a kernel each, and
   the list's kernel array grows as they are attached, so a failure there
   comes after the first op got the first kernel the join attached
   (index nkern0). The rollback must clear a list head that points at
   nkern0 itself, or the retry links that op's one kernel to itself (a
   cycle: reading n_kernels never ends).
   Every allocation of prof_stop is failed in turn, then prof_stop is
   called again. (Mutation pass: `kern_head >= nkern0` made `>` went
   unnoticed by tests/test_cupti_retry.c, whose ops are made by hand and
   whose session has one op.) Run under a timeout: the broken rollback hangs.
   The rollback also takes back the kernels' time: it left each chain's
   sum (kern_ns) as the join had raised it, and the retry added it again
   (an op's device time twice its kernel's). */
#define _GNU_SOURCE 1
#include <stdlib.h>

static long g_count, g_fail = -1; /* fail the allocation numbered g_fail */
static void *test_malloc(size_t n) { return ++g_count == g_fail ? NULL : malloc(n); }
static void *test_realloc(void *p, size_t n) { return ++g_count == g_fail ? NULL : realloc(p, n); }
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) test_realloc((p), (n))
#define PROF_FREE(p) free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

#include <signal.h>
#include <unistd.h>

static void quiet(prof_log_level l, prof_result c, const char *m, void *u) { (void)l; (void)c; (void)m; (void)u; }

enum { OPS = 40 };
static long g_now_fail;
static void on_alarm(int sig) {
    static const char msg[] = "test_edges5_join_rollback: timed out (a kernel list that loops after a failed join's retry?)\n";
    (void)sig;
    (void)g_now_fail;
    if (write(2, msg, sizeof msg - 1) < 0) {}
    _exit(1);
}

/* 0: prof_stop made fewer allocations than `fail`; 1: checked */
static int session(long fail) {
    prof_config c;
    prof_events *ev;
    uint64_t t0, t1;
    size_t i, n, kernels = 0, ops = 0, bad = 0;
    int64_t kern_ns = 0, op_dev_ns = 0;
    int j;
    volatile unsigned spin = 0;
    memset(&c, 0, sizeof c);
    c.log = quiet;
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return -1;
    for (j = 0; j < OPS; j++) { /* each op launches one kernel */
        PROF_SCOPE_OP("aten::mm");
        CUpti_ActivityAPI a;
        CUpti_ActivityKernel10 k;
        t0 = fake_cupti_now();
        while (fake_cupti_now() < t0 + 20000) spin++;
        t0 = fake_cupti_now();
        while (fake_cupti_now() < t0 + 4) spin++;
        t1 = fake_cupti_now();
        a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t0 + 1, t0 + 2, 77 + (uint32_t)j);
        k = fake_cupti_kernel("rollback_kernel", t0 + 3, t1, 77 + (uint32_t)j);
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        while (fake_cupti_now() < t1 + 20000) spin++;
    }
    g_now_fail = fail;
    g_count = 0;
    g_fail = fail;
    ev = prof_stop();
    g_fail = -1;
    if (g_count < fail) {
        prof_events_free(ev);
        return 0;
    }
    if (!ev) ev = prof_stop();
    if (!CHECK_MSG(ev != NULL, "allocation %ld failing: the retry failed", fail)) return 1;
    n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK) continue;
        if (strcmp(e.name, "rollback_kernel") == 0) { kernels++; kern_ns += e.end_ns - e.start_ns; }
        if (strcmp(e.name, "aten::mm") == 0) { ops++; bad += e.n_kernels != 1; op_dev_ns += e.device_time_total_ns; }
    }
    if (fail > 1) /* (1: CUPTI got no buffer and dropped the records) */
        CHECK_MSG(kernels == OPS && ops == OPS && bad == 0, "allocation %ld failing: %zu kernels, %zu ops, %zu without exactly one kernel", fail,
                  kernels, ops, bad);
    if (fail > 1) /* the time of the kernels a failed join took back goes with them */
        CHECK_MSG(op_dev_ns == kern_ns, "allocation %ld failing: the ops' device time is %lld ns, their kernels' %lld", fail, (long long)op_dev_ns,
                  (long long)kern_ns);
    prof_events_free(ev);
    return 1;
}

int main(void) {
    long fail, failed = 0;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(quiet, NULL);
    signal(SIGALRM, on_alarm);
    alarm(30);
    for (fail = 1; fail < 10000; fail++) {
        int r = session(fail);
        if (r <= 0) break;
        failed++;
    }
    CHECK_MSG(failed > 10, "prof_stop of a CUDA session made %ld allocations", failed);
    prof_shutdown();
    return check_report();
}
