/* test_oom.c - allocation failure: prof.h's PROF_MALLOC/PROF_REALLOC hooks
   fail on demand, and recording must lose only what it reports.

   - A PROF_BEGIN whose open-range stack cannot grow is dropped, and its
     PROF_END closes it, not the enclosing BEGIN (which once ended early,
     with the outer END reported as unbalanced).
   - The Nth allocation fails, for every N the workload makes: no crash,
     and every stopped session accounts for each scope the program ran
     (recorded + dropped + open at stop), with no unbalanced END.
   - prof_stop with its Nth allocation failing, for every N, keeps the
     records: prof_stop again gives the list a first successful stop gives
     (test_stop_retry); prof_start discards them with a warning. */
#define _GNU_SOURCE 1 /* before any system header: the implementation needs it */
#include <stdlib.h>

static long g_alloc_count, g_fail_at = -1; /* fail the allocation numbered g_fail_at */
static int g_fail_realloc;                  /* fail every PROF_REALLOC while set */
static int g_fail_all;                      /* fail every allocation while set */
/* atomics: prof.h's prefault thread allocates too (test_stop_peak_flat) */
static int fail_now(void) {
    return __atomic_add_fetch(&g_alloc_count, 1, __ATOMIC_RELAXED) == __atomic_load_n(&g_fail_at, __ATOMIC_RELAXED) || __atomic_load_n(&g_fail_all, __ATOMIC_RELAXED);
}
/* Live bytes of prof.h's heap, and their peak while g_track is set (any
   thread may allocate: atomics). */
#include <malloc.h>
static size_t g_live, g_peak;
static int g_track;
static void live_add(size_t add, size_t sub) {
    size_t now = __atomic_add_fetch(&g_live, add - sub, __ATOMIC_RELAXED), peak = __atomic_load_n(&g_peak, __ATOMIC_RELAXED);
    while (__atomic_load_n(&g_track, __ATOMIC_RELAXED) && now > peak &&
           !__atomic_compare_exchange_n(&g_peak, &peak, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}
static void *test_malloc(size_t n) {
    void *p = fail_now() ? NULL : malloc(n);
    if (p) live_add(malloc_usable_size(p), 0);
    return p;
}
static void *test_realloc(void *p, size_t n) {
    size_t old = p ? malloc_usable_size(p) : 0;
    void *q = (g_fail_realloc || fail_now()) ? NULL : realloc(p, n);
    if (q) live_add(malloc_usable_size(q), old);
    return q;
}
static void test_free(void *p) {
    if (p) live_add(0, malloc_usable_size(p));
    free(p);
}
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) test_realloc((p), (n))
#define PROF_FREE(p) test_free(p)

#ifndef PEAK_FLAT_LIMIT
#define PEAK_FLAT_LIMIT 80 /* B an event: 64 measured; 101 with the 40-byte entries */
#endif
#define PROF__TEST_HOOKS /* test_stop_retry_shutdown: prof_shutdown pauses where another thread stops */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static size_t count_named(prof_events *ev, const char *name) {
    size_t i, n = 0;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) n++;
    }
    return n;
}

static void test_begin_stack_full(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    int i;
    memset(&cfg, 0, sizeof cfg);
    check_log_reset();
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    PROF_BEGIN("A");
    for (i = 0; i < 31; i++) { /* the stack's first 32 slots; two names, or the chain would be merged */
        if (i % 2) PROF_BEGIN("n odd");
        else PROF_BEGIN("n even");
    }
    g_fail_realloc = 1;
    PROF_BEGIN("lost"); /* cannot grow: dropped */
    g_fail_realloc = 0;
    PROF_BEGIN("lost too"); /* above a lost one: dropped as well, to keep the order */
    PROF_END();
    PROF_END();
    for (i = 0; i < 31; i++) PROF_END();
    { PROF_SCOPE("after"); }
    PROF_END(); /* closes A */
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(count_named(ev, "A"), 1);
    CHECK_EQ_INT(count_named(ev, "n odd") + count_named(ev, "n even"), 31);
    CHECK_EQ_INT(count_named(ev, "after"), 1);
    CHECK_EQ_INT(count_named(ev, "lost") + count_named(ev, "lost too"), 0);
    CHECK_EQ_INT(st.dropped, 2);
    CHECK(check_log_has(PROF_E_DROPPED, "2 events were dropped for lack of memory"));
    CHECK(!check_log_has(PROF_E_DROPPED, "cap"));
    CHECK_EQ_INT(st.unbalanced_ends, 0);
    CHECK_EQ_INT(st.open_at_stop, 0);
    {
        /* "after" ran once the stack was back to A alone: A contains it */
        prof_event a, after;
        size_t k;
        memset(&a, 0, sizeof a);
        memset(&after, 0, sizeof after);
        for (k = 0; k < prof_events_count(ev); k++) {
            prof_event e;
            if (prof_events_get(ev, k, &e) != PROF_OK) continue;
            if (strcmp(e.name, "A") == 0) a = e;
            if (strcmp(e.name, "after") == 0) after = e;
        }
        CHECK(a.name && after.name && a.start_ns <= after.start_ns && after.end_ns <= a.end_ns);
    }
    prof_events_free(ev);
}

/* A run-time name needs no memory while recording: it is copied into the
   record stream, so with every allocation failing a known name and a new
   one are recorded. A name too long for that (4096 bytes and more) goes to
   the thread's name table: one already there needs no memory (the table
   used to try to grow before looking the name up, and dropped it), a new
   one does, and is dropped. */
static void dyn_scope(const char *name) { PROF_SCOPE_DYN(name); } /* one call site: names are kept per site */
static void test_known_dyn_name(void) {
    prof_config cfg;
    prof_events *ev;
    static char name[5000], long_new[5000];
    int i;
    memset(&cfg, 0, sizeof cfg);
    memset(name, 'L', sizeof name - 1);
    memcpy(long_new, name, sizeof name);
    long_new[0] = 'M';
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    dyn_scope("warm"); /* the thread's first block */
    for (i = 0; i < 32; i++) { /* the table's first 64 slots are half full: the next new name grows it */
        snprintf(name, 16, "%dn", i);
        name[strlen(name)] = 'L';
        dyn_scope(name);
    }
    snprintf(name, 16, "%dn", 0);
    name[strlen(name)] = 'L'; /* "0nLLL...", in the table */
    g_fail_all = 1;
    for (i = 0; i < 10; i++) dyn_scope(name);
    dyn_scope("new name"); /* short: into the records, no memory */
    dyn_scope(long_new);   /* long and new: needs memory, dropped */
    g_fail_all = 0;
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(count_named(ev, name), 11);
    CHECK_EQ_INT(count_named(ev, "new name"), 1);
    CHECK_EQ_INT(count_named(ev, long_new), 0);
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 1);
    prof_events_free(ev);
}

/* The workload of one run: nested scopes, BEGIN/END, run-time names, marks;
   returns the scopes it ran (marks are not scopes). */
static long workload(void) {
    long n = 0;
    int i, k;
    char name[32];
    for (i = 0; i < 40; i++) {
        PROF_SCOPE("outer");
        n++;
        PROF_BEGIN("range");
        n++;
        for (k = 0; k < 30; k++) {
            /* 30 deep: the stack grows. Three names in turn: in a chain of
               one name, or of two once a lost record takes one link out,
               the tree's _remove_dup_nodes would merge a parent with its
               only child of the same name */
            if (k % 3 == 0) PROF_BEGIN("deep a");
            else if (k % 3 == 1) PROF_BEGIN("deep b");
            else PROF_BEGIN("deep c");
            n++;
        }
        for (k = 0; k < 30; k++) PROF_END();
        snprintf(name, sizeof name, "dyn %d", i % 7); /* no same-name parent */
        PROF_BEGIN_DYN(name);
        n++;
        snprintf(name, sizeof name, "dyn scope %d", i % 5);
        { PROF_SCOPE_DYN(name); n++; }
        PROF_END();
        PROF_MARK("mark");
        PROF_END();
    }
    return n;
}

static void test_every_allocation_fails(void) {
    long n, fail, total_allocs, bad = 0, runs_stopped = 0, unnamed = 0;
    prof_config cfg;
    /* count the allocations of one run */
    g_alloc_count = 0;
    g_fail_at = -1;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = 100000;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    workload();
    prof_events_free(prof_stop());
    prof_shutdown();
    total_allocs = g_alloc_count;
    CHECK(total_allocs > 10);
    for (fail = 1; fail <= total_allocs + 5; fail++) {
        prof_events *ev;
        g_alloc_count = 0;
        g_fail_at = fail;
        check_log_reset();
        if (prof_start(&cfg) != PROF_OK) { prof_shutdown(); continue; } /* an error, not a crash */
        n = workload();
        ev = prof_stop();
        if (ev) {
            prof_stats st = prof_events_stats(ev);
            /* scopes and marks each add up (a failed record block makes the
               next ones wait, so marks are dropped too) */
            long accounted = (long)(prof_events_count(ev) - count_named(ev, "mark") + st.scopes_dropped + st.open_at_stop);
            long marks = (long)(st.marks + st.marks_dropped);
            runs_stopped++;
            unnamed += (long)count_named(ev, ""); /* a run-time name without memory is a drop, never "" */
            if ((accounted != n || marks != 40 || st.unbalanced_ends != 0) && bad++ < 5)
                fprintf(stderr, "allocation %ld failed: %ld scopes ran, %zu events (%zu marks) + %llu scopes and %llu marks dropped + %llu open; %llu unbalanced\n", fail, n,
                        prof_events_count(ev), count_named(ev, "mark"), (unsigned long long)st.scopes_dropped, (unsigned long long)st.marks_dropped, (unsigned long long)st.open_at_stop,
                        (unsigned long long)st.unbalanced_ends);
            prof_events_free(ev);
        }
        prof_shutdown();
    }
    g_fail_at = -1;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(unnamed, 0);
    /* most allocations are prof_stop's own (it then returns NULL with
       PROF_E_NOMEM); those during recording still give a list */
    CHECK_MSG(runs_stopped >= 5, "%ld of %ld runs stopped with a list", runs_stopped, total_allocs + 5);
}

/* key_averages by stack and the merged stacks, the Nth allocation failing
   for every N they make: a clear error (NULL, PROF_E_NOMEM) or the same
   result as without a failure, nothing else (ASan and valgrind see the
   rest). Frames that print apart once cleaned (a merged line per stack
   node) and frames that print alike ("a b", "a_b": the trie of lines);
   some nodes hold the first events of two rows. */
static int same_averages(const prof_averages *a, const prof_averages *b) {
    size_t i;
    int k;
    if (prof_averages_count(a) != prof_averages_count(b)) return 0;
    for (i = 0; i < prof_averages_count(a); i++) {
        const prof_avg *x = prof_averages_get(a, i), *y = prof_averages_get(b, i);
        if (strcmp(x->key, y->key) || x->count != y->count || x->self_cpu_time_total_ns != y->self_cpu_time_total_ns || x->stack_depth != y->stack_depth) return 0;
        for (k = 0; k < x->stack_depth; k++)
            if (strcmp(x->stack[k], y->stack[k])) return 0;
    }
    return 1;
}
static void test_stack_analysis_fails(int alike) {
    static const char *const apart[] = { "f (a.c:1)", "g (a.c:2)", "h h", "k (b.c:3)" };
    static const char *const together[] = { "a b", "a_b", "g (a.c:2)", "k (b.c:3)" };
    const char *const *frames = alike ? together : apart;
    const char *path = "test_oom.stacks";
    prof_events *ev = prof_events_create();
    prof_group_options g;
    prof_averages *want;
    char *want_text;
    long fail, bad = 0, failed = 0;
    int i;
    for (i = 0; ev && i < 400; i++) {
        const char *st[4];
        prof_event_desc d;
        int k, depth = 1 + i % 4;
        for (k = 0; k < depth; k++) st[k] = frames[(i * 7 + k * 3 + i / 5) % 4];
        memset(&d, 0, sizeof d);
        d.name = i % 3 ? "op" : "other";
        d.thread = 1;
        d.start_ns = i * 1000;
        d.end_ns = i * 1000 + 900 + i % 7;
        d.stack = st;
        d.stack_depth = depth;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    memset(&g, 0, sizeof g);
    g.group_by_stack_n = 2;
    g_fail_at = -1;
    want = prof_key_averages(ev, &g);
    CHECK_EQ_INT(prof_export_stacks_merged(ev, path, NULL), PROF_OK);
    want_text = check_read_file(path);
    if (!CHECK(want != NULL && want_text != NULL)) return;
    CHECK(prof_averages_count(want) > 10);
    for (fail = 1; fail < 100000; fail++) {
        prof_averages *a;
        prof_result r;
        g_alloc_count = 0;
        g_fail_at = fail;
        check_log_reset();
        a = prof_key_averages(ev, &g);
        if (a ? !same_averages(a, want) : check_log_count(PROF_E_NOMEM) < 1) bad++;
        prof_averages_free(a);
        failed += !a;
        r = prof_export_stacks_merged(ev, path, NULL);
        if (r == PROF_OK) {
            char *text = check_read_file(path);
            if (!text || strcmp(text, want_text)) bad++;
            free(text);
        } else if (r != PROF_E_NOMEM) {
            bad++;
        }
        if (g_alloc_count < fail) break; /* no allocation left to fail */
    }
    g_fail_at = -1;
    CHECK_EQ_INT(bad, 0);
    CHECK(failed > 3); /* the point: allocations did fail */
    remove(path);
    free(want_text);
    prof_averages_free(want);
    prof_events_free(ev);
}

/* prof_stop of one thread's flat scopes: the pass that orders and links a
   lone thread's run keeps a stack entry per top-level scope until it ends.
   Its entries were 40 bytes (times copied in), 28 an event more than the
   12 of the general way's stack: the heap's peak over what it held before
   the stop is bounded per event here (the list's 48 B, its growth, the
   stack's 12 B and the stack's own growth). */
static void test_stop_peak_flat(void) {
    enum { N = 200000 };
    prof_config c;
    prof_events *ev;
    size_t i, base;
    double per_event;
    memset(&c, 0, sizeof c);
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    for (i = 0; i < N; i++) {
        PROF_SCOPE("flat");
    }
    base = __atomic_load_n(&g_live, __ATOMIC_RELAXED);
    __atomic_store_n(&g_peak, base, __ATOMIC_RELAXED);
    __atomic_store_n(&g_track, 1, __ATOMIC_RELAXED);
    ev = prof_stop();
    __atomic_store_n(&g_track, 0, __ATOMIC_RELAXED);
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT((long long)prof_events_count(ev), N);
    per_event = (double)(__atomic_load_n(&g_peak, __ATOMIC_RELAXED) - base) / N;
    CHECK_MSG(per_event <= PEAK_FLAT_LIMIT, "prof_stop's heap peak %.1f B an event over its start (limit %d)", per_event, PEAK_FLAT_LIMIT);
    prof_events_free(ev);
}

/* ----- prof_stop out of memory loses nothing -----
   A session is recorded once; each child of a fork then stops it with the
   Nth allocation of prof_stop failing (every N, until one succeeds), and
   again with the same allocation failing in the retry, and once more with
   none: the list must be the one a first successful stop gives (in a child
   of its own), event by event with times, stacks, shapes, trees, memory
   and every count. Recording has ended at the first failure: a scope run
   between the attempts must not appear. */
typedef struct retry_mode { const char *name; int stacks, shapes, memory, threads; } retry_mode;

typedef struct dump_buf { char *p; size_t n, cap; } dump_buf;
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void dump_printf(dump_buf *b, const char *fmt, ...) {
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->n + (size_t)n + 1 > b->cap) {
        size_t cap = 2 * (b->n + (size_t)n + 1);
        char *p = (char *)realloc(b->p, cap);
        if (!p) return;
        b->p = p;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}
static void dump_str(dump_buf *b, const char *s) { dump_printf(b, "%s|", s ? s : "(null)"); }
/* Everything prof_events_get and prof_events_stats say, as text. Threads
   by their order of appearance: a fork gives the forking thread, whose
   records are the main thread's, the child's id. */
static char *dump_list(prof_events *ev) {
    dump_buf b;
    prof_stats st = prof_events_stats(ev);
    size_t i, nthr = 0, t;
    uint64_t thr[16];
    const char *thr_name[16]; /* the name dumped for the thread: a 70 KiB name once, not on each of its events */
    memset(&b, 0, sizeof b);
    dump_printf(&b, "n %zu stats %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", prof_events_count(ev),
                     (unsigned long long)st.events, (unsigned long long)st.dropped, (unsigned long long)st.unbalanced_ends,
                     (unsigned long long)st.open_at_stop, (unsigned long long)st.threads, (unsigned long long)st.unknown_frees,
                     (unsigned long long)st.unmatched_async, (unsigned long long)st.blocks_added, (unsigned long long)st.malformed_shapes,
                     (unsigned long long)st.scopes_entered, (unsigned long long)st.scopes_recorded, (unsigned long long)st.scopes_dropped,
                     (unsigned long long)st.merged, (unsigned long long)st.marks, (unsigned long long)st.marks_dropped,
                     (unsigned long long)st.counters, (unsigned long long)st.allocs, (unsigned long long)st.allocs_dropped,
                     (unsigned long long)st.async_records, (unsigned long long)st.async_dropped);
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        int k;
        if (prof_events_get(ev, i, &e) != PROF_OK) { dump_printf(&b, "get %zu failed\n", i); continue; }
        for (t = 0; t < nthr && thr[t] != e.thread; t++) {}
        if (t == nthr && nthr < 16) { thr[nthr] = e.thread; thr_name[nthr++] = NULL; }
        dump_str(&b, e.name);
        dump_str(&b, e.overload_name);
        dump_str(&b, e.trace_name);
        dump_str(&b, e.file);
        dump_str(&b, e.func);
        if (t < nthr && e.thread_name && thr_name[t] && strcmp(e.thread_name, thr_name[t]) == 0) dump_str(&b, "(the thread's name above)");
        else {
            dump_str(&b, e.thread_name);
            if (t < nthr) thr_name[t] = e.thread_name;
        }
        dump_str(&b, e.input_shapes);
        dump_printf(&b, "%d %llu %lld %lld %d %d %d %d %lld %d %llu %lld %lld %zu %zu %lld %lld %lld %lld |", e.line, (unsigned long long)t,
                         (long long)e.start_ns, (long long)e.end_ns, (int)e.device_type, e.is_async, e.is_user_annotation, e.scope,
                         (long long)e.sequence_nr, e.has_fwd_thread, (unsigned long long)e.fwd_thread, (long long)e.flops, (long long)e.parent,
                         e.n_children, e.n_kernels, (long long)e.cpu_time_total_ns, (long long)e.self_cpu_time_total_ns,
                         (long long)e.cpu_memory_usage, (long long)e.self_cpu_memory_usage);
        for (k = 0; k < e.stack_depth; k++) dump_str(&b, e.stack[k]);
        dump_printf(&b, "\n");
    }
    { /* the allocations' categories */
        const char *cat[8];
        size_t k, nc = prof_memory_categories(ev, PROF_DEVICE_CPU, 0, cat, 8);
        dump_printf(&b, "categories %zu:", nc);
        for (k = 0; k < nc && k < 8; k++) dump_str(&b, cat[k]);
        dump_printf(&b, "\n");
    }
    dump_printf(&b, "use_device %s\n", ev->use_device ? ev->use_device : "(none)");
    return b.p;
}

/* Texts longer than the list's arena chunks (64 KiB): interning one
   allocates a chunk for it, so the sweeps fail that allocation too. An op's
   overload name; a thread's name (the thread once kept no name after the
   retry); an allocation's category; prof_events_add's overload and trace
   names (test_add_names_fail). */
enum { LONG_OVERLOAD, LONG_THREAD, LONG_CATEGORY, LONG_ADD_OVERLOAD, LONG_ADD_TRACE, LONG_CUDA_CATEGORY, LONG_N };
static const char *long_text(int which) {
    static const char *const head[LONG_N] = { "out.", "worker b ", "category ", "long ", "long ", "device category " };
    static const char fill[LONG_N] = { 'o', 't', 'c', 'a', 'b', 'd' };
    static char text[LONG_N][70000];
    if (!text[which][0]) {
        memset(text[which], fill[which], sizeof text[which] - 1);
        memcpy(text[which], head[which], strlen(head[which]));
    }
    return text[which];
}
static void *retry_worker(void *arg) {
    int i, id = (int)(intptr_t)arg;
    char name[32];
    prof_set_thread_name(id ? long_text(LONG_THREAD) : "worker a");
    for (i = 0; i < 60; i++) {
        PROF_SCOPE("work");
        snprintf(name, sizeof name, "dyn %d", (i + id) % 5);
        { PROF_SCOPE_DYN(name); }
        if (i % 10 == 0) PROF_ASYNC_END(100 + id); /* ends the main thread's range */
    }
    return NULL;
}
static void retry_record(const retry_mode *m) {
    int i, k;
    char dyn[32];
    PROF_BEGIN("open at the stop");
    if (m->shapes) { /* _remove_dup_nodes: a child that shares its parent's
                        name is merged into it; the first pair needs no
                        memory, the second (the child has shapes, its
                        parent none) an extra record for the parent */
        { PROF_SCOPE("dup"); { PROF_SCOPE("dup"); { PROF_SCOPE("dup leaf"); } } }
        { PROF_SCOPE("dup2"); { PROF_SCOPE_SHAPES("dup2", 2, 3, 4); } }
    }
    snprintf(dyn, sizeof dyn, "run-time name %d", m->threads);
    { /* a name read in the first block, its scope's record in a later one */
        PROF_SCOPE_DYN(dyn);
        for (i = 0; i < 80; i++) {
            PROF_SCOPE("step");
            if (i == 3) PROF_ASYNC_BEGIN("range a", 100);
            if (i == 5) PROF_ASYNC_BEGIN("range b", 101);
            PROF_MARK("mark");
            PROF_COUNTER("counter", i * 0.5);
            for (k = 0; k < 3; k++) {
                if (m->shapes) {
                    prof_args a;
                    int64_t shapes[4];
                    memset(&a, 0, sizeof a);
                    shapes[0] = 1;
                    shapes[1] = k + 1;
                    shapes[2] = 2;
                    shapes[3] = i % 4;
                    a.shapes = shapes;
                    a.shapes_len = k == 2 ? 4 : 2;
                    a.flops = 10 * i + k;
                    a.sequence_nr = 3 * i + k;
                    a.set = PROF_ARGS_SEQUENCE_NR;
                    /* interned (with native stacks into the op's own
                       extra): one longer than the list's arena chunks (64
                       KiB), so that a chunk is allocated for it */
                    a.overload_name = k != 1 ? NULL : i == 7 ? long_text(LONG_OVERLOAD) : "out";
                    { PROF_SCOPE_ARGS("aten::op", &a); }
                    { PROF_SCOPE_SHAPES("aten::mm", 2, i % 3 + 1, 4); }
                } else {
                    PROF_SCOPE("inner");
                }
            }
            if (m->shapes && i % 20 == 19) prof_step(); /* a step's name: interned into its own extra */
            if (m->memory) {
                if (i == 6) prof_alloc_ex((const void *)(uintptr_t)(0x1000 + 16 * i), 64 + (size_t)i, PROF_DEVICE_CPU, 0, long_text(LONG_CATEGORY));
                else prof_alloc((const void *)(uintptr_t)(0x1000 + 16 * i), 64 + (size_t)i);
                if (i % 2) prof_dealloc((const void *)(uintptr_t)(0x1000 + 16 * (i - 1)));
            }
        }
    }
    if (m->threads) {
        pthread_t th[2];
        for (i = 0; i < 2; i++) pthread_create(&th[i], NULL, retry_worker, (void *)(intptr_t)i);
        for (i = 0; i < 2; i++) pthread_join(th[i], NULL); /* exited before the stop: kept by it */
    }
    if (m->memory) /* CUDA memory recorded by hand, the main thread's last
                      record: its category fills an arena chunk of its own,
                      so the list's device ("cuda", interned after the
                      records) takes a new chunk, an allocation the sweep
                      fails (the list once kept no device then) */
        prof_alloc_ex((const void *)(uintptr_t)0x9000, 256, PROF_DEVICE_CUDA, 0, long_text(LONG_CUDA_CATEGORY));
    (void)k;
}

/* The child's outcome for one failing allocation. */
enum { RETRY_SAME = 0, RETRY_DIFFERENT = 1, RETRY_NO_FAILURE = 2, RETRY_BAD_STATE = 3 };
static int retry_child(long fail, const char *want) {
    prof_events *ev;
    char *got;
    int same;
    check_log_reset();
    g_alloc_count = 0;
    g_fail_at = fail;
    ev = prof_stop();
    g_fail_at = -1;
    if (ev && g_alloc_count < fail) { prof_events_free(ev); return RETRY_NO_FAILURE; }
    /* (a list despite the failure: one it works around, a smaller reserve
       or an in-place step; the same list) */
    if (!ev) {
        if (!check_log_has(PROF_E_NOMEM, "the records are kept") || !check_log_has(PROF_E_NOMEM, "call prof_stop again") || prof_is_recording()) return RETRY_BAD_STATE;
        { PROF_SCOPE("between the attempts"); } /* recording has ended: not in the list */
        g_alloc_count = 0; /* the same allocation of the retry fails too */
        g_fail_at = fail;
        ev = prof_stop();
        g_fail_at = -1;
        if (!ev) ev = prof_stop();
        if (!ev) return RETRY_BAD_STATE;
    }
    got = dump_list(ev);
    same = got && strcmp(got, want) == 0;
    if (!same && got) {
        size_t k = 0;
        while (got[k] && got[k] == want[k]) k++;
        while (k > 0 && got[k - 1] != '\n') k--;
        fprintf(stderr, "allocation %ld: the list after the retry differs from the line:\n--- got\n%.300s\n--- want\n%.300s\n", fail, got + k, want + k);
    }
    free(got);
    prof_events_free(ev);
    return same ? RETRY_SAME : RETRY_DIFFERENT;
}
static int retry_wait(pid_t pid) {
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
static void test_stop_retry(const retry_mode *m) {
    prof_config cfg;
    char *want;
    const char *path = "test_oom.retry";
    long fail, failed = 0, bad = 0;
    pid_t pid;
    prof_events *ev;
    memset(&cfg, 0, sizeof cfg);
    cfg.with_stack = m->stacks; /* PROF_STACK_NONE, _SCOPES or _NATIVE */
    cfg.record_shapes = m->shapes;
    cfg.with_flops = m->shapes;
    cfg.profile_memory = m->memory;
    int ticks_are_ns;
    g_fail_at = -1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    /* Each process calibrates the clock when it stops (prof__clock_calibrate):
       the reference's child and the retry's would convert the same ticks to
       nanoseconds a little differently. Times here are the ticks as they
       are, the same in every child. */
    ticks_are_ns = prof__clk.ticks_are_ns;
    prof__clk.ticks_are_ns = 1;
    retry_record(m);
    fflush(NULL);
    if ((pid = fork()) == 0) { /* the reference: a first stop that succeeds */
        FILE *f = fopen(path, "w");
        char *text;
        int ok;
        ev = prof_stop();
        text = ev ? dump_list(ev) : NULL;
        ok = f && text && fputs(text, f) >= 0;
        if (f && fclose(f) != 0) ok = 0;
        free(text); /* (valgrind checks the child's leaks too) */
        prof_events_free(ev);
        _exit(ok ? 0 : 1);
    }
    CHECK_EQ_INT(retry_wait(pid), 0);
    want = check_read_file(path);
    remove(path);
    if (!CHECK(want != NULL)) { prof_events_free(prof_stop()); prof__clk.ticks_are_ns = ticks_are_ns; return; }
    CHECK(strstr(want, "between the attempts") == NULL);
    for (fail = 1; fail < 100000; fail++) { /* (not run under valgrind: see main) */
        int r;
        fflush(NULL);
        if ((pid = fork()) == 0) _exit(retry_child(fail, want));
        r = retry_wait(pid);
        if (r == RETRY_NO_FAILURE) break;
        failed++;
        if (r != RETRY_SAME && bad++ < 5) fprintf(stderr, "%s: allocation %ld of prof_stop failing: child outcome %d\n", m->name, fail, r);
    }
    printf("test_stop_retry (%s): prof_stop stopped with %ld of its allocations failing, then again\n", m->name, failed);
    CHECK_MSG(bad == 0, "%s: %ld of %ld failing allocations lost or changed the list", m->name, bad, failed);
    CHECK_MSG(failed > 3, "%s: prof_stop made %ld allocations", m->name, failed);
    check_log_reset();
    ev = prof_stop(); /* the parent's own records: a plain stop */
    CHECK(ev != NULL);
    if (ev) {
        char *text = dump_list(ev);
        CHECK(text && strcmp(text, want) == 0);
        free(text);
    }
    prof_events_free(ev);
    free(want);
    prof__clk.ticks_are_ns = ticks_are_ns;
}

/* The same with the address space really full (RLIMIT_AS, in a child):
   prof_stop fails in libc's malloc, the limit is raised, and prof_stop
   again gives every event. Not under valgrind or the sanitizers, whose
   own mappings the limit would hit. */
static int rlimit_child(void) {
    enum { N = 1000000 };
    struct rlimit lim;
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    long pages = 0, i;
    FILE *f;
    memset(&cfg, 0, sizeof cfg);
    cfg.no_prefault_thread = 1; /* its blocks and stack, freed by prof_stop, would make room */
    if (prof_start(&cfg) != PROF_OK) return 10;
    for (i = 0; i < N; i++) {
        PROF_SCOPE("limited");
    }
    f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld", &pages) != 1) return 11;
    fclose(f);
    if (getrlimit(RLIMIT_AS, &lim) != 0) return 12;
    /* no more than now: the records' 24 MB go as they are read, the list's
       48 MB do not fit in their place */
    lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
    check_log_reset();
    if (setrlimit(RLIMIT_AS, &lim) != 0) return 13;
    ev = prof_stop();
    lim.rlim_cur = lim.rlim_max;
    if (setrlimit(RLIMIT_AS, &lim) != 0) return 14;
    if (ev) return 15; /* the limit did not bite */
    if (!check_log_has(PROF_E_NOMEM, "the records are kept")) return 16;
    ev = prof_stop();
    if (!ev) return 17;
    st = prof_events_stats(ev);
    if (prof_events_count(ev) != N || count_named(ev, "limited") != N || st.scopes_entered != N || st.scopes_recorded != N || st.dropped || st.open_at_stop) return 18;
    prof_events_free(ev);
    return 0;
}
/* in a process of its own (this program run again): the heap the tests
   before leave free would make room */
static void test_stop_retry_rlimit(void) {
    pid_t pid;
    if (check_under_valgrind() || check_under_sanitizer()) return;
    fflush(NULL);
    if ((pid = fork()) == 0) {
        char *const args[] = { (char *)"test_oom", (char *)"--rlimit-child", NULL };
        execv("/proc/self/exe", args);
        _exit(20);
    }
    CHECK_EQ_INT(retry_wait(pid), 0);
}

/* After a failed stop: prof_start discards the kept records with a
   warning and starts afresh; prof_stop then gives the new session's list. */
static void test_stop_retry_start(void) {
    prof_config cfg;
    prof_events *ev;
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    { PROF_SCOPE("old"); }
    check_log_reset();
    g_fail_all = 1;
    ev = prof_stop();
    g_fail_all = 0;
    CHECK(ev == NULL);
    CHECK(check_log_has(PROF_E_NOMEM, "the records are kept"));
    CHECK_EQ_INT(prof_is_recording(), 0);
    CHECK_EQ_INT(prof_step(), PROF_E_STATE); /* no session records */
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    CHECK(check_log_has(PROF_E_STATE, "prof_start: the records kept when prof_stop ran out of memory are discarded"));
    { PROF_SCOPE("new"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(count_named(ev, "old"), 0);
    CHECK_EQ_INT(count_named(ev, "new"), 1);
    prof_events_free(ev);
    check_log_reset();
    CHECK(prof_stop() == NULL);
    CHECK(check_log_has(PROF_E_STATE, "no session is recording"));
}

/* prof_shutdown on one thread while another's prof_stop runs out of
   memory: the records kept must stay whole (those of a thread that
   exited included), whichever goes first. prof_shutdown's hook
   (PROF__HOOK_SHUTDOWN, past its check for kept records, before it frees
   exited threads) lets the other thread stop there: prof_shutdown must
   not free what a collection kept meanwhile (the stop waits for it). */
typedef struct shut_race { pthread_mutex_t lock; pthread_cond_t cond; int step; } shut_race;
static shut_race g_shut = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
static void shut_set(int step) {
    pthread_mutex_lock(&g_shut.lock);
    g_shut.step = step;
    pthread_cond_broadcast(&g_shut.cond);
    pthread_mutex_unlock(&g_shut.lock);
}
static void shut_hook(int where) {
    struct timespec until;
    if (where != PROF__HOOK_SHUTDOWN) return;
    shut_set(1); /* the other thread stops now */
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1; /* where prof_stop waits for prof_shutdown, its stop comes later */
    pthread_mutex_lock(&g_shut.lock);
    while (g_shut.step < 2 && pthread_cond_timedwait(&g_shut.cond, &g_shut.lock, &until) == 0) {}
    pthread_mutex_unlock(&g_shut.lock);
}
static void *shut_exiting(void *arg) {
    int i;
    (void)arg;
    for (i = 0; i < 100; i++) { PROF_SCOPE("exited"); }
    return NULL;
}
static void *shut_thread(void *arg) {
    (void)arg;
    prof_shutdown();
    return NULL;
}
static void test_stop_retry_shutdown(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    { PROF_SCOPE("main"); }
    if (!CHECK(pthread_create(&th, NULL, shut_exiting, NULL) == 0)) return;
    pthread_join(th, NULL); /* exited: its records wait for prof_stop */
    g_shut.step = 0;
    prof__test_hook = shut_hook;
    if (!CHECK(pthread_create(&th, NULL, shut_thread, NULL) == 0)) return;
    pthread_mutex_lock(&g_shut.lock);
    while (g_shut.step < 1) pthread_cond_wait(&g_shut.cond, &g_shut.lock);
    pthread_mutex_unlock(&g_shut.lock);
    g_fail_all = 1;
    ev = prof_stop(); /* out of memory: the records are kept */
    g_fail_all = 0;
    shut_set(2);
    pthread_join(th, NULL);
    prof__test_hook = NULL;
    CHECK(ev == NULL);
    if (!ev) ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(count_named(ev, "exited"), 100);
    CHECK_EQ_INT(count_named(ev, "main"), 1);
    prof_events_free(ev);
}

/* prof_events_add with names longer than the arena's chunks, with each of
   its allocations failing in turn: a call that succeeds has copied every
   name and the shapes (a failed copy once left them NULL: an event with no
   overload name), one that fails added no event. */
static void test_add_names_fail(void) {
    static const int ndims[2] = { 2, 1 };
    static const int64_t dims[3] = { 3, 4, 5 };
    long fail, ok_add = 0;
    for (fail = 1; fail <= 40; fail++) {
        prof_events *ev = prof_events_create();
        prof_event_desc d;
        prof_event got;
        int64_t k;
        if (!CHECK(ev != NULL)) return;
        check_add_event(ev, "launch", 1, 0, 1000);
        memset(&d, 0, sizeof d);
        d.name = "op";
        d.thread = 1;
        d.end_ns = 1000;
        d.overload_name = long_text(LONG_ADD_OVERLOAD);
        d.trace_name = long_text(LONG_ADD_TRACE);
        d.set = PROF_EVENT_SHAPES;
        d.input_shapes.n_inputs = 2;
        d.input_shapes.ndims = ndims;
        d.input_shapes.dims = dims;
        g_alloc_count = 0;
        g_fail_at = fail;
        k = prof_events_add(ev, &d);
        g_fail_at = -1;
        if (k >= 0) {
            ok_add++;
            memset(&got, 0, sizeof got);
            CHECK_EQ_INT(prof_events_get(ev, (size_t)k, &got), PROF_OK);
            CHECK(got.overload_name && strcmp(got.overload_name, long_text(LONG_ADD_OVERLOAD)) == 0);
            CHECK(got.trace_name && strcmp(got.trace_name, long_text(LONG_ADD_TRACE)) == 0);
            CHECK(got.input_shapes && strcmp(got.input_shapes, "[[3, 4], [5]]") == 0);
        } else {
            CHECK_EQ_INT(prof_events_count(ev), 1);
        }
        prof_events_free(ev);
    }
    CHECK(ok_add >= 10); /* the sweep ran past every allocation of the call */
}

int main(int argc, char **argv) {
    prof_set_log(check_log, NULL);
    if (argc > 1 && strcmp(argv[1], "--rlimit-child") == 0) return rlimit_child();
    test_stop_peak_flat();
    prof_shutdown();
    test_stack_analysis_fails(0);
    test_stack_analysis_fails(1);
    test_begin_stack_full();
    prof_shutdown();
    test_known_dyn_name();
    prof_shutdown();
    test_every_allocation_fails();
    test_add_names_fail();
    {
        static const retry_mode modes[] = { { "plain", 0, 0, 0, 0 }, { "threads", 0, 0, 1, 1 }, { "stacks, shapes, args", PROF_STACK_SCOPES, 1, 1, 1 },
                                             { "native stacks", PROF_STACK_NATIVE, 0, 0, 1 }, { "native stacks, args", PROF_STACK_NATIVE, 1, 0, 0 } };
        size_t m;
        /* Not under valgrind: each forked child's leak check of the recorded
           session takes seconds, and even every 13th allocation ran past
           CTest's limit on a 2-core machine; the plain, ASan and TSan builds
           fail every allocation of every mode. */
        for (m = 0; m < sizeof modes / sizeof *modes && !check_under_valgrind(); m++) test_stop_retry(&modes[m]);
        prof_shutdown();
        test_stop_retry_start();
        prof_shutdown();
        test_stop_retry_shutdown();
        prof_shutdown();
        test_stop_retry_rlimit();
    }
    prof_set_log(NULL, NULL);
    return check_report();
}
