/* bench/features.c - what the optional features cost per scope, next to a
   plain scope and the floor (two timestamp reads and a 24-byte store into
   a prefaulted buffer), measured in the same run. Buffers are warmed by a
   first session, so these are steady-state (reuse) figures.

   Prints `name value unit` lines and `name_ratio value x` against the floor. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 1000000, REPS = 5 };

typedef struct rec24 { const void *a; uint64_t t0, t1; } rec24;
static volatile int sink;
static rec24 *floor_buf;

static void quiet(prof_log_level l, prof_result c, const char *m, void *u) { (void)l; (void)c; (void)m; (void)u; }

static __attribute__((noinline)) void run_floor(void) {
    int i;
    for (i = 0; i < N; i++) {
        uint64_t t0 = __builtin_ia32_rdtsc();
        sink = i;
        floor_buf[i].a = floor_buf;
        floor_buf[i].t0 = t0;
        floor_buf[i].t1 = __builtin_ia32_rdtsc();
    }
}
static __attribute__((noinline)) void run_plain(void) {
    int i;
    for (i = 0; i < N; i++) { PROF_SCOPE("plain"); sink = i; }
}
static __attribute__((noinline)) void run_shapes(void) {
    int i;
    for (i = 0; i < N; i++) { PROF_SCOPE_SHAPES("mm", 2, 64, 128, 2, 128, (int64_t)i); sink = i; }
}
static __attribute__((noinline)) void run_flops(void) {
    int i;
    for (i = 0; i < N; i++) { PROF_SCOPE_FLOPS("mm", 2 * (int64_t)i); sink = i; }
}
static __attribute__((noinline)) void run_alloc(void) {
    int i;
    static char blocks[64];
    for (i = 0; i < N; i++) { prof_alloc(&blocks[i & 63], 256); prof_dealloc(&blocks[i & 63]); }
}

/* PROF_SCOPE_DYN with 1, 1k and 1M distinct names (made before the run,
   12 bytes each): the name is copied into the record stream, so the cost
   should not grow with the number of names */
enum { NAME_LEN = 12 };
static char *dyn_names;
static void run_dyn(size_t distinct) {
    size_t i, j = 0;
    for (i = 0; i < N; i++) {
        PROF_SCOPE_DYN(dyn_names + j * NAME_LEN);
        sink = (int)i;
        if (++j == distinct) j = 0;
    }
}
static __attribute__((noinline)) void run_dyn_1(void) { run_dyn(1); }
static __attribute__((noinline)) void run_dyn_1k(void) { run_dyn(1000); }
static __attribute__((noinline)) void run_dyn_1m(void) { run_dyn(N); }

typedef struct mode { const char *name; void (*fn)(void); int record_shapes, with_flops, profile_memory, with_stack, events_per_iter; } mode;

static double measure(const mode *m) {
    double t[REPS];
    int r;
    prof_config c;
    prof_events *ev;
    memset(&c, 0, sizeof c);
    c.max_events = (size_t)N * 4 + 1024;
    c.record_shapes = m->record_shapes;
    c.with_flops = m->with_flops;
    c.profile_memory = m->profile_memory;
    c.with_stack = m->with_stack;
    c.log = quiet;
    /* a first session faults the blocks in; the measured ones reuse them */
    prof_start(&c);
    m->fn();
    prof_events_free(prof_stop());
    for (r = 0; r < REPS; r++) {
        double a;
        if (m->fn != run_floor) prof_start(&c);
        a = now_s();
        m->fn();
        t[r] = (now_s() - a) * 1e9 / N;
        if (m->fn != run_floor) {
            ev = prof_stop();
            if (!ev || prof_events_count(ev) + prof_events_stats(ev).dropped < (size_t)N * (size_t)(m->events_per_iter > 0)) {
                fprintf(stderr, "%s: %zu events recorded\n", m->name, ev ? prof_events_count(ev) : 0);
            }
            prof_events_free(ev);
        }
    }
    qsort(t, REPS, sizeof t[0], cmp_double);
    return t[REPS / 2];
}

int main(void) {
    static const mode modes[] = {
        { "floor", run_floor, 0, 0, 0, 0, 0 },
        { "scope", run_plain, 0, 0, 0, 0, 1 },
        { "scope_with_stack_scopes", run_plain, 0, 0, 0, PROF_STACK_SCOPES, 1 },
        { "scope_with_stack_native", run_plain, 0, 0, 0, PROF_STACK_NATIVE, 1 },
        { "scope_shapes_2_inputs", run_shapes, 1, 0, 0, 0, 1 },
        { "scope_flops", run_flops, 0, 1, 0, 0, 1 },
        { "alloc_free_pair", run_alloc, 0, 0, 1, 0, 0 },
        { "scope_dyn_1_name", run_dyn_1, 0, 0, 0, 0, 1 },
        { "scope_dyn_1k_names", run_dyn_1k, 0, 0, 0, 0, 1 },
        { "scope_dyn_1m_names", run_dyn_1m, 0, 0, 0, 0, 1 },
    };
    double floor_ns = 0;
    size_t i;
    dyn_names = (char *)malloc((size_t)N * NAME_LEN);
    if (!dyn_names) return 1;
    for (i = 0; i < (size_t)N; i++) snprintf(dyn_names + i * NAME_LEN, NAME_LEN, "op_%07zu", i);
    floor_buf = (rec24 *)malloc(sizeof(rec24) * N);
    memset(floor_buf, 0, sizeof(rec24) * N); /* prefaulted */
    printf("# bench/features: %d iterations x %d repetitions, medians, 1 thread, buffers reused\n", N, REPS);
    for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        double ns = measure(&modes[i]);
        if (i == 0) floor_ns = ns;
        printf("%s %.2f ns\n", modes[i].name, ns);
        if (i > 0) printf("%s_ratio %.3f x\n", modes[i].name, ns / floor_ns);
    }
    printf("# with_stack scopes costs nothing while recording: the chain is built at prof_stop\n");
    free(floor_buf);
    free(dyn_names);
    prof_shutdown();
    return 0;
}
