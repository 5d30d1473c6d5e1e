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

/* Runs first then second at 1 us after the start, and first2 then
   second2 at 1.1 us (when given), one of each pair on the main thread and
   the other on a worker (first on the worker when worker_first); then
   checks the CPU timeline and the trace's totals. */
static void scenario(const char *what, int worker_first, step_fn first, step_fn second, step_fn first2, step_fn second2,
                     const char *want_timeline, const char *want_totals) {
    prof_config cfg;
    prof_events *ev;
    char *text;
    char totals[1024];
    int64_t base;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    base = vc; /* (prof_start may have moved the clock) */
    vc = base + 1000;
    if (worker_first) { on_worker(first); second(); }
    else { first(); on_worker(second); }
    if (first2) {
        vc = base + 1100;
        if (worker_first) { on_worker(first2); second2(); }
        else { first2(); on_worker(second2); }
    }
    vc = base + 3000;
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    printf("%s, %s thread first\n", what, worker_first ? "worker" : "main");
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/test_mem_same_tick.json", PROF_DEVICE_CPU, 0), PROF_OK);
    text = check_read_file("build/test_mem_same_tick.json");
    CHECK_EQ_STR(text, want_timeline);
    free(text);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/test_mem_same_tick_trace.json"), PROF_OK);
    trace_totals("build/test_mem_same_tick_trace.json", totals, sizeof totals);
    CHECK_EQ_STR(totals, want_totals);
    prof_events_free(ev);
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
    /* a thread's own order is kept: freed then allocated again at one tick
       on one thread is a reuse, not a double allocation */
    {
        prof_config cfg;
        prof_events *ev;
        char *text;
        memset(&cfg, 0, sizeof cfg);
        cfg.profile_memory = 1;
        if (CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) {
            int64_t base = vc;
            vc = base + 1000;
            prof_alloc(P, 100);
            vc = base + 1100;
            prof_dealloc(P);
            prof_alloc(P, 30);
            vc = base + 1200;
            prof_dealloc(P);
            ev = prof_stop();
            if (CHECK(ev != NULL)) {
                CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/test_mem_same_tick.json", PROF_DEVICE_CPU, 0), PROF_OK);
                text = check_read_file("build/test_mem_same_tick.json");
                CHECK_EQ_STR(text, "[[1.000, 1.100, 1.200], [[100], [30], [0]]]\n");
                free(text);
                prof_events_free(ev);
            }
        }
    }
#else
    printf("skipped: needs the virtual TSC of fake_tsc.h (x86-64)\n");
#endif
    return check_report();
}
