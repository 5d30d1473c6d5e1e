/* test_cupti_retry.c - a failed prof_stop's retry attaches each CUDA
   kernel to its scope once. prof_stop's last phase joins CUPTI's kernels
   to the scopes that launched them (prof__cupti_correlate, after the
   tree); out of memory there, prof_stop keeps its list and the next
   prof_stop runs the join again. Here the join runs on a list made by
   hand (an op, 40 launches in it, a kernel each: a runtime call and a
   kernel sharing a correlation id), with its Nth allocation failing, for
   every N, then again: the kernels must be the 40 a first join attaches
   (the old join left those it had attached, and attached them again).
   Before it, a whole CUDA session's prof_stop fails at each of its
   allocations in turn and is retried: CUPTI's records must survive. */
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
#include "fake_cupti_control.h" /* (built with PROF_CUPTI; the fake is not driven here) */

enum { LAUNCHES = 40 };

static void quiet(prof_log_level l, prof_result c, const char *m, void *u) { (void)l; (void)c; (void)m; (void)u; }

static prof_events *make_list(void) {
    prof_events *e = prof_events_create();
    prof_event_desc d;
    int i;
    if (!e) return NULL;
    memset(&d, 0, sizeof d);
    d.name = "op";
    d.thread = 1;
    d.start_ns = 0;
    d.end_ns = 100 * LAUNCHES;
    d.node_id = -1;
    d.sequence_nr = -1;
    if (prof_events_add(e, &d) < 0) return e;
    for (i = 0; i < LAUNCHES; i++) {
        int64_t a, k;
        prof__extra *x;
        d.name = "cudaLaunchKernel";
        d.device_type = PROF_DEVICE_CPU;
        d.start_ns = 100 * i + 1;
        d.end_ns = 100 * i + 10;
        if ((a = prof_events_add(e, &d)) < 0) return e;
        d.name = i % 2 ? "kernB" : "kernA";
        d.device_type = PROF_DEVICE_CUDA;
        d.start_ns = 100 * i + 20;
        d.end_ns = 100 * i + 50;
        if ((k = prof_events_add(e, &d)) < 0) return e;
        /* as CUPTI's records are made: a runtime call, a kernel, one correlation */
        e->sites[e->ev[a].site].flags |= PROF_SITE_CUDA_RUNTIME;
        e->sites[e->ev[k].site].flags |= PROF_SITE_GPU_KERNEL;
        e->ev[a].flags = (uint16_t)(e->ev[a].flags & ~PROF__F_USER_ANN);
        e->ev[k].flags = (uint16_t)(e->ev[k].flags & ~PROF__F_USER_ANN);
        if ((x = prof__extra_of(e, &e->ev[a])) != NULL) x->correlation = (uint32_t)(7 + i);
        if ((x = prof__extra_of(e, &e->ev[k])) != NULL) x->correlation = (uint32_t)(7 + i);
    }
    prof_events_build_tree(e);
    return e;
}

static size_t op_kernels(prof_events *e) {
    prof_event ev;
    return prof_events_get(e, 0, &ev) == PROF_OK ? ev.n_kernels : (size_t)-1;
}

/* A session on the fake CUPTI (an op launching one kernel, a runtime call
   and a kernel sharing a correlation id), stopped with allocation `fail`
   failing, then again if it failed. 0: prof_stop made fewer allocations;
   1: the list was checked. The list must hold the call and the kernel,
   attached to the op, once: prof_stop's gather takes CUPTI's buffers,
   and out of memory after that it lost their records (the retry's list
   had no CUDA events and said so in a warning); a full buffer that CUPTI
   handed back when no memory was left for its list node was freed with
   its records, counted nowhere (allocation 2). */
/* with_memory: the op also allocates device memory, so the memory pass
   after the CUPTI join allocates too: a failure there once made the
   retry join again and attach the kernel twice. fail2: the retry's own
   allocation that fails (-1: none), a third stop then finishes. */
static int session_retry(long fail, int with_memory, long fail2) {
    prof_config c;
    prof_events *ev;
    uint64_t t0, t1;
    size_t i, n, calls = 0, kernels = 0, op_kernels_n = 0;
    volatile unsigned spin = 0;
    memset(&c, 0, sizeof c);
    c.log = quiet;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return -1;
    {
        PROF_SCOPE_OP("aten::mm");
        CUpti_ActivityAPI a;
        CUpti_ActivityKernel10 k;
        /* well inside the op (its clock and CUPTI's are converted apart) */
        t0 = fake_cupti_now();
        while (fake_cupti_now() < t0 + 200000) spin++;
        t0 = fake_cupti_now();
        while (fake_cupti_now() < t0 + 4) spin++;
        t1 = fake_cupti_now();
        a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t0 + 1, t0 + 2, 77);
        k = fake_cupti_kernel("retry_kernel", t0 + 3, t1, 77);
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        if (with_memory) {
            CUpti_ActivityMemory4 m = fake_cupti_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x1000, 4096, t0 + 2, 77);
            CHECK_EQ_INT(fake_cupti_queue_memory(&m), 0);
        }
        while (fake_cupti_now() < t1 + 200000) spin++;
    }
    g_count = 0;
    g_fail = fail;
    ev = prof_stop();
    g_fail = -1;
    if (g_count < fail) { /* past prof_stop's last allocation */
        prof_events_free(ev);
        return 0;
    }
    if (!ev && fail2 > 0) {
        g_count = 0;
        g_fail = fail2;
        ev = prof_stop();
        g_fail = -1;
    }
    if (!ev) ev = prof_stop(); /* (a failure prof_stop works around returns the list at once) */
    if (!CHECK_MSG(ev != NULL, "allocation %ld failing (memory %d, then %ld): the retry failed", fail, with_memory, fail2)) return 1;
    n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK) continue;
        if (strcmp(e.name, "cudaLaunchKernel") == 0) calls++;
        if (strcmp(e.name, "retry_kernel") == 0) kernels++;
        if (strcmp(e.name, "aten::mm") == 0) op_kernels_n = e.n_kernels;
    }
    if (fail == 1) { /* the flush's buffer (bufferRequested): CUPTI drops the records and counts them */
        CHECK_MSG(calls == 0 && kernels == 0 && prof_events_stats(ev).dropped == 2u + (unsigned)with_memory,
                  "no buffer for CUPTI: %zu launch calls, %zu kernels, %llu dropped (want 0, 0, %d)", calls, kernels,
                  (unsigned long long)prof_events_stats(ev).dropped, 2 + with_memory);
    } else {
        CHECK_MSG(calls == 1 && kernels == 1 && op_kernels_n == 1 && prof_events_stats(ev).dropped == 0,
                  "allocation %ld failing (memory %d, then %ld): the retry's list has %zu launch calls, %zu kernels, %zu attached to the op, %llu dropped (want 1, 1, 1, 0)",
                  fail, with_memory, fail2, calls, kernels, op_kernels_n, (unsigned long long)prof_events_stats(ev).dropped);
    }
    prof_events_free(ev);
    return 1;
}

int main(void) {
    prof_events *e;
    long fail, failed = 0;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(quiet, NULL);
    for (fail = 1; fail < 10000; fail++) {
        int r = session_retry(fail, 0, -1);
        if (r <= 0) break;
        failed++;
    }
    CHECK_MSG(failed > 10, "prof_stop of a CUDA session made %ld allocations", failed);
    for (fail = 1; fail < 10000; fail++) { /* memory too; then the retry failing as well */
        long fail2;
        if (session_retry(fail, 1, -1) <= 0) break;
        for (fail2 = 1; fail2 <= 4; fail2++) session_retry(fail, 1, fail2);
    }
    failed = 0;
    e = make_list();
    if (!CHECK(e != NULL)) return check_report();
    CHECK_EQ_INT(prof__cupti_correlate(e), 0);
    CHECK_EQ_INT((long long)op_kernels(e), LAUNCHES);
    prof_events_free(e);
    for (fail = 1; fail < 1000; fail++) {
        int rc;
        if (!(e = make_list())) break;
        g_count = 0;
        g_fail = fail;
        rc = prof__cupti_correlate(e);
        g_fail = -1;
        if (rc == 0) {
            prof_events_free(e);
            break;
        }
        failed++;
        CHECK_MSG(prof__cupti_correlate(e) == 0, "allocation %ld failing: the retry failed", fail);
        CHECK_MSG(op_kernels(e) == LAUNCHES, "allocation %ld failing: the retry attached %zu kernels, want %d", fail, op_kernels(e), LAUNCHES);
        prof_events_free(e);
    }
    CHECK_MSG(failed > 3, "the join made %ld allocations", failed);
    return check_report();
}
