/* An address freed on one thread and allocated again on another within one
   clock tick (this VM's TSC moves in 10 ns steps), or allocated on one and
   freed on another within a tick. prof_stop sorted memory records by time
   only, so at one tick the threads' records came in collection order: the
   replay behind prof_export_memory_timeline and the trace's
   "Total Allocated" could see the address allocated twice and then freed
   (the timeline went 200, 300, 300, 100 where the program had 100, 200,
   0). Expected: each thread's records keep their order; between threads, a
   free of a live block goes before another thread's allocation of its
   address, and an allocation before another thread's free of a block not
   live. Every scenario is run with the roles of the two threads swapped,
   and gives the same timeline and totals both ways.

   Time is virtual (fake_tsc.h: it moves only when the test sets vc);
   x86-64 only, elsewhere the test is skipped. */
#define _GNU_SOURCE
#include "fake_tsc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "fake_tsc.h"
#include "check.h"

#if defined(PROBE_FAKE_TSC)
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static uint64_t test_rdtsc(void) { return (uint64_t)__atomic_load_n(&vc, __ATOMIC_SEQ_CST) * 3u; } /* 3 GHz */

static void *const P = (void *)0x123450;
typedef void (*step_fn)(void);
static void *run_step(void *arg) {
    (*(step_fn *)arg)();
    return NULL;
}
/* fn on a new thread, joined */
static void on_worker(step_fn fn) {
    pthread_t th;
    if (CHECK_EQ_INT(pthread_create(&th, NULL, run_step, &fn), 0)) pthread_join(th, NULL);
}

/* Reuse: the first owner allocates 100 bytes at P and frees them 100 ns
   later, at the tick the second owner allocates 200 there. */
static void first_owner(void) { prof_alloc(P, 100); vc += 100; prof_dealloc(P); }
static void second_owner(void) { prof_alloc(P, 200); vc += 100; prof_dealloc(P); }
/* Hand-over: a block allocated on one thread and freed on the other at the
   same tick, then a second block (at P + 64) the same way 100 ns later. */
static void hand_alloc(void) { prof_alloc(P, 100); }
static void hand_free(void) { prof_dealloc(P); }
static void hand_alloc2(void) { prof_alloc((char *)P + 64, 50); }
static void hand_free2(void) { prof_dealloc((char *)P + 64); }

/* A block from before the session: freed on one thread at the tick the
   other allocates its address again, with other bytes (the free is the
   block's own, PREEXISTING in the timeline: the new allocation must not
   be taken back by it, which drove the totals below zero). */
static void first_owner_pre(void) { prof_alloc(P, 100); }
static void pre_free(void) { prof_dealloc(P); }
static void pre_realloc(void) { prof_alloc(P, 200); }
static void pre_realloc_end(void) { prof_dealloc(P); }
static void other_block(void) { prof_alloc((char *)P + 4096, 8); }
/* A thread with other records at the tick: a CUDA block and another CPU
   address allocated before its free of P (the replay of all devices, for
   the trace, and of the CPU, for the timeline, must agree). */
static void mix_first(void) { prof_alloc(P, 100); }
static void mix_cuda_then_free(void) { prof_alloc_ex((char *)P + 8192, 50, PROF_DEVICE_CUDA, 0, NULL); prof_dealloc(P); }
static void mix_cpu_then_free(void) { prof_alloc((char *)P + 8192, 50); prof_dealloc(P); }
static void mix_realloc(void) { prof_alloc(P, 200); }
/* Three threads at one tick: allocated on one, freed on the second,
   allocated again (7 bytes) on the third. */
static void three_alloc(void) { prof_alloc(P, 100); }
static void three_realloc(void) { prof_alloc(P, 7); }
static void free_then_30(void) { prof_dealloc(P); prof_alloc(P, 30); }

/* The trace's [memory] records as "bytes:total" in time order (ties: by
   bytes), e.g. "100:100 -100:0". */
static void trace_totals(const char *path, char *out, size_t cap) {
    char *text = check_read_file(path), *p;
    long rec[64][3];
    size_t n = 0, i, j, w = 0;
    out[0] = 0;
    if (!CHECK(text != NULL)) return;
    for (p = text; (p = strstr(p, "\"name\": \"[memory]\"")) != NULL && n < 64; p++) {
        const char *ts = strstr(p, "\"ts\": "), *tot = strstr(p, "\"Total Allocated\": "), *by = strstr(p, "\"Bytes\": ");
        if (!CHECK(ts && tot && by)) break;
        rec[n][0] = (long)(strtod(ts + 6, NULL) * 1000.0 + 0.5);
        rec[n][1] = strtol(by + 9, NULL, 10);
        rec[n][2] = strtol(tot + 19, NULL, 10);
        n++;
    }
    for (i = 1; i < n; i++) /* insertion sort by (ts, bytes) */
        for (j = i; j > 0 && (rec[j][0] < rec[j - 1][0] || (rec[j][0] == rec[j - 1][0] && rec[j][1] < rec[j - 1][1])); j--) {
            long t0 = rec[j][0], t1 = rec[j][1], t2 = rec[j][2];
            rec[j][0] = rec[j - 1][0]; rec[j][1] = rec[j - 1][1]; rec[j][2] = rec[j - 1][2];
            rec[j - 1][0] = t0; rec[j - 1][1] = t1; rec[j - 1][2] = t2;
        }
    for (i = 0; i < n && w + 48 < cap; i++) w += (size_t)snprintf(out + w, cap - w, "%s%ld:%ld", i ? " " : "", rec[i][1], rec[i][2]);
    free(text);
}

/* Runs the steps, each at its time (ns after the start; -1: the clock as
   the step before left it) on its thread:
   0 the main thread, 1 a worker (one per time: a thread's records at one
   time are one step), then checks as scenario() does. pre: run before
   prof_start. */
typedef struct step { int64_t at; int worker; step_fn fn; } step;
static void scripted(const char *what, step_fn pre, const step *st, size_t n, const char *want_timeline, const char *want_totals) {
    prof_config cfg;
    prof_events *ev;
    char *text;
    char totals[1024];
    int64_t base;
    size_t i;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (pre) pre();
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    base = vc;
    for (i = 0; i < n; i++) {
        if (st[i].at >= 0) vc = base + st[i].at;
        if (st[i].worker) on_worker(st[i].fn);
        else st[i].fn();
    }
    vc = base + 3000;
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    printf("%s\n", what);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/test_mem_same_tick.json", PROF_DEVICE_CPU, 0), PROF_OK);
    text = check_read_file("build/test_mem_same_tick.json");
    CHECK_EQ_STR(text, want_timeline);
    free(text);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/test_mem_same_tick_trace.json"), PROF_OK);
    trace_totals("build/test_mem_same_tick_trace.json", totals, sizeof totals);
    CHECK_EQ_STR(totals, want_totals);
    prof_events_free(ev);
}

/* Runs first then second at 1 us after the start, and first2 then
   second2 at 1.1 us (when given), one of each pair on the main thread and
   the other on a worker (first on the worker when worker_first); then
   checks the CPU timeline and the trace's totals. */
static void scenario(const char *what, int worker_first, step_fn first, step_fn second, step_fn first2, step_fn second2,
                     const char *want_timeline, const char *want_totals) {
    const step st[4] = { { 1000, worker_first, first }, { -1, !worker_first, second }, { 1100, worker_first, first2 }, { -1, !worker_first, second2 } };
    char title[128];
    snprintf(title, sizeof title, "%s, %s thread first", what, worker_first ? "worker" : "main");
    scripted(title, NULL, st, first2 ? 4 : 2, want_timeline, want_totals);
}
#endif

int main(void) {
#if defined(PROBE_FAKE_TSC)
    int wf;
    prof_set_log(check_log, NULL);
    for (wf = 0; wf < 2; wf++) {
        /* reuse: P freed by its first owner at the tick the other
           thread allocates it again */
        scenario("reuse", wf, first_owner, second_owner, NULL, NULL,
                 "[[1.000, 1.100, 1.200], [[100], [200], [0]]]\n", "100:100 -100:0 200:200 -200:0");
        /* hand-over: allocated on one thread, freed on the other at the
           same tick (the tick's point shows both) */
        scenario("hand-over", wf, hand_alloc, hand_free, hand_alloc2, hand_free2,
                 "[[1.000, 1.100], [[0], [0]]]\n", "-100:0 100:100 -50:0 50:50");
    }
    {
        /* the block from before the session, freed on either thread */
        static const step a[] = { { 1000, 1, other_block }, { 1100, 0, pre_free }, { 1100, 1, pre_realloc }, { 1200, 1, pre_realloc_end } };
        static const step b[] = { { 1000, 1, other_block }, { 1100, 1, pre_free }, { 1100, 0, pre_realloc }, { 1200, 0, pre_realloc_end } };
        /* the mixed thread, either of the two */
        static const step c[] = { { 1000, 1, mix_first }, { 1100, 1, mix_cuda_then_free }, { 1100, 0, mix_realloc }, { 1200, 0, pre_realloc_end } };
        static const step d[] = { { 1000, 0, mix_first }, { 1100, 0, mix_cuda_then_free }, { 1100, 1, mix_realloc }, { 1200, 1, pre_realloc_end } };
        static const step f[] = { { 1000, 1, mix_first }, { 1100, 1, mix_cpu_then_free }, { 1100, 0, mix_realloc }, { 1200, 0, pre_realloc_end } };
        static const step g[] = { { 1000, 0, mix_first }, { 1100, 0, mix_cpu_then_free }, { 1100, 1, mix_realloc }, { 1200, 1, pre_realloc_end } };
        scripted("a block from before the session, freed on the main thread", first_owner_pre, a, 4, "[[1.000, 1.000, 1.100, 1.200], [[100], [108], [208], [8]]]\n",
                 "8:108 -100:8 200:208 -200:8");
        scripted("a block from before the session, freed on the worker", first_owner_pre, b, 4,
                 "[[1.000, 1.000, 1.100, 1.200], [[100], [108], [208], [8]]]\n", "8:108 -100:8 200:208 -200:8");
        scripted("a CUDA record on the freeing worker", NULL, c, 4, "[[1.000, 1.100, 1.200], [[100], [200], [0]]]\n",
                 "100:100 -100:0 50:50 200:200 -200:0");
        scripted("a CUDA record on the freeing main thread", NULL, d, 4, "[[1.000, 1.100, 1.200], [[100], [200], [0]]]\n",
                 "100:100 -100:0 50:50 200:200 -200:0");
        {
            static const step h[] = { { 1000, 1, other_block }, { 1100, 0, three_alloc }, { 1100, 1, pre_free }, { 1100, 1, three_realloc }, { 1200, 0, pre_free } };
            static const step i[] = { { 1000, 1, other_block }, { 1100, 1, three_alloc }, { 1100, 1, pre_free }, { 1100, 0, three_realloc }, { 1200, 0, pre_free } };
            static const step j[] = { { 1000, 1, other_block }, { 1100, 1, three_alloc }, { 1100, 0, pre_free }, { 1100, 1, three_realloc }, { 1200, 0, pre_free } };
            scripted("three threads at a tick (main allocates)", NULL, h, 5, "[[1.000, 1.100, 1.200], [[8], [15], [8]]]\n", "8:8 -100:8 7:15 100:108 -7:8");
            scripted("three threads at a tick (main allocates again)", NULL, i, 5, "[[1.000, 1.100, 1.200], [[8], [15], [8]]]\n", "8:8 -100:8 7:15 100:108 -7:8");
            scripted("three threads at a tick (main frees)", NULL, j, 5, "[[1.000, 1.100, 1.200], [[8], [15], [8]]]\n", "8:8 -100:8 7:15 100:108 -7:8");
        }
        /* (a thread's order is kept for each address, not across them: 50
           may come after the other thread's 200, or before its own free) */
        scripted("another address on the freeing worker", NULL, f, 4, "[[1.000, 1.100, 1.200], [[100], [250], [50]]]\n",
                 "100:100 -100:50 50:150 200:250 -200:50");
        scripted("another address on the freeing main thread", NULL, g, 4, "[[1.000, 1.100, 1.200], [[100], [250], [50]]]\n",
                 "100:100 -100:0 50:250 200:200 -200:50");
    }
    {
        /* a thread's own order is kept: freed then allocated again at one
           tick on one thread is a reuse, not a double allocation */
        static const step own[] = { { 1000, 0, three_alloc }, { 1100, 0, free_then_30 }, { 1200, 0, pre_free } };
        scripted("one thread: freed and allocated again at a tick", NULL, own, 3, "[[1.000, 1.100, 1.200], [[100], [30], [0]]]\n",
                 "100:100 -100:0 30:30 -30:0");
    }
#else
    printf("skipped: needs the virtual TSC of fake_tsc.h (x86-64)\n");
#endif
    return check_report();
}
