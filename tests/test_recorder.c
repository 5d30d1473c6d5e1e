/* The recorder through its macros, on one thread: nesting, every way out
   of a scope, names (PROF_FUNC, run-time names), PROF_BEGIN/PROF_END,
   the error paths (unbalanced ends, scopes open at prof_stop, the event
   cap, session state) and several sessions in a row. Each profile is
   checked against the tree rules: a parent contains its child, on the
   same thread, self time = total - children, starts in order. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t my_tid(void) { return (uint64_t)syscall(SYS_gettid); }

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
/* Busy wait, so every scope lasts a measurable time. */
static void spin_ns(int64_t ns) {
    int64_t end = mono_ns() + ns;
    while (mono_ns() < end) { }
}

static prof_config config(void) {
    prof_config c;
    memset(&c, 0, sizeof c);
    c.log = check_log;
    return c;
}

static prof_event get(prof_events *ev, int64_t i) {
    prof_event e;
    memset(&e, 0, sizeof e);
    if (i < 0 || prof_events_get(ev, (size_t)i, &e) != PROF_OK) e.name = "<no event>";
    return e;
}

/* Index of the nth (0-based) event called name, in list order; -1 if none. */
static int64_t find(prof_events *ev, const char *name, size_t nth) {
    size_t i, n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e = get(ev, (int64_t)i);
        if (strcmp(e.name, name) == 0 && nth-- == 0) return (int64_t)i;
    }
    return -1;
}
static size_t count_named(prof_events *ev, const char *name) {
    size_t i, n = prof_events_count(ev), c = 0;
    for (i = 0; i < n; i++) c += strcmp(get(ev, (int64_t)i).name, name) == 0;
    return c;
}
static const char *parent_name(prof_events *ev, int64_t i) {
    prof_event e = get(ev, i);
    return e.parent < 0 ? "<none>" : get(ev, e.parent).name;
}

/* The rules every recorded profile obeys; returns the number of broken events. */
static int check_consistent(prof_events *ev, uint64_t only_tid) {
    size_t i, n = prof_events_count(ev);
    int bad = 0;
    int64_t prev_start = INT64_MIN;
    for (i = 0; i < n; i++) {
        prof_event e = get(ev, (int64_t)i);
        int64_t child_total = 0;
        size_t k;
        int ok = e.end_ns >= e.start_ns && e.start_ns >= 0 && e.start_ns >= prev_start;
        if (only_tid && e.thread != only_tid) ok = 0;
        prev_start = e.start_ns;
        if (e.parent >= 0) {
            prof_event p = get(ev, e.parent);
            if (p.start_ns > e.start_ns || p.end_ns < e.end_ns || p.thread != e.thread || (size_t)e.parent >= i) ok = 0;
        }
        for (k = 0; k < e.n_children; k++) {
            int64_t c = prof_events_child(ev, i, k);
            prof_event ce = get(ev, c);
            if (c < 0 || ce.parent != (int64_t)i) ok = 0;
            child_total += ce.cpu_time_total_ns;
        }
        if (prof_events_child(ev, i, e.n_children) != -1) ok = 0;
        if (e.cpu_time_total_ns != e.end_ns - e.start_ns) ok = 0;
        if (e.self_cpu_time_total_ns != e.cpu_time_total_ns - child_total) ok = 0;
        if (!ok) {
            if (bad < 5)
                fprintf(stderr, "inconsistent event %zu '%s' [%lld, %lld] thread %llu parent %lld children %zu self %lld\n", i, e.name,
                        (long long)e.start_ns, (long long)e.end_ns, (unsigned long long)e.thread, (long long)e.parent, e.n_children,
                        (long long)e.self_cpu_time_total_ns);
            bad++;
        }
    }
    return bad;
}

/* ------------------------------------------------------------------------ */

static void test_basic_nesting(void) {
    prof_config c = config();
    prof_events *ev;
    int64_t outer, in1, in2, leaf;
    prof_event eo, e1, e2, el;
    prof_stats st;
    int line_outer;
    CHECK_EQ_INT(prof_is_recording(), 0);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    CHECK_EQ_INT(prof_is_recording(), 1);
    {
        PROF_SCOPE("outer"); line_outer = __LINE__;
        spin_ns(20000);
        { PROF_SCOPE("inner1"); spin_ns(20000); }
        {
            PROF_SCOPE("inner2");
            spin_ns(10000);
            { PROF_SCOPE("leaf"); spin_ns(20000); }
        }
        spin_ns(10000);
    }
    ev = prof_stop();
    CHECK_EQ_INT(prof_is_recording(), 0);
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 4);
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.events, 4);
    CHECK_EQ_INT(st.dropped, 0);
    CHECK_EQ_INT(st.unbalanced_ends, 0);
    CHECK_EQ_INT(st.open_at_stop, 0);
    CHECK_EQ_INT(st.threads, 1);
    outer = find(ev, "outer", 0);
    in1 = find(ev, "inner1", 0);
    in2 = find(ev, "inner2", 0);
    leaf = find(ev, "leaf", 0);
    /* list order: by start time */
    CHECK_EQ_INT(outer, 0);
    CHECK_EQ_INT(in1, 1);
    CHECK_EQ_INT(in2, 2);
    CHECK_EQ_INT(leaf, 3);
    eo = get(ev, outer); e1 = get(ev, in1); e2 = get(ev, in2); el = get(ev, leaf);
    CHECK_EQ_INT(eo.parent, -1);
    CHECK_EQ_INT(e1.parent, outer);
    CHECK_EQ_INT(e2.parent, outer);
    CHECK_EQ_INT(el.parent, in2);
    CHECK_EQ_INT(eo.n_children, 2);
    CHECK_EQ_INT(prof_events_child(ev, (size_t)outer, 0), in1);
    CHECK_EQ_INT(prof_events_child(ev, (size_t)outer, 1), in2);
    CHECK_EQ_INT(prof_events_child(ev, (size_t)outer, 2), -1);
    CHECK_EQ_INT(e2.n_children, 1);
    CHECK_EQ_INT(el.n_children, 0);
    CHECK_EQ_INT(eo.self_cpu_time_total_ns, eo.cpu_time_total_ns - e1.cpu_time_total_ns - e2.cpu_time_total_ns);
    CHECK_EQ_INT(e2.self_cpu_time_total_ns, e2.cpu_time_total_ns - el.cpu_time_total_ns);
    CHECK_EQ_INT(el.self_cpu_time_total_ns, el.cpu_time_total_ns);
    /* each spans at least its spin, less the clock's calibration error
       (the TSC's rate measured against CLOCK_MONOTONIC: a loaded machine
       skews it by a few tenths of a percent, see test_features' test_async) */
    CHECK(eo.self_cpu_time_total_ns >= 20000 * 9 / 10);
    CHECK(e1.cpu_time_total_ns >= 20000 * 9 / 10);
    CHECK(el.cpu_time_total_ns >= 20000 * 9 / 10);
    CHECK(e1.end_ns <= e2.start_ns);
    /* source location, thread, defaults */
    CHECK_EQ_INT(eo.line, line_outer);
    CHECK(eo.file && strstr(eo.file, "test_recorder.c") != NULL);
    CHECK_EQ_STR(eo.func, "test_basic_nesting");
    CHECK_EQ_INT(eo.thread, my_tid());
    CHECK(eo.thread_name == NULL);
    CHECK_EQ_INT(eo.node_id, -1);
    CHECK_EQ_INT(eo.device_type, PROF_DEVICE_CPU);
    CHECK_EQ_INT(eo.is_async, 0);
    CHECK_EQ_INT(eo.is_user_annotation, 1);
    CHECK_EQ_INT(eo.sequence_nr, -1);
    CHECK_EQ_INT(eo.device_resource_id, (int64_t)eo.thread);
    CHECK_EQ_STR(eo.trace_name, "outer");
    CHECK(eo.input_shapes == NULL);
    CHECK_EQ_INT(eo.stack_depth, 0);
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);
}

/* 200 levels of recursion; names alternate so no level merges with its parent. */
static int deepest_line;
static void recurse_alt(int n) {
    if (n % 2) { PROF_SCOPE("odd"); if (n > 1) recurse_alt(n - 1); else deepest_line = __LINE__; }
    else { PROF_SCOPE("even"); if (n > 1) recurse_alt(n - 1); }
}
static void recurse_dyn(int n, int depth) {
    char name[32];
    snprintf(name, sizeof name, "level%03d", depth);
    {
        PROF_SCOPE_DYN(name);
        memset(name, 0, sizeof name); /* the copy must already be taken */
        if (n > 1) recurse_dyn(n - 1, depth + 1);
    }
}
static void recurse_same(int n) {
    PROF_SCOPE("same");
    if (n > 1) recurse_same(n - 1);
}

static void test_deep_nesting(void) {
    enum { DEPTH = 200 };
    prof_config c = config();
    prof_events *ev;
    size_t i;
    int bad = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    recurse_alt(DEPTH);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), DEPTH);
    for (i = 0; i < DEPTH; i++) {
        prof_event e = get(ev, (int64_t)i);
        int64_t d = 0, p = e.parent;
        while (p >= 0) { d++; p = get(ev, p).parent; }
        if (e.parent != (int64_t)i - 1 || d != (int64_t)i || e.n_children != (i + 1 < DEPTH ? 1u : 0u) ||
            strcmp(e.name, (DEPTH - i) % 2 ? "odd" : "even") != 0)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(get(ev, DEPTH - 1).line, deepest_line);
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);

    /* run-time names, one per level */
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    recurse_dyn(DEPTH, 0);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), DEPTH);
    for (i = 0, bad = 0; i < DEPTH; i++) {
        char want[32];
        prof_event e = get(ev, (int64_t)i);
        snprintf(want, sizeof want, "level%03zu", i);
        if (strcmp(e.name, want) != 0 || e.parent != (int64_t)i - 1) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);

    /* the same name at every level: _remove_dup_nodes folds the chain into its outermost event */
    {
        int64_t t0, t1;
        prof_event e;
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        t0 = mono_ns();
        recurse_same(DEPTH);
        t1 = mono_ns();
        ev = prof_stop();
        if (!CHECK(ev != NULL)) return;
        CHECK_EQ_INT(prof_events_count(ev), 1);
        CHECK_EQ_INT(prof_events_stats(ev).events, 1);
        e = get(ev, 0);
        CHECK_EQ_STR(e.name, "same");
        CHECK_EQ_INT(e.n_children, 0);
        CHECK_EQ_INT(e.parent, -1);
        CHECK_EQ_INT(e.self_cpu_time_total_ns, e.cpu_time_total_ns);
        /* inside [t0, t1], give or take the calibration error (a few
           tenths of a percent of a span that valgrind makes milliseconds) */
        CHECK(e.cpu_time_total_ns <= t1 - t0 + 1000 + (t1 - t0) / 20);
        prof_events_free(ev);
    }
}

/* Every way out of a block closes its scope. */
static int early_return(int x) {
    PROF_SCOPE("early");
    spin_ns(2000);
    if (x > 0) return x;
    { PROF_SCOPE("never"); }
    return 0;
}

static void test_exits(void) {
    prof_config c = config();
    prof_events *ev;
    int i, r, go = 1;
    size_t k;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    r = early_return(7);
    CHECK_EQ_INT(r, 7);
    { PROF_SCOPE("after_return"); spin_ns(1000); }
    for (i = 0; i < 10; i++) {
        PROF_SCOPE("body");
        spin_ns(1000);
        if (i == 3) break;
    }
    for (i = 0; i < 5; i++) {
        PROF_SCOPE("cont");
        spin_ns(1000);
        if (i % 2) continue;
        {
            PROF_SCOPE("even_only");
            spin_ns(1000);
        }
    }
    i = 0;
    while (1) {
        PROF_SCOPE("while_body");
        switch (i++) {
        case 0: { PROF_SCOPE("case0"); spin_ns(1000); break; }
        default: break;
        }
        if (i == 2) break;
    }
    {
        PROF_SCOPE("goto_scope");
        spin_ns(1000);
        if (go) goto out;
        { PROF_SCOPE("skipped"); }
    }
out:
    { PROF_SCOPE("after_goto"); spin_ns(1000); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    CHECK_EQ_INT(count_named(ev, "early"), 1);
    CHECK_EQ_INT(count_named(ev, "never"), 0);
    CHECK_EQ_INT(get(ev, find(ev, "after_return", 0)).parent, -1);
    CHECK(get(ev, find(ev, "after_return", 0)).start_ns >= get(ev, find(ev, "early", 0)).end_ns);
    CHECK_EQ_INT(count_named(ev, "body"), 4);
    for (k = 0; k < 4; k++) CHECK_EQ_INT(get(ev, find(ev, "body", k)).parent, -1);
    CHECK_EQ_INT(count_named(ev, "cont"), 5);
    CHECK_EQ_INT(count_named(ev, "even_only"), 3);
    for (k = 0; k < 5; k++) {
        prof_event e = get(ev, find(ev, "cont", k));
        CHECK_EQ_INT(e.parent, -1);
        CHECK_EQ_INT(e.n_children, k % 2 ? 0 : 1);
    }
    for (k = 0; k < 3; k++) CHECK_EQ_STR(parent_name(ev, find(ev, "even_only", k)), "cont");
    CHECK_EQ_INT(count_named(ev, "while_body"), 2);
    CHECK_EQ_STR(parent_name(ev, find(ev, "case0", 0)), "while_body");
    CHECK_EQ_INT(count_named(ev, "goto_scope"), 1);
    CHECK_EQ_INT(count_named(ev, "skipped"), 0);
    CHECK_EQ_INT(get(ev, find(ev, "after_goto", 0)).parent, -1);
    CHECK(get(ev, find(ev, "after_goto", 0)).start_ns >= get(ev, find(ev, "goto_scope", 0)).end_ns);
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);
}

/* Two scopes on one line, and two from one macro expansion. */
#define TWO_SCOPES(a, b) PROF_SCOPE(a); PROF_SCOPE(b)
static void test_same_line(void) {
    prof_config c = config();
    prof_events *ev;
    int i;
    size_t k;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < 3; i++) { PROF_SCOPE("one"); PROF_SCOPE("two"); spin_ns(2000); }
    { TWO_SCOPES("m_outer", "m_inner"); spin_ns(2000); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 8);
    CHECK_EQ_INT(count_named(ev, "one"), 3);
    CHECK_EQ_INT(count_named(ev, "two"), 3);
    for (k = 0; k < 3; k++) {
        prof_event one = get(ev, find(ev, "one", k)), two = get(ev, find(ev, "two", k));
        CHECK_EQ_INT(one.parent, -1);
        CHECK_EQ_INT(two.parent, find(ev, "one", k));
        CHECK_EQ_INT(one.line, two.line);
    }
    CHECK_EQ_STR(parent_name(ev, find(ev, "m_inner", 0)), "m_outer");
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);
}

static int named_function_line;
static void named_function(void) {
    PROF_FUNC(); named_function_line = __LINE__;
    spin_ns(1000);
}
static void test_func(void) {
    prof_config c = config();
    prof_events *ev;
    prof_event e;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    named_function();
    named_function();
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 2);
    e = get(ev, 0);
    CHECK_EQ_STR(e.name, "named_function");
    CHECK_EQ_STR(e.func, "named_function");
    CHECK_EQ_INT(e.line, named_function_line);
    CHECK(e.file && strstr(e.file, "test_recorder.c") != NULL);
    CHECK_EQ_STR(get(ev, 1).name, "named_function");
    prof_events_free(ev);
}

/* Run-time names: the buffer is overwritten or freed while the scope is open. */
static void test_dyn_names(void) {
    prof_config c = config();
    prof_events *ev;
    char buf[64];
    char *heap;
    int i, bad = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < 5; i++) {
        snprintf(buf, sizeof buf, "dyn_%d", i);
        {
            PROF_SCOPE_DYN(buf);
            memset(buf, 'X', sizeof buf - 1);
            buf[sizeof buf - 1] = 0;
            spin_ns(500);
        }
    }
    for (i = 0; i < 3; i++) {
        snprintf(buf, sizeof buf, "dyn_same");
        { PROF_SCOPE_DYN(buf); buf[0] = 'Q'; }
    }
    heap = (char *)malloc(32);
    if (heap) {
        snprintf(heap, 32, "heap_name");
        {
            PROF_SCOPE_DYN(heap);
            free(heap); /* the recorder must hold its own copy */
            heap = NULL;
            spin_ns(500);
        }
    }
    heap = (char *)malloc(32);
    if (heap) {
        snprintf(heap, 32, "begin_dyn_name");
        PROF_BEGIN_DYN(heap);
        free(heap);
        spin_ns(500);
        PROF_END();
    }
    /* a name longer than the recorder's arena chunks */
    {
        char *big = (char *)malloc(70001);
        if (big) {
            memset(big, 'n', 70000);
            big[70000] = 0;
            { PROF_SCOPE_DYN(big); big[0] = 'X'; }
            big[0] = 'n';
        }
        heap = big;
    }
    /* many distinct names from one site */
    for (i = 0; i < 300; i++) {
        snprintf(buf, sizeof buf, "many_%d", i);
        { PROF_SCOPE_DYN(buf); }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    for (i = 0; i < 5; i++) {
        snprintf(buf, sizeof buf, "dyn_%d", i);
        CHECK_EQ_INT(count_named(ev, buf), 1);
    }
    CHECK_EQ_INT(count_named(ev, "dyn_same"), 3);
    CHECK_EQ_INT(count_named(ev, "heap_name"), 1);
    CHECK_EQ_INT(count_named(ev, "begin_dyn_name"), 1);
    {
        int seen[300];
        size_t k, n = prof_events_count(ev);
        memset(seen, 0, sizeof seen);
        for (k = 0; k < n; k++) {
            prof_event e = get(ev, (int64_t)k);
            int idx;
            if (sscanf(e.name, "many_%d", &idx) == 1 && idx >= 0 && idx < 300) seen[idx]++;
        }
        for (i = 0; i < 300; i++) bad += seen[i] != 1;
        CHECK_EQ_INT(bad, 0);
    }
    CHECK_EQ_INT(prof_events_count(ev), 5 + 3 + 1 + 1 + 300 + (heap ? 1 : 0));
    if (heap) {
        CHECK_EQ_INT(count_named(ev, heap), 1);
        free(heap);
    }
    {
        prof_event e = get(ev, find(ev, "dyn_0", 0));
        CHECK_EQ_STR(e.func, "test_dyn_names");
        CHECK(e.file && strstr(e.file, "test_recorder.c") != NULL);
    }
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);

    /* the names are the list's own: they outlive the next session */
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    snprintf(buf, sizeof buf, "first_session");
    { PROF_SCOPE_DYN(buf); }
    ev = prof_stop();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    snprintf(buf, sizeof buf, "second_session");
    { PROF_SCOPE_DYN(buf); }
    {
        prof_events *ev2 = prof_stop();
        CHECK_EQ_INT(prof_events_count(ev2), 1);
        CHECK_EQ_STR(get(ev2, 0).name, "second_session");
        prof_events_free(ev2);
    }
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_STR(get(ev, 0).name, "first_session");
    prof_events_free(ev);
}

static void begin_here(void) { PROF_BEGIN("cross_function"); }
static void end_here(void) { PROF_END(); }

static void test_begin_end(void) {
    prof_config c = config();
    prof_events *ev;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    PROF_BEGIN("b_outer");
    spin_ns(1000);
    PROF_BEGIN("b_inner");
    spin_ns(1000);
    PROF_END();
    spin_ns(1000);
    PROF_END();
    begin_here();
    { PROF_SCOPE("inside_cross"); spin_ns(1000); }
    end_here();
    PROF_BEGIN("mixed");
    { PROF_SCOPE("scoped_in_begin"); spin_ns(1000); }
    PROF_END();
    {
        PROF_SCOPE("scope_around");
        PROF_BEGIN("begin_in_scope");
        spin_ns(1000);
        PROF_END();
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 8);
    CHECK_EQ_INT(prof_events_stats(ev).unbalanced_ends, 0);
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    CHECK_EQ_STR(parent_name(ev, find(ev, "b_outer", 0)), "<none>");
    CHECK_EQ_STR(parent_name(ev, find(ev, "b_inner", 0)), "b_outer");
    CHECK(get(ev, find(ev, "b_outer", 0)).self_cpu_time_total_ns >= 2000 * 9 / 10); /* its spins, less the calibration error */
    CHECK_EQ_STR(parent_name(ev, find(ev, "inside_cross", 0)), "cross_function");
    CHECK_EQ_STR(get(ev, find(ev, "cross_function", 0)).func, "begin_here");
    CHECK_EQ_STR(parent_name(ev, find(ev, "scoped_in_begin", 0)), "mixed");
    CHECK_EQ_STR(parent_name(ev, find(ev, "begin_in_scope", 0)), "scope_around");
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);
}

/* 5000 nested PROF_BEGINs (names alternate, so nothing merges) */
static void test_deep_begin(void) {
    enum { DEPTH = 5000 };
    prof_config c = config();
    prof_events *ev;
    int i, bad = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < DEPTH; i++) {
        if (i % 2) PROF_BEGIN("deep_odd");
        else PROF_BEGIN("deep_even");
    }
    for (i = 0; i < DEPTH; i++) PROF_END();
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), DEPTH);
    CHECK_EQ_INT(prof_events_stats(ev).unbalanced_ends, 0);
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    for (i = 0; i < DEPTH; i++) {
        prof_event e = get(ev, i);
        if (e.parent != i - 1 || strcmp(e.name, i % 2 ? "deep_odd" : "deep_even") != 0) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);
}

static void test_unbalanced_end(void) {
    prof_config c = config();
    prof_events *ev;
    prof_log_level lvl = PROF_LOG_INFO;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    { PROF_SCOPE("before"); spin_ns(1000); }
    PROF_END(); /* nothing open */
    PROF_BEGIN("pair");
    { PROF_SCOPE("in_pair"); spin_ns(1000); }
    PROF_END();
    PROF_END();
    PROF_END();
    { PROF_SCOPE("after"); spin_ns(1000); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_stats(ev).unbalanced_ends, 3);
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    CHECK_EQ_INT(check_log_find(PROF_E_UNBALANCED, NULL, &lvl), 1);
    CHECK_EQ_INT(lvl, PROF_LOG_WARNING);
    CHECK(check_log_has(PROF_E_UNBALANCED, "3"));
    /* the rest of the profile is intact */
    CHECK_EQ_INT(prof_events_count(ev), 4);
    CHECK_EQ_INT(count_named(ev, "before"), 1);
    CHECK_EQ_INT(count_named(ev, "after"), 1);
    CHECK_EQ_STR(parent_name(ev, find(ev, "in_pair", 0)), "pair");
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);

    /* the count is per session */
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    { PROF_SCOPE("clean"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_stats(ev).unbalanced_ends, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_UNBALANCED), 0);
    prof_events_free(ev);
}

/* Records that do not nest, as a clock that stepped back or a TSC skew
   between cores could leave, take prof_stop's sorting fallback (its buffer
   is the run's own spent keys): the events still come out in PyTorch's
   order, (start, -end), with none lost. Two threads, so the runs are merged
   too. The records go through the hot path's slow side with made-up times
   that lie in the past at prof_stop. */
static const prof_site unnested_sites[3] = {
    {"u_a", __FILE__, "unnested", 1, 0}, {"u_b", __FILE__, "unnested", 2, 0}, {"u_c", __FILE__, "unnested", 3, 0}};
static uint64_t unnested_base;
static void unnested_write(void) {
    { PROF_SCOPE("u_bind"); } /* binds the thread; begins after the made-up ones */
    prof__leave_slow(prof__tls, &unnested_sites[0], unnested_base + 1000, unnested_base + 2000);
    prof__leave_slow(prof__tls, &unnested_sites[1], unnested_base + 1500, unnested_base + 3000); /* past u_a's end */
    prof__leave_slow(prof__tls, &unnested_sites[2], unnested_base + 500, unnested_base + 600);   /* ended before u_a began */
}
/* The second thread binds to the session before the made-up times (a
   scope that began before its thread bound is an earlier session's:
   prof_stop leaves it out), then writes when told. */
static int unnested_step;
static void *unnested_thread(void *arg) {
    (void)arg;
    prof__thread_get();
    __atomic_store_n(&unnested_step, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&unnested_step, __ATOMIC_ACQUIRE) != 2) sched_yield();
    unnested_write();
    return NULL;
}
static void test_unnested_records(void) {
    prof_config c = config();
    prof_events *ev;
    pthread_t th;
    size_t i, n;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    __atomic_store_n(&unnested_step, 0, __ATOMIC_RELAXED);
    CHECK_EQ_INT(pthread_create(&th, NULL, unnested_thread, NULL), 0);
    while (__atomic_load_n(&unnested_step, __ATOMIC_ACQUIRE) != 1) sched_yield();
    unnested_base = prof__now();
    spin_ns(200000);
    unnested_write();
    __atomic_store_n(&unnested_step, 2, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    n = prof_events_count(ev);
    CHECK_EQ_INT(n, 8);
    CHECK_EQ_INT(count_named(ev, "u_a"), 2);
    CHECK_EQ_INT(count_named(ev, "u_b"), 2);
    CHECK_EQ_INT(count_named(ev, "u_c"), 2);
    CHECK_EQ_INT(count_named(ev, "u_bind"), 2);
    for (i = 1; i < n; i++) {
        prof_event p = get(ev, (int64_t)i - 1), q = get(ev, (int64_t)i);
        CHECK_MSG(p.start_ns < q.start_ns || (p.start_ns == q.start_ns && p.end_ns >= q.end_ns),
                  "event %zu (%s) is out of order", i, q.name);
    }
    /* the two threads' copies share their times: u_c, u_c, u_a, u_a, ... */
    CHECK_EQ_STR(get(ev, 0).name, "u_c");
    CHECK_EQ_STR(get(ev, 2).name, "u_a");
    CHECK_EQ_STR(get(ev, 4).name, "u_b");
    CHECK_EQ_STR(get(ev, 6).name, "u_bind");
    CHECK(get(ev, 0).thread != get(ev, 1).thread);
    /* u_b overlaps u_a's end: no parent (PyTorch's partial-overlap rule) */
    CHECK_EQ_INT(get(ev, find(ev, "u_b", 0)).parent, -1);
    CHECK_EQ_INT(get(ev, find(ev, "u_a", 0)).n_children, 0);
    prof_events_free(ev);
}

/* A scope that begins after prof_stop read its tick but before its thread
   saw recording end (prof_stop preempted in between, seen under load with
   173 such scopes) is neither in the profile nor open at the stop. Made up
   here: a scope entered as usual, its record written with times past the
   stop. */
static void test_begun_after_stop_tick(void) {
    static const prof_site late_site = {"late", __FILE__, "late", 1, 0};
    prof_config c = config();
    prof_events *ev;
    prof__scope sc;
    uint64_t far;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("before"); }
    sc = prof__scope_enter(&late_site, NULL); /* counted as opened */
    far = prof__now() + ((uint64_t)1 << 40);
    if (CHECK(sc.t != NULL)) prof__leave_slow(sc.t, &late_site, far, far + 1000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_INT(count_named(ev, "late"), 0);
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    prof_events_free(ev);
}

/* After fork() the forking thread is the child's main thread, with the
   child's id: what it records there carries that id, not its parent's. */
static void test_fork_thread_id(void) {
    prof_config c = config();
    prof_events *ev;
    pid_t pid;
    int status = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("in_parent"); }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) { CHECK(pid >= 0); prof_events_free(prof_stop()); return; }
    if (pid == 0) {
        int64_t k;
        int ok;
        { PROF_SCOPE("in_child"); }
        ev = prof_stop();
        k = ev ? find(ev, "in_child", 0) : -1;
        ok = k >= 0 && get(ev, k).thread == (uint64_t)getpid();
        prof_events_free(ev);
        _exit(ok ? 0 : 1);
    }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK_EQ_INT(find(ev, "in_child", 0), -1);
        CHECK(get(ev, find(ev, "in_parent", 0)).thread == (uint64_t)my_tid());
        prof_events_free(ev);
    }
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's event did not carry the child's thread id (status %d)", status);
}

static void test_open_at_stop(void) {
    prof_config c = config();
    prof_events *ev = NULL;
    prof_log_level lvl = PROF_LOG_INFO;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    { PROF_SCOPE("closed"); spin_ns(1000); }
    PROF_BEGIN("begin_open");
    {
        PROF_SCOPE("still_open");
        { PROF_SCOPE("closed_inner"); spin_ns(1000); }
        ev = prof_stop();
        spin_ns(1000);
    }
    CHECK_EQ_INT(prof_is_recording(), 0);
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 2);
    CHECK(check_log_find(PROF_E_OPEN_SCOPES, NULL, &lvl) >= 1);
    CHECK_EQ_INT(lvl, PROF_LOG_WARNING);
    CHECK(check_log_has(PROF_E_OPEN_SCOPES, "begin_open"));
    CHECK_EQ_INT(prof_events_count(ev), 2);
    CHECK_EQ_INT(count_named(ev, "closed"), 1);
    CHECK_EQ_INT(count_named(ev, "closed_inner"), 1);
    CHECK_EQ_INT(count_named(ev, "still_open"), 0);
    CHECK_EQ_INT(count_named(ev, "begin_open"), 0);
    CHECK_EQ_INT(get(ev, find(ev, "closed_inner", 0)).parent, -1);
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);

    /* only a PROF_SCOPE open */
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    {
        PROF_SCOPE("only_scope_open");
        ev = prof_stop();
    }
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 0);
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 1);
    CHECK_EQ_INT(check_log_find(PROF_E_OPEN_SCOPES, NULL, &lvl), 1);
    CHECK_EQ_INT(lvl, PROF_LOG_WARNING);
    prof_events_free(ev);

    /* the next session starts clean: nothing of the open scopes leaks in */
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    { PROF_SCOPE("next"); spin_ns(1000); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_STR(get(ev, 0).name, "next");
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    CHECK_EQ_INT(prof_events_stats(ev).unbalanced_ends, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_OPEN_SCOPES), 0);
    prof_events_free(ev);
}

/* A scope opened in one session that closes in the next one. */
static void test_scope_across_sessions(void) {
    prof_config c = config();
    prof_events *ev1 = NULL, *ev2 = NULL;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE("spans_sessions");
        spin_ns(1000);
        ev1 = prof_stop();
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        spin_ns(1000);
    } /* closes in session 2, which it did not start in */
    {
        PROF_SCOPE("open_in_second");
        { PROF_SCOPE("closed_in_second"); spin_ns(1000); }
        ev2 = prof_stop();
    }
    if (!CHECK(ev1 != NULL && ev2 != NULL)) { prof_events_free(ev1); prof_events_free(ev2); return; }
    CHECK_EQ_INT(prof_events_count(ev1), 0);
    CHECK_EQ_INT(prof_events_stats(ev1).open_at_stop, 1);
    CHECK_EQ_INT(count_named(ev2, "spans_sessions"), 0);
    CHECK_EQ_INT(count_named(ev2, "closed_in_second"), 1);
    CHECK_EQ_INT(prof_events_count(ev2), 1);
    /* open_in_second is open at the second prof_stop */
    CHECK_EQ_INT(prof_events_stats(ev2).open_at_stop, 1);
    prof_events_free(ev1);
    prof_events_free(ev2);
}

/* Exactly filled record blocks: a thread's blocks hold PROF__FIRST_BLOCK
   (512) records, then twice as many each time, and are mapped next to each
   other, so the end of a full block can be the start of another one of the
   same thread. Totals at the ends of the first, second, fifth and eighth
   blocks, and one inside the first. */
static void test_full_blocks(void) {
    static const long F = PROF__FIRST_BLOCK;
    const long totals[] = {F, F * 3, F * 31, F * 255, 100};
    prof_config c = config();
    size_t k;
    for (k = 0; k < sizeof totals / sizeof totals[0]; k++) {
        prof_events *ev;
        long i;
        if (totals[k] > 50000 && check_under_valgrind()) continue; /* slow there, and valgrind maps apart */
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        for (i = 0; i < totals[k]; i++) { PROF_SCOPE("fill"); }
        ev = prof_stop();
        if (!CHECK(ev != NULL)) continue;
        CHECK_MSG(prof_events_count(ev) == (size_t)totals[k], "%ld scopes recorded, %zu events in the list", totals[k], prof_events_count(ev));
        CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
        prof_events_free(ev);
    }
}

/* PROF_BEGIN made while recording is off, PROF_END while it is on: like a
   PROF_SCOPE entered while off, the range is not recorded and nothing is
   unbalanced (the program is balanced). */
static void test_begin_across_start(void) {
    prof_config c = config();
    prof_events *ev;
    PROF_BEGIN("begun_while_off");
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    { PROF_SCOPE("inside"); }
    PROF_END();
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_INT(count_named(ev, "begun_while_off"), 0);
    CHECK_EQ_INT(prof_events_stats(ev).unbalanced_ends, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_UNBALANCED), 0);
    prof_events_free(ev);
}

static void test_event_cap(void) {
    enum { CAP = 1000, TOTAL = 50000 };
    prof_config c = config();
    prof_events *ev;
    prof_stats st;
    prof_log_level lvl = PROF_LOG_INFO;
    int i;
    char want[32];
    c.max_events = CAP;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    for (i = 0; i < TOTAL; i++) { PROF_SCOPE("capped"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK(prof_events_count(ev) <= CAP);
    CHECK_EQ_INT(prof_events_count(ev), CAP);
    CHECK_EQ_INT(st.events, prof_events_count(ev));
    CHECK_EQ_INT(st.dropped, TOTAL - (long long)prof_events_count(ev));
    CHECK_EQ_INT(check_log_find(PROF_E_DROPPED, NULL, &lvl), 1);
    CHECK_EQ_INT(lvl, PROF_LOG_WARNING);
    snprintf(want, sizeof want, "%d", TOTAL - CAP);
    CHECK(check_log_has(PROF_E_DROPPED, want));
    CHECK_EQ_INT(count_named(ev, "capped"), prof_events_count(ev));
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);

    /* exactly the cap: nothing dropped, no warning */
    c.max_events = 100;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    for (i = 0; i < 100; i++) { PROF_SCOPE("exact"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 100);
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_DROPPED), 0);
    prof_events_free(ev);

    /* one past the cap */
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < 101; i++) { PROF_SCOPE("one_more"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 100);
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 1);
    prof_events_free(ev);

    /* the cap does not stay with the next session (default cap) */
    c.max_events = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    for (i = 0; i < 20000; i++) { PROF_SCOPE("uncapped"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 20000);
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_DROPPED), 0);
    prof_events_free(ev);
}

static void test_sessions(void) {
    prof_config c = config();
    int s, i;
    for (s = 0; s < 6; s++) {
        prof_events *ev;
        char name[32];
        size_t k, n;
        int bad = 0;
        { PROF_SCOPE("between_sessions"); } /* recording is off */
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        snprintf(name, sizeof name, "session_%d", s);
        for (i = 0; i <= s * 100; i++) { PROF_SCOPE_DYN(name); }
        if (s % 2) { PROF_SCOPE("odd_session"); }
        ev = prof_stop();
        { PROF_SCOPE("between_sessions"); }
        if (!CHECK(ev != NULL)) continue;
        n = prof_events_count(ev);
        CHECK_EQ_INT(n, (size_t)(s * 100 + 1 + (s % 2)));
        CHECK_EQ_INT(count_named(ev, name), (size_t)(s * 100 + 1));
        CHECK_EQ_INT(count_named(ev, "odd_session"), (size_t)(s % 2));
        for (k = 0; k < n; k++) {
            prof_event e = get(ev, (int64_t)k);
            if (strcmp(e.name, name) != 0 && strcmp(e.name, "odd_session") != 0) bad++;
        }
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
        CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
        prof_events_free(ev);
    }
}

static void test_state_errors(void) {
    prof_config c = config();
    prof_events *ev;
    prof_log_level lvl = PROF_LOG_INFO;
    /* stop without start */
    check_log_reset();
    ev = prof_stop();
    CHECK(ev == NULL);
    CHECK_EQ_INT(check_log_find(PROF_E_STATE, NULL, &lvl), 1);
    CHECK_EQ_INT(lvl, PROF_LOG_ERROR);
    CHECK(strstr(prof_last_error(), "prof_stop") != NULL);
    /* start twice: the second fails, the first session goes on */
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("before_second_start"); }
    check_log_reset();
    CHECK_EQ_INT(prof_start(&c), PROF_E_STATE);
    CHECK_EQ_INT(check_log_find(PROF_E_STATE, NULL, &lvl), 1);
    CHECK_EQ_INT(lvl, PROF_LOG_ERROR);
    CHECK(strstr(prof_last_error(), "prof_start") != NULL);
    CHECK_EQ_INT(prof_is_recording(), 1);
    CHECK_EQ_INT(prof_start(NULL), PROF_E_STATE);
    { PROF_SCOPE("after_second_start"); }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK_EQ_INT(prof_events_count(ev), 2);
        CHECK_EQ_INT(count_named(ev, "before_second_start"), 1);
        CHECK_EQ_INT(count_named(ev, "after_second_start"), 1);
        prof_events_free(ev);
    }
    check_log_reset();
    CHECK(prof_stop() == NULL);
    CHECK_EQ_INT(check_log_count(PROF_E_STATE), 1);
    /* activities: CUDA alone would still record CPU scopes, so it is
       refused, as are unknown bits; nothing starts, the next start works */
    c.activities = PROF_ACTIVITY_CUDA;
    check_log_reset();
    CHECK_EQ_INT(prof_start(&c), PROF_E_ARG);
    CHECK(check_log_has(PROF_E_ARG, "without PROF_ACTIVITY_CPU"));
    CHECK_EQ_INT(prof_is_recording(), 0);
    c.activities = PROF_ACTIVITY_CPU | (1u << 5);
    CHECK_EQ_INT(prof_start(&c), PROF_E_ARG);
    CHECK_EQ_INT(prof_is_recording(), 0);
    c.activities = PROF_ACTIVITY_CPU;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("cpu_activity"); }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK_EQ_INT(count_named(ev, "cpu_activity"), 1);
        prof_events_free(ev);
    }
    c.activities = 0;
    /* result strings */
    CHECK_EQ_STR(prof_result_string(PROF_OK), "ok");
    CHECK_EQ_STR(prof_result_string(PROF_E_DROPPED), "events were dropped or left out (the event cap, lack of memory, CUDA's buffers)");
    CHECK_EQ_STR(prof_result_string((prof_result)-1), "unknown result");
    CHECK_EQ_STR(prof_result_string(PROF_RESULT_COUNT), "unknown result");
}

/* Recording off: the macros record nothing, and nothing counts. */
static void test_recording_off(void) {
    prof_config c = config();
    prof_events *ev;
    char buf[16] = "off_dyn";
    { PROF_SCOPE("off_scope"); { PROF_SCOPE_DYN(buf); } }
    PROF_BEGIN("off_begin");
    PROF_END();
    PROF_END();
    PROF_MARK("off_mark");
    PROF_COUNTER("off_counter", 1.5);
    named_function();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 0);
    CHECK_EQ_INT(prof_events_stats(ev).unbalanced_ends, 0);
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
    prof_events_free(ev);

    /* entered while off, left while on: not recorded, not counted */
    {
        PROF_SCOPE("entered_off");
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
    }
    { PROF_SCOPE("on"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_STR(get(ev, 0).name, "on");
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
    prof_events_free(ev);
}

static void test_marks_and_options(void) {
    prof_config c = config();
    prof_events *ev;
    int i;
    c.with_node_id = 1;
    c.node_id = 3;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE("with_marks");
        PROF_MARK("a_mark");
        for (i = 0; i < 5; i++) PROF_COUNTER("a_counter", i * 0.5);
        { PROF_SCOPE_OP("an_op"); spin_ns(1000); }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    /* marks and counter samples are not events of the list */
    CHECK_EQ_INT(prof_events_count(ev), 2);
    CHECK_EQ_INT(count_named(ev, "a_mark"), 0);
    CHECK_EQ_INT(get(ev, find(ev, "with_marks", 0)).node_id, 3);
    CHECK_EQ_INT(get(ev, find(ev, "an_op", 0)).node_id, 3);
    CHECK_EQ_INT(get(ev, find(ev, "an_op", 0)).is_user_annotation, 0);
    CHECK_EQ_INT(get(ev, find(ev, "with_marks", 0)).is_user_annotation, 1);
    CHECK_EQ_STR(parent_name(ev, find(ev, "an_op", 0)), "with_marks");
    prof_events_free(ev);
}

/* Durations and timestamps agree with CLOCK_MONOTONIC. */
static void test_clock(void) {
    prof_config c = config();
    prof_events *ev;
    int64_t before, after;
    struct timespec req = {0, 3000000};
    prof_event sl, out;
    before = mono_ns();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE("sleep_outer");
        { PROF_SCOPE("sleep_3ms"); nanosleep(&req, NULL); }
    }
    ev = prof_stop();
    after = mono_ns();
    if (!CHECK(ev != NULL)) return;
    sl = get(ev, find(ev, "sleep_3ms", 0));
    out = get(ev, find(ev, "sleep_outer", 0));
    /* the sleep, and within [before, after], give or take the calibration
       error of the TSC's rate (a few tenths of a percent under load) */
    CHECK(sl.cpu_time_total_ns >= 3000000 * 9 / 10);
    CHECK(sl.cpu_time_total_ns <= after - before + (after - before) / 20);
    /* the outer scope's self time is its total less its one child's, exactly;
       no bound in wall time: under valgrind on a loaded machine the thread can
       be descheduled between the two scopes for milliseconds (CI saw 1 ms) */
    CHECK_EQ_INT(out.self_cpu_time_total_ns,
                 out.cpu_time_total_ns - sl.cpu_time_total_ns);
    CHECK(out.self_cpu_time_total_ns >= 0);
    CHECK(out.cpu_time_total_ns >= sl.cpu_time_total_ns);
    CHECK(out.start_ns >= 0);
    CHECK(out.end_ns <= after - before + (after - before) / 20);
    prof_events_free(ev);
}

/* key_averages of a recorded profile */
static void test_recorded_averages(void) {
    prof_config c = config();
    prof_events *ev;
    prof_averages *avg;
    int i;
    size_t k;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < 10; i++) {
        PROF_SCOPE("step");
        { PROF_SCOPE("fwd"); spin_ns(1000); }
        { PROF_SCOPE("bwd"); spin_ns(1000); }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    avg = prof_key_averages(ev, NULL);
    if (CHECK(avg != NULL)) {
        int64_t sum_self = 0, sum_total_step = 0;
        CHECK_EQ_INT(prof_averages_count(avg), 3);
        for (k = 0; k < prof_averages_count(avg); k++) {
            const prof_avg *a = prof_averages_get(avg, k);
            CHECK_EQ_INT(a->count, 10);
            sum_self += a->self_cpu_time_total_ns;
            if (strcmp(a->key, "step") == 0) sum_total_step = a->cpu_time_total_ns;
        }
        /* self times partition the top-level time */
        CHECK_EQ_INT(sum_self, sum_total_step);
        CHECK_EQ_STR(prof_averages_get(avg, 0)->key, "step");
        prof_averages_free(avg);
    }
    prof_events_free(ev);
}

/* CHECK_TIMING=1 prints how long each test took */
#define TIMED(call) do { int64_t t0_ = mono_ns(); call; if (getenv("CHECK_TIMING")) fprintf(stderr, "%-32s %8.1f ms\n", #call, (mono_ns() - t0_) / 1e6); } while (0)
/* The print functions return the reason the table could not be made,
   not "out of memory" for every failure. */
static void test_print_table_errors(void) {
    prof_config c;
    prof_events *ev;
    prof_averages *avg;
    prof_table_options o;
    FILE *devnull = fopen("/dev/null", "w");
    if (!CHECK(devnull != NULL)) return;
    memset(&c, 0, sizeof c);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("printed"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) { fclose(devnull); return; }
    avg = prof_key_averages(ev, NULL);
    memset(&o, 0, sizeof o);
    CHECK_EQ_INT(prof_events_print_table(devnull, ev, &o), PROF_OK);
    o.sort_by = "bogus";
    CHECK_EQ_INT(prof_events_print_table(devnull, ev, &o), PROF_E_UNKNOWN_KEY);
    CHECK_EQ_INT(prof_averages_print_table(devnull, avg, &o), PROF_E_UNKNOWN_KEY);
    CHECK(check_log_has(PROF_E_UNKNOWN_KEY, "bogus"));
    o.sort_by = NULL;
    o.time_unit = "ns";
    CHECK_EQ_INT(prof_events_print_table(devnull, ev, &o), PROF_E_ARG);
    CHECK_EQ_INT(prof_averages_print_table(devnull, avg, &o), PROF_E_ARG);
    o.time_unit = NULL;
    CHECK_EQ_INT(prof_events_print_table(devnull, NULL, &o), PROF_E_ARG);
    CHECK_EQ_INT(prof_averages_print_table(devnull, NULL, &o), PROF_E_ARG);
    /* and a success after a failure is a success */
    CHECK_EQ_INT(prof_averages_print_table(devnull, avg, &o), PROF_OK);
    check_log_reset();
    prof_averages_free(avg);
    prof_events_free(ev);
    fclose(devnull);
}

/* ------------------------------------------------------------------------
   The cap keeps the profile consistent. A program of jobs, each of steps,
   each of leaves, recorded completely and then through a cap that falls in
   the middle of a job: the capped profile is exactly the complete one's
   first CAP scopes in start order (the cap decides when a scope begins),
   so every recorded event's parent is recorded, the job cut by the cap
   keeps only the steps begun before it, and self times are those of the
   complete profile restricted to the kept subtrees (duration minus the
   kept children's). Before, records were refused as scopes ended: outer
   scopes, which end last, were dropped while their children were kept. */
enum { CAP_JOBS = 6, CAP_STEPS = 5, CAP_LEAVES = 4 };
static void cap_program(void) {
    int j, s, l;
    for (j = 0; j < CAP_JOBS; j++) {
        PROF_SCOPE("job");
        for (s = 0; s < CAP_STEPS; s++) {
            PROF_SCOPE("step");
            for (l = 0; l < CAP_LEAVES; l++) { PROF_SCOPE("leaf"); spin_ns(2000); }
        }
    }
}
static int depth_of(prof_events *ev, size_t i) {
    int d = 0;
    int64_t p = get(ev, (int64_t)i).parent;
    while (p >= 0) { d++; p = get(ev, p).parent; }
    return d;
}
static void test_cap_keeps_subtrees(void) {
    enum { TOTAL = CAP_JOBS * (1 + CAP_STEPS * (1 + CAP_LEAVES)), CAP = 2 * (1 + CAP_STEPS * (1 + CAP_LEAVES)) + 1 + 2 * (1 + CAP_LEAVES) + 2 };
    prof_config c = config();
    prof_events *full, *cut;
    prof_stats st;
    size_t i, n;
    char *table;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    cap_program();
    full = prof_stop();
    c.max_events = CAP;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    cap_program();
    cut = prof_stop();
    if (!CHECK(full != NULL && cut != NULL)) { prof_events_free(full); prof_events_free(cut); return; }
    CHECK_EQ_INT(prof_events_count(full), TOTAL);
    n = prof_events_count(cut);
    CHECK_EQ_INT(n, CAP);
    st = prof_events_stats(cut);
    CHECK_EQ_INT(st.scopes_entered, TOTAL);
    CHECK_EQ_INT(st.scopes_recorded, CAP);
    CHECK_EQ_INT(st.scopes_dropped, TOTAL - CAP);
    CHECK_EQ_INT(st.open_at_stop, 0);
    CHECK_EQ_INT(st.dropped, TOTAL - CAP);
    for (i = 0; i < n && i < (size_t)TOTAL; i++) {
        prof_event a = get(full, (int64_t)i), b = get(cut, (int64_t)i);
        int64_t k;
        int64_t kids = 0;
        CHECK_EQ_STR(b.name, a.name);
        CHECK_EQ_INT(depth_of(cut, i), depth_of(full, i));
        /* a recorded parent for every step and leaf */
        if (strcmp(b.name, "job") != 0) CHECK(b.parent >= 0);
        else CHECK_EQ_INT(b.parent, -1);
        /* self = total - the kept children's totals */
        for (k = 0; k < (int64_t)b.n_children; k++) {
            int64_t ch = prof_events_child(cut, i, (size_t)k);
            kids += get(cut, ch).cpu_time_total_ns;
        }
        CHECK_EQ_INT(b.self_cpu_time_total_ns, b.cpu_time_total_ns - kids);
        /* jobs before the cut keep all their steps; the cut one, those begun */
        if (strcmp(b.name, "job") == 0) CHECK_EQ_INT(b.n_children, i == 2 * (1 + CAP_STEPS * (1 + CAP_LEAVES)) ? 3 : CAP_STEPS);
        if (strcmp(b.name, "step") == 0 && b.n_children != CAP_LEAVES) CHECK_EQ_INT(i, CAP - 2); /* the last step: one leaf */
    }
    /* the table says it is incomplete, once, after its totals */
    table = prof_events_table(cut, NULL);
    if (CHECK(table != NULL)) {
        char want[160];
        const char *tot = strstr(table, "Self CPU time total:");
        snprintf(want, sizeof want, "Incomplete profile: %d scopes dropped (each with all it encloses) and 0 other records (prof_events_stats)\n", TOTAL - CAP);
        CHECK(tot != NULL && strstr(tot, want) != NULL);
        CHECK(strstr(table, "Incomplete") == strstr(table, want));
        prof_free_string(table);
    }
    /* a complete profile has no such line */
    table = prof_events_table(full, NULL);
    if (CHECK(table != NULL)) {
        CHECK(strstr(table, "Incomplete") == NULL);
        prof_free_string(table);
    }
    prof_events_free(full);
    prof_events_free(cut);
}

/* The cap counts events, whatever they carry: shapes take several records
   each, and 100 of them are 100 events (it was 20). */
static void test_cap_counts_events(void) {
    prof_config c = config();
    prof_events *ev;
    prof_stats st;
    int i;
    c.max_events = 100;
    c.record_shapes = 1;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    for (i = 0; i < 300; i++) { PROF_SCOPE_SHAPES("mm", 2, 8, 8, 2, 8, 8); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(prof_events_count(ev), 100);
    CHECK_EQ_INT(st.scopes_entered, 300);
    CHECK_EQ_INT(st.scopes_dropped, 200);
    CHECK_EQ_INT(st.dropped, 200);
    CHECK(check_log_has(PROF_E_DROPPED, "200"));
    prof_events_free(ev);
}

/* The cap's warning in words a user reads: "1 event", "a cap of 1 event"
   (it said "1 events were dropped when the cap of 1 events was reached"). */
static void test_cap_warning_words(void) {
    prof_config c = config();
    prof_events *ev;
    c.max_events = 1;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    { PROF_SCOPE("kept"); }
    { PROF_SCOPE("dropped"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK(check_log_has(PROF_E_DROPPED, "1 event was dropped when the cap of 1 event was reached"));
    prof_events_free(ev);
}

/* Exact accounting: marks and counter samples have counts of their own
   (they made 100 scopes and 100 marks past a cap of 50 sum to 200
   "dropped" next to 50 events); recursion through one operator name that
   _remove_dup_nodes folds still reports every scope recorded. */
static void recurse_op(int n) {
    PROF_SCOPE_OP("recurse");
    if (n > 1) recurse_op(n - 1);
}
static void test_exact_accounting(void) {
    prof_config c = config();
    prof_events *ev;
    prof_stats st;
    int i;
    c.max_events = 50;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    for (i = 0; i < 100; i++) {
        PROF_SCOPE("s");
        PROF_MARK("m");
        PROF_COUNTER("c", i);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_entered, 100);
    CHECK_EQ_INT(st.scopes_recorded + st.scopes_dropped + st.open_at_stop, st.scopes_entered);
    CHECK_EQ_INT(st.marks + st.marks_dropped, 100);
    CHECK_EQ_INT(st.counters + st.counters_dropped, 100);
    CHECK_EQ_INT(st.scopes_recorded + st.marks + st.counters, 50);
    CHECK_EQ_INT(st.dropped, st.scopes_dropped + st.marks_dropped + st.counters_dropped);
    CHECK_EQ_INT(st.dropped, 250);
    prof_events_free(ev);

    c.max_events = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    recurse_op(1000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_INT(st.events, 1);
    CHECK_EQ_INT(st.scopes_entered, 1000);
    CHECK_EQ_INT(st.scopes_recorded, 1000);
    CHECK_EQ_INT(st.merged, 999);
    CHECK_EQ_INT(st.dropped, 0);
    prof_events_free(ev);

#if defined(PROF__HAVE_BACKTRACE)
    /* native stacks: a scope past the cap counts once (it counted twice) */
    c.max_events = 10;
    c.with_stack = PROF_STACK_NATIVE;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    for (i = 0; i < 1000; i++) { PROF_SCOPE("native"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(prof_events_count(ev), 10);
    CHECK_EQ_INT(st.scopes_entered, 1000);
    CHECK_EQ_INT(st.scopes_dropped, 990);
    CHECK_EQ_INT(st.dropped, 990);
    prof_events_free(ev);
#endif
}

/* Past the cap, PROF_SCOPE_DYN copies no name: 200k distinct 100-byte
   names under a cap of 10 leave the process about where it was (they cost
   20 MB and more before). */
static void test_dyn_names_past_cap(void) {
    prof_config c = config();
    prof_events *ev;
    char name[112];
    long before, after;
    int i;
    c.max_events = 10;
    memset(name, 'x', sizeof name);
    name[sizeof name - 1] = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    check_log_reset();
    before = check_rss_kib();
    for (i = 0; i < 200000; i++) {
        snprintf(name, 12, "%011d", i);
        name[11] = 'x';
        { PROF_SCOPE_DYN(name); }
    }
    after = check_rss_kib();
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), 10);
    CHECK_EQ_INT(prof_events_stats(ev).scopes_dropped, 200000 - 10);
    CHECK_MSG(after - before < 4096, "200k dropped run-time names grew the process by %ld KiB", after - before);
    prof_events_free(ev);
}

/* Run-time names travel in the record stream (a NAME extension written
   when the scope begins, which its record points to): over many blocks,
   with names of every length up to the inline limit and past it, each
   around a child whose own extensions (shapes, FLOPs) sit between the name
   and the scope's record, every event keeps its name, parent and shapes. */
static void dyn_inline_name(char *buf, size_t len, size_t k) { /* len bytes: k's six digits, a 'z', one letter */
    char digits[24];
    memset(buf, 'a' + (int)(k % 26), len);
    buf[len] = 0;
    if (len >= 6) {
        snprintf(digits, sizeof digits, "%06zu", k % 1000000);
        memcpy(buf, digits, 6);
        buf[6] = len > 6 ? 'z' : 0;
    }
}
static void test_dyn_names_inline(void) {
    prof_config c = config();
    prof_events *ev;
    static char name[4200];
    size_t i, n, len;
    const size_t lens[] = { 0, 7, 8, 23, 24, 25, 47, 48, 100, 4095, 4096, 4150 };
    const int iters = 3000;
    c.record_shapes = 1;
    c.with_flops = 1;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < (size_t)iters; i++) {
        len = lens[i % (sizeof lens / sizeof lens[0])];
        dyn_inline_name(name, len, i);
        {
            PROF_SCOPE_DYN(name);
            name[0] = '#'; /* the copy was taken at entry */
            { PROF_SCOPE_SHAPES("child", 1, (int64_t)i); }
            { PROF_SCOPE_FLOPS("flop", (int64_t)i); }
        }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    n = prof_events_count(ev);
    CHECK_EQ_INT(n, (size_t)iters * 3);
    for (i = 0; i + 2 < n && i / 3 < (size_t)iters; i += 3) {
        prof_event d = get(ev, (int64_t)i), ch = get(ev, (int64_t)i + 1), fl = get(ev, (int64_t)i + 2);
        size_t k = i / 3;
        char want[4200], shp[32];
        len = lens[k % (sizeof lens / sizeof lens[0])];
        dyn_inline_name(want, len, k);
        snprintf(shp, sizeof shp, "[[%zu]]", k);
        if (!CHECK_MSG(strcmp(d.name, want) == 0 && strlen(d.name) == len, "event %zu: name of %zu bytes, want %zu", i, strlen(d.name), len)) break;
        if (!CHECK(d.parent == -1 && ch.parent == (int64_t)i && fl.parent == (int64_t)i)) break;
        if (!CHECK(strcmp(ch.name, "child") == 0 && ch.input_shapes && strcmp(ch.input_shapes, shp) == 0)) break;
        if (!CHECK(strcmp(fl.name, "flop") == 0 && fl.flops == (int64_t)k)) break;
        if (!CHECK(d.input_shapes && strcmp(d.input_shapes, "[]") == 0)) break; /* no shapes of its own */
    }
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
    prof_events_free(ev);
}

/* Every name length from 0 to 200 bytes, each byte different from its
   neighbours, so that the recorder's word-wise copy (overlapping words,
   short names in pieces) must put each byte in its place. */
static void test_dyn_name_lengths(void) {
    prof_config c = config();
    prof_events *ev;
    char name[208];
    size_t len, i, n, bad = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (len = 0; len <= 200; len++) {
        for (i = 0; i < len; i++) name[i] = (char)('!' + (i * 7 + len) % 90);
        name[len] = 0;
        { PROF_SCOPE_DYN(name); }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    n = prof_events_count(ev);
    CHECK_EQ_INT(n, 201);
    for (len = 0; len < n && len <= 200; len++) {
        const char *got = get(ev, (int64_t)len).name;
        for (i = 0; i < len; i++) name[i] = (char)('!' + (i * 7 + len) % 90);
        name[len] = 0;
        if (strcmp(got, name) != 0 && bad++ < 3) (void)CHECK_MSG(0, "name of %zu bytes came back as \"%s\"", len, got);
    }
    CHECK_EQ_INT(bad, 0);
    prof_events_free(ev);
}

/* ------------------------------------------------------------------------
   Stacks are a tree: 10000 nesting levels with scope stacks cost memory
   per level, not per event times depth (it was 413 MB at 10k levels). */
static void test_deep_stacks(void) {
    enum { DEPTH = 10000 };
    prof_config c = config();
    prof_events *ev;
    prof_event x;
    long before, after;
    int k;
    c.with_stack = PROF_STACK_SCOPES;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    /* two names in turn: _remove_dup_nodes folds a child named as its parent */
    for (k = 0; k < DEPTH; k++) {
        if (k & 1) PROF_BEGIN("level_odd");
        else PROF_BEGIN("level_even");
    }
    for (k = 0; k < DEPTH; k++) PROF_END();
    before = check_rss_kib();
    ev = prof_stop();
    after = check_rss_kib();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_count(ev), DEPTH);
    CHECK_MSG(after - before < 32 * 1024, "prof_stop of %d nested scopes with stacks grew the process by %ld KiB", DEPTH, after - before);
    x = get(ev, DEPTH - 1);
    CHECK_EQ_INT(x.stack_depth, DEPTH);
    x = get(ev, 0);
    CHECK_EQ_INT(x.stack_depth, 1);
    /* every event's array, read in start order, stays one chain's worth */
    before = check_rss_kib();
    for (k = 0; k < DEPTH; k++) {
        x = get(ev, k);
        if (x.stack_depth != k + 1 || !x.stack || strncmp(x.stack[x.stack_depth - 1], "level_even (", 12) != 0) { CHECK_EQ_INT(x.stack_depth, k + 1); break; }
    }
    after = check_rss_kib();
    CHECK_MSG(after - before < 32 * 1024, "reading %d deep stacks grew the process by %ld KiB", DEPTH, after - before);
    prof_events_free(ev);
}

/* No fixed-size labels: a frame keeps a name of any length whole, with its
   (file:line); names that differ only after byte 1023 stay two frames; a
   multi-byte character at byte 1023 is not cut into U+FFFD. */
static const char *frame_of(prof_events *ev, const char *prefix, size_t plen) {
    size_t i;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event x = get(ev, (int64_t)i);
        if (x.stack_depth > 0 && strncmp(x.name, prefix, plen) == 0) return x.stack[0];
    }
    return NULL;
}
static void test_long_frames(void) {
    static char a[2100], b[2100], u[1100];
    prof_config c = config();
    prof_events *ev;
    const char *fa, *fb, *fu;
    char tail[64];
    int line_a;
    memset(a, 'n', 2000);
    a[2000] = 0;
    memcpy(b, a, sizeof b);
    a[1500] = 'A';
    b[1500] = 'B';
    memset(u, 'u', 1021);
    memcpy(u + 1021, "\xe2\x82\xac", 4); /* the euro sign over bytes 1021..1023 */
    c.with_stack = PROF_STACK_SCOPES;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    line_a = __LINE__ + 1;
    { PROF_SCOPE_DYN(a); }
    { PROF_SCOPE_DYN(b); }
    { PROF_SCOPE_DYN(u); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    fa = frame_of(ev, a, 2000);
    fb = frame_of(ev, b, 2000);
    fu = frame_of(ev, u, 1024);
    if (CHECK(fa != NULL && fb != NULL && fu != NULL)) {
        snprintf(tail, sizeof tail, " (%s:%d)", __FILE__, line_a);
        CHECK_EQ_INT(strlen(fa), 2000 + strlen(tail));
        CHECK(strncmp(fa, a, 2000) == 0 && strcmp(fa + 2000, tail) == 0);
        CHECK(strcmp(fa, fb) != 0);
        CHECK(strncmp(fu, u, 1024) == 0 && fu[1024] == ' ');
    }
    prof_events_free(ev);
}

/* _set_backward_stacktraces sees the recorded stacks: ops under a backward
   scope get the forward op's stack, as PyTorch gives them (the stacks were
   attached after it ran, so they kept their own). */
static void test_backward_stacks(void) {
    prof_config c = config();
    prof_events *ev;
    prof_args fa, ba;
    const char *fwd, *bwd, *inner;
    memset(&fa, 0, sizeof fa);
    memset(&ba, 0, sizeof ba);
    fa.sequence_nr = 7;
    fa.set = PROF_ARGS_SEQUENCE_NR;
    ba.scope = 1;
    ba.sequence_nr = 7;
    ba.fwd_thread = my_tid();
    ba.set = PROF_ARGS_SEQUENCE_NR | PROF_ARGS_FWD_THREAD;
    c.with_stack = PROF_STACK_SCOPES;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE("forward");
        { PROF_SCOPE_ARGS("aten::mm", &fa); }
    }
    {
        PROF_SCOPE("backward");
        {
            PROF_SCOPE_ARGS("MmBackward0", &ba);
            { PROF_SCOPE_OP("aten::mm_bw"); }
        }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    fwd = frame_of(ev, "aten::mm", 9);
    bwd = frame_of(ev, "MmBackward0", 12);
    inner = frame_of(ev, "aten::mm_bw", 12);
    if (CHECK(fwd != NULL && bwd != NULL && inner != NULL)) {
        CHECK(strncmp(fwd, "aten::mm (", 10) == 0);
        CHECK_EQ_STR(bwd, fwd);
        CHECK_EQ_STR(inner, fwd);
    }
    prof_events_free(ev);
}

/* prof_stop orders and links the events itself (each thread's run put in
   start order in place, the runs merged, parents linked in one pass): the
   same events built into a tree by hand, added in another order, must give
   every event the same parent and children. Random nesting on four
   threads, with equal start times (a scope and its first child can share a
   tick) and ops whose shapes are one shared record. */
static uint64_t rnd_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}
static void rnd_tree(uint64_t *s, int depth) {
    int k, n = (int)(rnd_next(s) % 4);
    for (k = 0; k < n; k++) {
        unsigned w = (unsigned)(rnd_next(s) % 3);
        if (w == 0) {
            PROF_SCOPE("r_a");
            if (depth < 6) rnd_tree(s, depth + 1);
        } else if (w == 1) {
            PROF_SCOPE_SHAPES("r_op", 2, 3, 4);
            if (depth < 6) rnd_tree(s, depth + 1);
        } else {
            PROF_SCOPE("r_b");
        }
    }
}
static void *rnd_thread(void *arg) {
    uint64_t s = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
    int i;
    for (i = 0; i < 300; i++) {
        PROF_SCOPE("r_root");
        rnd_tree(&s, 0);
    }
    return NULL;
}
typedef struct sig_ev { uint64_t thread; int64_t start, end, pstart, pend; const char *name, *pname; size_t nch; } sig_ev;
static int sig_cmp(const void *pa, const void *pb) {
    const sig_ev *a = (const sig_ev *)pa, *b = (const sig_ev *)pb;
    int c;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    if ((c = strcmp(a->name, b->name)) != 0) return c;
    if (a->pstart != b->pstart) return a->pstart < b->pstart ? -1 : 1;
    if (a->pend != b->pend) return a->pend < b->pend ? -1 : 1;
    if ((c = strcmp(a->pname, b->pname)) != 0) return c;
    return a->nch < b->nch ? -1 : a->nch > b->nch;
}
/* every event as (itself, its parent, its number of children), sorted */
static sig_ev *signatures(prof_events *ev, size_t *n_out) {
    size_t i, n = prof_events_count(ev);
    sig_ev *s = (sig_ev *)calloc(n + 1, sizeof *s);
    for (i = 0; s && i < n; i++) {
        prof_event e = get(ev, (int64_t)i), p;
        s[i].thread = e.thread;
        s[i].start = e.start_ns;
        s[i].end = e.end_ns;
        s[i].name = e.name;
        s[i].nch = e.n_children;
        s[i].pname = "";
        if (e.parent >= 0) {
            p = get(ev, e.parent);
            s[i].pstart = p.start_ns;
            s[i].pend = p.end_ns;
            s[i].pname = p.name;
        }
    }
    if (s) qsort(s, n, sizeof *s, sig_cmp);
    *n_out = n;
    return s;
}
/* prof_event.n_children, counted from the child list (prof__ev keeps no
   count), on a list prof_stop linked: a recursion through one name folded
   by _remove_dup_nodes leaves its outermost event with the innermost's
   children, and each child with that parent. */
static void test_merged_children_counts(void) {
    prof_config c = config();
    prof_events *ev;
    int64_t r, t, k;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE("mc_top");
        {
            PROF_SCOPE("mc_rec");
            {
                PROF_SCOPE("mc_rec");
                {
                    PROF_SCOPE("mc_rec");
                    { PROF_SCOPE("mc_a"); }
                    { PROF_SCOPE("mc_b"); }
                    { PROF_SCOPE("mc_c"); }
                }
            }
        }
        { PROF_SCOPE("mc_side"); }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(count_named(ev, "mc_rec"), 1);
    CHECK_EQ_INT(prof_events_stats(ev).merged, 2);
    t = find(ev, "mc_top", 0);
    r = find(ev, "mc_rec", 0);
    CHECK_EQ_INT(get(ev, t).n_children, 2);
    CHECK_EQ_INT(get(ev, r).n_children, 3);
    CHECK_EQ_INT(get(ev, r).parent, t);
    CHECK_EQ_INT(prof_events_child(ev, (size_t)t, 0), r);
    CHECK_EQ_INT(prof_events_child(ev, (size_t)t, 1), find(ev, "mc_side", 0));
    for (k = 0; k < 3; k++) {
        int64_t ch = prof_events_child(ev, (size_t)r, (size_t)k);
        CHECK_EQ_STR(get(ev, ch).name, k == 0 ? "mc_a" : k == 1 ? "mc_b" : "mc_c");
        CHECK_EQ_INT(get(ev, ch).parent, r);
        CHECK_EQ_INT(get(ev, ch).n_children, 0);
    }
    CHECK_EQ_INT(prof_events_child(ev, (size_t)r, 3), -1);
    CHECK_EQ_INT(check_consistent(ev, my_tid()), 0);
    prof_events_free(ev);
}

static void test_stop_tree_as_built(void) {
    prof_config c = config();
    prof_events *ev, *hand;
    pthread_t th[3];
    size_t i, n, nh, same = 0, a = 0, b;
    sig_ev *s1, *s2;
    int k;
    c.record_shapes = 1;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (k = 0; k < 3; k++) CHECK_EQ_INT(pthread_create(&th[k], NULL, rnd_thread, (void *)(uintptr_t)(k + 1)), 0);
    rnd_thread((void *)(uintptr_t)7);
    for (k = 0; k < 3; k++) pthread_join(th[k], NULL);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    n = prof_events_count(ev);
    CHECK(n > 4000);
    CHECK_EQ_INT(check_consistent(ev, 0), 0);
    hand = prof_events_create();
    for (i = n; i-- > 0;) { /* another order than the list's */
        prof_event e = get(ev, (int64_t)i);
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = e.name;
        d.thread = e.thread;
        d.start_ns = e.start_ns;
        d.end_ns = e.end_ns;
        CHECK(prof_events_add(hand, &d) >= 0);
    }
    s1 = signatures(ev, &n);
    s2 = signatures(hand, &nh);
    CHECK_EQ_INT(nh, n);
    for (i = 0; s1 && s2 && i < n && i < nh; i++) same += sig_cmp(&s1[i], &s2[i]) == 0;
    CHECK_EQ_INT(same, n);
    free(s1);
    free(s2);
    prof_events_free(hand);
    /* the ops share one record: a kernel given to one is that one's only */
    while (a < n && strcmp(get(ev, (int64_t)a).name, "r_op") != 0) a++;
    for (b = a + 1; b < n && strcmp(get(ev, (int64_t)b).name, "r_op") != 0;) b++;
    if (CHECK(b < n)) {
        CHECK_EQ_INT(prof_events_append_kernel(ev, a, "k", 0, 1000), PROF_OK);
        CHECK_EQ_INT(get(ev, (int64_t)a).n_kernels, 1);
        CHECK_EQ_INT(get(ev, (int64_t)b).n_kernels, 0);
        CHECK_EQ_INT(get(ev, (int64_t)b).device_time_total_ns, 0);
        CHECK_EQ_STR(get(ev, (int64_t)a).input_shapes, "[[3, 4]]");
        CHECK_EQ_STR(get(ev, (int64_t)b).input_shapes, "[[3, 4]]");
    }
    prof_events_free(ev);
}

/* A longjmp over scopes (Lua's errors, setjmp-based coroutines) ends none
   of them, in C: as the manual says, each such scope has no event, counts
   in open_at_stop, keeps the share of max_events it took, and the scopes
   that ended inside it are kept under its nearest recorded ancestor. The
   accounting stays exact and the profile consistent. */
static jmp_buf lj_buf;
static void lj_jumper(void) {
    PROF_SCOPE("lj_jumped");
    { PROF_SCOPE("lj_done"); spin_ns(1000); }
    {
        PROF_SCOPE("lj_deep");
        longjmp(lj_buf, 1);
    }
}
static void lj_session(size_t cap, prof_events **out) {
    prof_config c = config();
    volatile int i;
    c.max_events = cap;
    *out = NULL;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    for (i = 0; i < 10; i++) {
        PROF_SCOPE("lj_guard");
        if (!setjmp(lj_buf)) lj_jumper();
    }
    { PROF_SCOPE("lj_after"); }
    *out = prof_stop();
}
static void test_longjmp_scopes(void) {
    prof_events *ev;
    prof_stats st;
    size_t k;
    check_log_reset();
    lj_session(0, &ev);
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_entered, 41);
    CHECK_EQ_INT(st.scopes_recorded, 21);
    CHECK_EQ_INT(st.open_at_stop, 20);
    CHECK_EQ_INT(st.scopes_dropped, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_OPEN_SCOPES), 1);
    CHECK_EQ_INT(count_named(ev, "lj_jumped") + count_named(ev, "lj_deep"), 0);
    CHECK_EQ_INT(count_named(ev, "lj_guard"), 10);
    CHECK_EQ_INT(count_named(ev, "lj_after"), 1);
    for (k = 0; k < 10; k++) CHECK_EQ_STR(parent_name(ev, find(ev, "lj_done", k)), "lj_guard");
    CHECK_EQ_INT(check_consistent(ev, 0), 0);
    prof_events_free(ev);

    /* under a cap of 25: the 12 jumped-over scopes of the first 6 rounds
       hold 12 of it, so the 7th guard is the last scope admitted */
    lj_session(25, &ev);
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_entered, 41);
    CHECK_EQ_INT(st.scopes_recorded, 13);
    CHECK_EQ_INT(st.open_at_stop, 12);
    CHECK_EQ_INT(st.scopes_dropped, 16);
    CHECK_EQ_INT(count_named(ev, "lj_guard"), 7);
    CHECK_EQ_INT(count_named(ev, "lj_done"), 6);
    CHECK_EQ_INT(count_named(ev, "lj_after"), 0);
    CHECK_EQ_INT(check_consistent(ev, 0), 0);
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    TIMED(test_recording_off()); /* first: nothing recorded before any session */
    TIMED(test_full_blocks());   /* early: the thread's blocks are mapped one after another */
    TIMED(test_basic_nesting());
    TIMED(test_deep_nesting());
    TIMED(test_exits());
    TIMED(test_same_line());
    TIMED(test_func());
    TIMED(test_dyn_names());
    TIMED(test_begin_end());
    TIMED(test_deep_begin());
    TIMED(test_unbalanced_end());
    TIMED(test_open_at_stop());
    TIMED(test_unnested_records());
    TIMED(test_stop_tree_as_built());
    TIMED(test_merged_children_counts());
    TIMED(test_fork_thread_id());
    TIMED(test_begun_after_stop_tick());
    TIMED(test_scope_across_sessions());
    TIMED(test_begin_across_start());
    TIMED(test_event_cap());
    TIMED(test_cap_keeps_subtrees());
    TIMED(test_cap_counts_events());
    TIMED(test_cap_warning_words());
    TIMED(test_exact_accounting());
    TIMED(test_longjmp_scopes());
    TIMED(test_dyn_names_past_cap());
    TIMED(test_dyn_names_inline());
    TIMED(test_dyn_name_lengths());
    TIMED(test_deep_stacks());
    TIMED(test_long_frames());
    TIMED(test_backward_stacks());
    TIMED(test_sessions());
    TIMED(test_state_errors());
    TIMED(test_marks_and_options());
    TIMED(test_clock());
    TIMED(test_recorded_averages());
    TIMED(test_print_table_errors());
    prof_shutdown();
    return check_report();
}
