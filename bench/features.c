/* bench/features.c - what the optional features cost per scope, next to a
   plain scope and the floor (two timestamp reads and a 24-byte store into
   a prefaulted buffer), measured in the same run. Buffers are warmed by a
   first session, so these are steady-state (reuse) figures.

   Prints `name value unit` lines and `name_ratio value x` against the floor. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum { N = 1000000, REPS = 5 };

typedef struct rec24 { const void *a; uint64_t t0, t1; } rec24;
static volatile int sink;
static rec24 *floor_buf;

static void quiet(prof_log_level l, prof_result c, const char *m, void *u) { (void)l; (void)c; (void)m; (void)u; }

static __attribute__((noinline)) void run_floor(void) {
    int i;
    for (i = 0; i < N; i++) {
        uint64_t t0 = raw_clock();
        sink = i;
        floor_buf[i].a = floor_buf;
        floor_buf[i].t0 = t0;
        floor_buf[i].t1 = raw_clock();
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
   should not grow with the number of names. Each is measured against a
   floor of its own that touches the same names the same way: what any
   recorder that keeps a run-time name must do (spall does this much):
   two timestamps, the name's strlen and copy into a prefaulted buffer
   behind a 24-byte header, and the 24-byte end record, the same bytes
   prof.h writes. The plain floor reads no name, so with 1M names (12 MB,
   read once per run) it would charge prof.h for memory traffic that no
   recorder can avoid.
   Each timed run of either loop comes right after a prof_stop of a
   PROF_SCOPE_DYN session over the same names (the floor's is untimed): with
   1M names that prof_stop interns 1M names in ~190 MB of fresh memory, and
   on this VM (paravirtualised page tables: re-reading 72 MB of resident
   pages after 300 MB of fresh ones took 1.6-5.7 ms instead of 0.2) any
   loop over the names and buffers after it runs 1.1-1.5x slower than the
   same loop after itself. Timed after itself, the floor alone escaped that
   and DYN read 1.3-1.5x its floor at 1M names (1.0-1.1x at 1 and 1k). The
   floor's buffer is 2 MiB-aligned and asks for huge pages, as prof.h's
   record blocks do. */
enum { NAME_LEN = 12 };
static char *dyn_names;
static rec24 *dyn_floor_buf;
static size_t dyn_distinct;
static __attribute__((noinline)) void run_dyn(void) {
    size_t i, j = 0, distinct = dyn_distinct;
    for (i = 0; i < N; i++) {
        PROF_SCOPE_DYN(dyn_names + j * NAME_LEN);
        sink = (int)i;
        if (++j == distinct) j = 0;
    }
}
static __attribute__((noinline)) void run_floor_dyn(void) {
    size_t i, j = 0, distinct = dyn_distinct;
    rec24 *r = dyn_floor_buf;
    for (i = 0; i < N; i++) {
        const char *name = dyn_names + j * NAME_LEN;
        size_t len = strlen(name), k = 1 + (len + sizeof(rec24)) / sizeof(rec24);
        rec24 *head = r;
        uint64_t t0;
        r->a = (const void *)(uintptr_t)k;
        r->t0 = (uint64_t)(uintptr_t)name;
        r->t1 = 0;
        memcpy(r + 1, name, len + 1);
        r += k;
        t0 = raw_clock();
        sink = (int)i;
        r->a = head;
        r->t0 = t0;
        r->t1 = raw_clock();
        r++;
        if (++j == distinct) j = 0;
    }
}

typedef struct mode { const char *name; void (*fn)(void); int record_shapes, with_flops, profile_memory, with_stack, events_per_iter; } mode;

/* The floor's buffer: 2 MiB-aligned, huge pages asked for, faulted in. */
static void *huge_buffer(size_t bytes) {
    size_t huge = (size_t)2 << 20, map = bytes + huge;
    char *m = (char *)mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == (char *)MAP_FAILED) return NULL;
    m += (huge - ((uintptr_t)m & (huge - 1))) & (huge - 1);
#if defined(MADV_HUGEPAGE)
    madvise(m, bytes, MADV_HUGEPAGE);
#endif
    memset(m, 0, bytes);
    return m;
}

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
        if (m->fn == run_floor_dyn) { /* what the DYN run finds: its names' session just stopped */
            prof_start(&c);
            run_dyn();
            prof_events_free(prof_stop());
        }
        if (m->fn != run_floor && m->fn != run_floor_dyn) prof_start(&c);
        a = now_s();
        m->fn();
        t[r] = (now_s() - a) * 1e9 / N;
        if (m->fn != run_floor && m->fn != run_floor_dyn) {
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
    };
    static const size_t distinct[] = { 1, 1000, N };
    static const char *const distinct_name[] = { "1_name", "1k_names", "1m_names" };
    static const mode dyn = { "scope_dyn", run_dyn, 0, 0, 0, 0, 1 }, dyn_floor = { "floor_dyn", run_floor_dyn, 0, 0, 0, 0, 0 };
    double floor_ns = 0;
    size_t i;
    dyn_names = (char *)malloc((size_t)N * NAME_LEN);
    if (!dyn_names) return 1;
    for (i = 0; i < (size_t)N; i++) snprintf(dyn_names + i * NAME_LEN, NAME_LEN, "op_%07zu", i);
    floor_buf = (rec24 *)malloc(sizeof(rec24) * N);
    dyn_floor_buf = (rec24 *)huge_buffer(sizeof(rec24) * N * 3); /* 12-byte names: 3 records a scope */
    if (!floor_buf || !dyn_floor_buf) return 1;
    memset(floor_buf, 0, sizeof(rec24) * N); /* prefaulted */
    printf("# bench/features: %d iterations x %d repetitions, medians, 1 thread, buffers reused\n", N, REPS);
    for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        double ns = measure(&modes[i]);
        if (i == 0) floor_ns = ns;
        printf("%s %.2f ns\n", modes[i].name, ns);
        if (i > 0) printf("%s_ratio %.3f x\n", modes[i].name, ns / floor_ns);
    }
    for (i = 0; i < sizeof distinct / sizeof distinct[0]; i++) {
        double fl, ns;
        dyn_distinct = distinct[i];
        fl = measure(&dyn_floor);
        ns = measure(&dyn);
        printf("floor_dyn_%s %.2f ns\n", distinct_name[i], fl);
        printf("scope_dyn_%s %.2f ns\n", distinct_name[i], ns);
        printf("scope_dyn_%s_ratio %.3f x (to its own floor: the same names read and copied)\n", distinct_name[i], ns / fl);
        printf("scope_dyn_%s_plain_floor_ratio %.3f x\n", distinct_name[i], ns / floor_ns);
    }
    printf("# with_stack scopes costs nothing while recording: the chain is built at prof_stop\n");
    free(floor_buf);
    munmap((void *)dyn_floor_buf, sizeof(rec24) * N * 3);
    free(dyn_names);
    prof_shutdown();
    return 0;
}
