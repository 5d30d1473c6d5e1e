/* The JSON trace's work on its paths of ancestors grows with the events
   alone (prof__path_work: levels pushed by the slow path and members of
   chains walked), not with depth, threads or chains that end together.
   Each of these shapes was once superlinear (measured, 2 vCPUs):
   - two threads recursing 1024 deep at once: their events interleave in
     start order, and each change of thread rebuilt the other thread's
     path from its root: 9 us an event (1 thread: 0.15 us);
   - a chain of nested events that all end at one ns (a coarse clock, a
     list imported from microsecond traces): each level walked the whole
     chain below it (prof__sub_end), and past 32768 events each parallel
     chunk rebuilt the path from the root, each level walking again: 34000
     events took 55 s;
   - the same chain on one GPU stream (prof__lane_durs): 80000 in 16 s;
   - a chain 100k deep with leaves under it: each 2048-event chunk pushed
     the whole path again;
   - a CPU chain with a kernel between each two of its levels: a kernel
     carries the thread that launched it and was kept on that thread's
     path, which it emptied, so each level rebuilt the chain from its
     root: 250 an event at depth 1000, 4000 at depth 16000, 500 here.
   Work is counted, not timed. Each trace is also checked against the same
   trace written one event at a time through the slow path alone
   (prof__trace_fast = 0) and, for the parallel ones, on one thread. */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT "build/test_trace_paths"

/* Exports ev (the way the suite's other lists go: parallel past
   prof__par_min_events) and checks the work per event, then the bytes
   against the slow path's and one thread's. */
static void check_trace(const char *what, prof_events *ev, double max_per_event) {
    size_t n = prof_events_count(ev), na = 0, nb = 0;
    uint64_t w0 = prof__path_work, work;
    char *a, *b;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/t.json"), PROF_OK);
    work = prof__path_work - w0;
    a = check_read_file_n(OUT "/t.json", &na);
    if (!CHECK((double)work <= max_per_event * (double)n))
        fprintf(stderr, "%s: %llu levels pushed and walked for %zu events (%.1f an event, at most %.1f expected)\n", what,
                (unsigned long long)work, n, (double)work / (double)n, max_per_event);
    prof__trace_fast = 0;
    prof__par_min_events = (size_t)-1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/t.json"), PROF_OK);
    prof__trace_fast = 1;
    prof__par_min_events = 32768;
    b = check_read_file_n(OUT "/t.json", &nb);
    if (CHECK(a && b) && !CHECK(na == nb && memcmp(a, b, na) == 0)) fprintf(stderr, "%s: the trace differs from the slow path's\n", what);
    free(a);
    free(b);
}

/* T threads, each recursing `depth` deep again and again, at once: the
   threads' events interleave */
static void threads_deep(int threads, long depth, long events, double max_per_event) {
    prof_events *ev = prof_events_create();
    long reps = events / (threads * depth), r, i;
    int t;
    char what[64];
    for (r = 0; r < reps; r++)
        for (i = 0; i < depth; i++)
            for (t = 0; t < threads; t++) {
                const int64_t base = r * (4 * depth + 10);
                check_add_event(ev, (i & 1) ? "f" : "g", (uint64_t)t + 1, (base + 2 * i) * 10 + t, (base + 4 * depth - 2 * i) * 10 + t);
            }
    snprintf(what, sizeof what, "%d threads %ld deep", threads, depth);
    check_trace(what, ev, max_per_event);
    prof_events_free(ev);
}

/* n nested events that all end at one ns, on a thread or one GPU stream */
static void chain_same_end(long n, int gpu) {
    prof_events *ev = prof_events_create();
    long i;
    for (i = 0; i < n; i++) {
        if (gpu) check_add_kernel(ev, "kernel", 0, 7, i, n + 5);
        else check_add_event(ev, (i & 1) ? "f" : "g", 1, i, n + 5);
    }
    check_trace(gpu ? "a GPU chain ending together" : "a chain ending together", ev, 5); /* 2.0 and 4.0; before 20000 and 280000 */
    prof_events_free(ev);
}

/* a chain `depth` deep (ends 1 ns apart) with `leaves` leaves under its
   deepest event: every chunk of the parallel trace starts deep */
static void deep_with_leaves(long depth, long leaves) {
    prof_events *ev = prof_events_create();
    long i;
    for (i = 0; i < depth; i++) check_add_event(ev, (i & 1) ? "f" : "g", 1, i, 3 * depth + 4 * leaves - i);
    for (i = 0; i < leaves; i++) check_add_event(ev, "leaf", 1, depth + 4 * i, depth + 4 * i + 2);
    check_trace("a deep chain with leaves", ev, 2); /* 0.5; before 18 */
    prof_events_free(ev);
}

/* a CPU chain `depth` deep on thread 1 with a kernel it launched between
   each two of its levels (streams 7 and 8 in turn), again and again */
static void chain_with_kernels(long depth, long reps) {
    prof_events *ev = prof_events_create();
    long r, i;
    for (r = 0; r < reps; r++) {
        const int64_t base = r * (40 * depth + 100);
        for (i = 0; i < depth; i++) {
            check_add_event(ev, (i & 1) ? "f" : "g", 1, base + 10 * i, base + 40 * depth - 10 * i);
            check_add_kernel(ev, "kernel", 0, 7 + (i & 1), base + 10 * i + 5, base + 10 * i + 6);
        }
    }
    check_trace("a chain with kernels between its levels", ev, 2); /* 0.8; before 500 */
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    (void)system("mkdir -p " OUT);
    threads_deep(2, 1024, 65536, 2);   /* 1.0 an event; before: 9 us an event */
    threads_deep(5, 300, 60000, 2);    /* 1.2; before 150 */
    threads_deep(40, 64, 64000, 2);    /* 1.4; before 32 */
    threads_deep(300, 16, 48000, 5.5); /* more threads than paths kept, which rebuild the levels that changed: 3.7; before 8.4 */
    chain_same_end(40000, 0);
    chain_same_end(40000, 1);
    deep_with_leaves(50000, 50000);
    chain_with_kernels(2000, 12);
    return check_report();
}
