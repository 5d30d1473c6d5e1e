/* test_oom.c - allocation failure: prof.h's PROF_MALLOC/PROF_REALLOC hooks
   fail on demand, and recording must lose only what it reports.

   - A PROF_BEGIN whose open-range stack cannot grow is dropped, and its
     PROF_END closes it, not the enclosing BEGIN (which once ended early,
     with the outer END reported as unbalanced).
   - The Nth allocation fails, for every N the workload makes: no crash,
     and every stopped session accounts for each scope the program ran
     (recorded + dropped + open at stop), with no unbalanced END. */
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
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

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
            long accounted = (long)(prof_events_count(ev) - count_named(ev, "mark") + st.dropped + st.open_at_stop);
            runs_stopped++;
            unnamed += (long)count_named(ev, ""); /* a run-time name without memory is a drop, never "" */
            if ((accounted != n || st.unbalanced_ends != 0) && bad++ < 5)
                fprintf(stderr, "allocation %ld failed: %ld scopes ran, %zu events (%zu marks) + %llu dropped + %llu open; %llu unbalanced\n", fail, n,
                        prof_events_count(ev), count_named(ev, "mark"), (unsigned long long)st.dropped, (unsigned long long)st.open_at_stop,
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

int main(void) {
    prof_set_log(check_log, NULL);
    test_stop_peak_flat();
    prof_shutdown();
    test_stack_analysis_fails(0);
    test_stack_analysis_fails(1);
    test_begin_stack_full();
    prof_shutdown();
    test_known_dyn_name();
    prof_shutdown();
    test_every_allocation_fails();
    prof_set_log(NULL, NULL);
    return check_report();
}
