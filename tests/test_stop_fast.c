/* prof_stop's decode fast paths (prof__c_plain_run, prof__c_op_fast /
   prof__c_op_one, the site flags cache) against the values the general
   path gives. Ops whose shapes were seen before go the fast way; fresh
   shapes, > 8 values, overload names, steps, DYN names, stale scopes go
   the general way: the streams mix them, on
   several threads, across record blocks, and every event is checked
   against what the test recorded. Each op is also recorded twice in a
   row with the same args (the first often cold, the second warm): both
   events must be equal apart from their times.
   Also: a stale op whose site and shapes are cached (test_stale), the
   event cap (test_cap), records the macros never write (FLOPS/AUTOGRAD
   reversed or repeated), cache slots shared by two keys, ops and plain
   scopes named as steps, malformed shapes with an extra of their own
   (test_forged), and the list grown as it is filled (test_room).
   The same checks pass on the header before the fast paths (8a821c2),
   and each of 11 hand-made faults in them fails at least one.

   `test_stop_fast --dump` prints the events (no times, one thread's in
   its order) for an A/B diff of two headers. */
#define _DEFAULT_SOURCE 1 /* strdup; stdlib.h comes before prof.h (its allocator hooks) */
#include <stdlib.h>
#include <ctype.h>
/* test_room: the list's reservations fail, so the decode runs into e->cap
   and e->capex (the fast paths' room tests) as the list grows */
static int g_fail_big; /* fail this many more allocations of 256 KiB or more */
static long g_failed_big;
static void *test_malloc(size_t n) {
    if (n >= ((size_t)256 << 10) && __atomic_load_n(&g_fail_big, __ATOMIC_RELAXED) > 0) {
        __atomic_sub_fetch(&g_fail_big, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&g_failed_big, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    return malloc(n);
}
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) realloc((p), (n))
#define PROF_FREE(p) free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 3 /* workers, besides the main thread */
#define NITER 700

static int dump;

static prof_event get(prof_events *ev, size_t i) {
    prof_event e;
    memset(&e, 0, sizeof e);
    CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK);
    return e;
}
static prof_config config(void) {
    prof_config c;
    memset(&c, 0, sizeof c);
    c.log = check_log;
    c.record_shapes = 1;
    c.with_flops = 1;
    return c;
}

/* ----- the ops: one site each (a macro per function) ----- */
static prof_args args_of(const int64_t *sh, int n, int64_t flops) {
    prof_args a;
    memset(&a, 0, sizeof a);
    a.shapes = sh;
    a.shapes_len = n;
    a.flops = flops;
    return a;
}
static void op_sh(const int64_t *sh, int n) { prof_args a = args_of(sh, n, 0); PROF_SCOPE_ARGS("op_sh", &a); }
static void op_shf(const int64_t *sh, int n, int64_t fl) { prof_args a = args_of(sh, n, fl); PROF_SCOPE_ARGS("op_shf", &a); }
static void op_seq(const int64_t *sh, int n, int64_t fl, int64_t seq, uint64_t fwd, int scope) {
    prof_args a = args_of(sh, n, fl);
    a.sequence_nr = seq;
    a.fwd_thread = fwd;
    a.scope = scope;
    a.set = PROF_ARGS_SEQUENCE_NR | (fwd ? PROF_ARGS_FWD_THREAD : 0u);
    { PROF_SCOPE_ARGS("op_seq", &a); }
}
static void op_agnoseq(const int64_t *sh, int n, uint64_t fwd) { /* autograd, no sequence number */
    prof_args a = args_of(sh, n, 0);
    a.fwd_thread = fwd;
    a.set = PROF_ARGS_FWD_THREAD;
    { PROF_SCOPE_ARGS("op_agnoseq", &a); }
}
static void op_big(const int64_t *sh, int n) { prof_args a = args_of(sh, n, 0); PROF_SCOPE_ARGS("op_big", &a); }
static void op_fl(int64_t fl) { prof_args a = args_of(NULL, 0, fl); PROF_SCOPE_ARGS("op_fl", &a); }
static void op_outer(const int64_t *sh, int n, const int64_t *ish, int in) {
    prof_args a = args_of(sh, n, 0);
    PROF_SCOPE_ARGS("op_outer", &a);
    { PROF_SCOPE("plain_in"); }
    op_sh(ish, in);
}

/* The values of iteration i on thread t: a few lists that repeat (cache
   hits), and every 5th iteration fresh ones (misses). */
static int fresh(int i) { return i % 5 == 2; }
static void dims(int t, int i, int64_t *a, int64_t *b, int64_t *c) {
    int k = i % 3;
    if (fresh(i)) { *a = 1000 + i; *b = 7 + t; *c = 2000 + i; }
    else { *a = 2 + k; *b = 3 + k * 5; *c = 4 + k * 7; }
}
static int64_t seq_of(int t, int i) { return (int64_t)i * 10 + t; }
static uint64_t fwd_of(int t, int i) { return i % 3 == 0 ? (uint64_t)(t + 100) : 0; }
static int64_t flops_of(int i, int64_t a, int64_t b, int64_t c) { return i % 4 == 1 ? 0 : 2 * a * b * c + (i % 2); }

/* one iteration: every op twice in a row (cold, warm), plain scopes between */
static void iteration(int t, int i) {
    char name[32];
    int64_t a, b, c, mm[6], odd[5], big[10], eight[8], one[1], bad[2], in2[2];
    dims(t, i, &a, &b, &c);
    mm[0] = 2; mm[1] = a; mm[2] = b; mm[3] = 2; mm[4] = b; mm[5] = c;        /* [[a, b], [b, c]] */
    odd[0] = 1; odd[1] = a; odd[2] = 0; odd[3] = 1; odd[4] = c;             /* [[a], [], [c]]: 5 values */
    big[0] = 3; big[1] = a; big[2] = b; big[3] = c; big[4] = 3; big[5] = c; big[6] = b; big[7] = a; big[8] = 1; big[9] = b;
    eight[0] = 3; eight[1] = a; eight[2] = b; eight[3] = c; eight[4] = 3; eight[5] = c; eight[6] = b; eight[7] = a;
    one[0] = 0;                                                             /* [[]] */
    bad[0] = 5; bad[1] = a;                                                 /* 5 dims, 1 given: malformed */
    in2[0] = 1; in2[1] = a;
    snprintf(name, sizeof name, "it%d", i);
    {
        PROF_SCOPE_DYN(name);
        { PROF_SCOPE("plain_a"); }
        op_sh(mm, 6); op_sh(mm, 6);
        { PROF_SCOPE("plain_a"); }
        { PROF_SCOPE("plain_b"); }
        op_shf(mm, 6, flops_of(i, a, b, c)); op_shf(mm, 6, flops_of(i, a, b, c));
        op_sh(odd, 5); op_sh(odd, 5);
        op_seq(mm, 6, flops_of(i, a, b, c), seq_of(t, i), fwd_of(t, i), i & 1);
        op_seq(mm, 6, flops_of(i, a, b, c), seq_of(t, i), fwd_of(t, i), i & 1);
        { PROF_SCOPE("plain_a"); }
        op_agnoseq(mm, 6, (uint64_t)(t + 1)); op_agnoseq(mm, 6, (uint64_t)(t + 1));
        op_big(big, 10); op_big(big, 10);
        op_sh(eight, 8); op_sh(eight, 8);
        op_sh(one, 1); op_sh(one, 1);
        op_sh(bad, 2); op_sh(bad, 2);
        op_fl(a); op_fl(a);
        {
            char dn[32];
            snprintf(dn, sizeof dn, "dyn%d", i % 4);
            { PROF_SCOPE_DYN(dn); }
        }
        /* a run of plain scopes after a general-path record (prof__c_plain_run) */
        { PROF_SCOPE("plain_a"); }
        { PROF_SCOPE("plain_a"); }
        { PROF_SCOPE("plain_b"); }
        { PROF_SCOPE("plain_a"); }
        op_seq(odd, 5, 0, seq_of(t, i), 0, 0); op_seq(odd, 5, 0, seq_of(t, i), 0, 0);
        op_outer(mm, 6, in2, 2); op_outer(mm, 6, in2, 2);
        { PROF_SCOPE("plain_b"); op_sh(mm, 6); }
    }
}

/* ----- what each event must be ----- */
static const char *expect_shapes(const char *op, int t, int i, int nested) {
    static __thread char buf[256];
    int64_t a, b, c;
    dims(t, i, &a, &b, &c);
    if (nested) { snprintf(buf, sizeof buf, "[[%lld]]", (long long)a); return buf; }
    if (!strcmp(op, "mm")) snprintf(buf, sizeof buf, "[[%lld, %lld], [%lld, %lld]]", (long long)a, (long long)b, (long long)b, (long long)c);
    else if (!strcmp(op, "odd")) snprintf(buf, sizeof buf, "[[%lld], [], [%lld]]", (long long)a, (long long)c);
    else if (!strcmp(op, "big"))
        snprintf(buf, sizeof buf, "[[%lld, %lld, %lld], [%lld, %lld, %lld], [%lld]]", (long long)a, (long long)b, (long long)c, (long long)c,
                 (long long)b, (long long)a, (long long)b);
    else if (!strcmp(op, "eight"))
        snprintf(buf, sizeof buf, "[[%lld, %lld, %lld], [%lld, %lld, %lld]]", (long long)a, (long long)b, (long long)c, (long long)c, (long long)b,
                 (long long)a);
    else if (!strcmp(op, "one")) snprintf(buf, sizeof buf, "[[]]");
    else if (!strcmp(op, "bad")) snprintf(buf, sizeof buf, "[[%lld]]", (long long)a); /* what could be read */
    else buf[0] = 0;
    return buf;
}

typedef struct counts { long it, plain_a, plain_b, plain_in, sh, shf, seq, agnoseq, big, fl, outer, dyn; } counts;

/* Checks the children of iteration event k (thread t, iteration i) in order. */
static void check_iteration(prof_events *ev, int64_t k, int t, int i, counts *n) {
    size_t nc = get(ev, (size_t)k).n_children, j;
    int64_t a, b, c;
    /* the op_sh children in order: mm, mm, odd, odd, eight, eight, one, one, bad, bad */
    static const char *const sh_kinds[] = { "mm", "mm", "odd", "odd", "eight", "eight", "one", "one", "bad", "bad" };
    int nsh = 0, nseq = 0;
    prof_event prev;
    memset(&prev, 0, sizeof prev);
    dims(t, i, &a, &b, &c);
    CHECK_EQ_INT(nc, 34);
    for (j = 0; j < nc; j++) {
        int64_t ci = prof_events_child(ev, (size_t)k, j);
        prof_event e = get(ev, (size_t)ci);
        CHECK_EQ_INT(e.parent, k);
        CHECK_EQ_INT(e.thread, get(ev, (size_t)k).thread);
        CHECK_EQ_INT(e.node_id, -1);
        if (!strncmp(e.name, "plain_", 6)) {
            CHECK_EQ_INT(e.is_user_annotation, 1);
            CHECK_EQ_STR(e.input_shapes, "[]"); /* record_shapes: none given */
            CHECK_EQ_INT(e.sequence_nr, -1);
            CHECK_EQ_INT(e.flops, 0);
            if (!strcmp(e.name, "plain_a")) { n->plain_a++; CHECK_EQ_INT(e.n_children, 0); }
            else if (!strcmp(e.name, "plain_b")) {
                n->plain_b++;
                CHECK_EQ_INT(e.n_children, j == nc - 1 ? 1 : 0); /* the last one holds an op_sh */
                if (e.n_children == 1) {
                    prof_event s = get(ev, (size_t)prof_events_child(ev, (size_t)ci, 0));
                    CHECK_EQ_STR(s.name, "op_sh");
                    CHECK_EQ_STR(s.input_shapes, expect_shapes("mm", t, i, 0));
                    CHECK_EQ_INT(s.is_user_annotation, 0);
                    n->sh++;
                }
            } else CHECK(0);
            continue;
        }
        if (!strncmp(e.name, "dyn", 3)) {
            char want[16];
            snprintf(want, sizeof want, "dyn%d", i % 4);
            CHECK_EQ_STR(e.name, want);
            CHECK_EQ_INT(e.is_user_annotation, 1);
            n->dyn++;
            continue;
        }
        CHECK_EQ_INT(e.is_user_annotation, 0);
        CHECK_EQ_INT(e.has_fwd_thread, 0 + (!strcmp(e.name, "op_agnoseq") || (!strcmp(e.name, "op_seq") && nseq < 2 && fwd_of(t, i))));
        if (!strcmp(e.name, "op_sh")) {
            CHECK(nsh < 10);
            if (nsh < 10) CHECK_EQ_STR(e.input_shapes, expect_shapes(sh_kinds[nsh], t, i, 0));
            CHECK_EQ_INT(e.flops, 0);
            CHECK_EQ_INT(e.sequence_nr, -1);
            CHECK_EQ_INT(e.scope, 0);
            nsh++;
            n->sh++;
        } else if (!strcmp(e.name, "op_shf")) {
            CHECK_EQ_STR(e.input_shapes, expect_shapes("mm", t, i, 0));
            CHECK_EQ_INT(e.flops, flops_of(i, a, b, c));
            CHECK_EQ_INT(e.sequence_nr, -1);
            n->shf++;
        } else if (!strcmp(e.name, "op_seq")) {
            CHECK_EQ_STR(e.input_shapes, expect_shapes(nseq < 2 ? "mm" : "odd", t, i, 0));
            CHECK_EQ_INT(e.flops, nseq < 2 ? flops_of(i, a, b, c) : 0);
            CHECK_EQ_INT(e.sequence_nr, seq_of(t, i));
            CHECK_EQ_INT(e.scope, nseq < 2 ? (i & 1) : 0);
            if (e.has_fwd_thread) CHECK_EQ_INT(e.fwd_thread, fwd_of(t, i));
            nseq++;
            n->seq++;
        } else if (!strcmp(e.name, "op_agnoseq")) {
            CHECK_EQ_STR(e.input_shapes, expect_shapes("mm", t, i, 0));
            CHECK_EQ_INT(e.sequence_nr, -1);
            CHECK_EQ_INT(e.fwd_thread, t + 1);
            n->agnoseq++;
        } else if (!strcmp(e.name, "op_big")) {
            CHECK_EQ_STR(e.input_shapes, expect_shapes("big", t, i, 0));
            n->big++;
        } else if (!strcmp(e.name, "op_fl")) {
            CHECK_EQ_STR(e.input_shapes, "[]"); /* record_shapes: none given */
            CHECK_EQ_INT(e.flops, a);
            n->fl++;
        } else if (!strcmp(e.name, "op_outer")) {
            prof_event p = get(ev, (size_t)prof_events_child(ev, (size_t)ci, 0)), s = get(ev, (size_t)prof_events_child(ev, (size_t)ci, 1));
            CHECK_EQ_STR(e.input_shapes, expect_shapes("mm", t, i, 0));
            CHECK_EQ_INT(e.n_children, 2);
            CHECK_EQ_STR(p.name, "plain_in");
            CHECK_EQ_INT(p.is_user_annotation, 1);
            CHECK_EQ_STR(s.name, "op_sh");
            CHECK_EQ_STR(s.input_shapes, expect_shapes("mm", t, i, 1));
            CHECK_EQ_INT(s.sequence_nr, -1);
            n->outer++;
            n->plain_in++;
            n->sh++;
        } else {
            fprintf(stderr, "unexpected event %s\n", e.name);
            CHECK(0);
        }
        /* the second of a pair: equal to the first apart from its times */
        if (prev.name && !strcmp(prev.name, e.name)) {
            CHECK_EQ_STR(e.input_shapes, prev.input_shapes);
            CHECK(e.input_shapes == prev.input_shapes); /* one interned string */
            CHECK_EQ_INT(e.flops, prev.flops);
            CHECK_EQ_INT(e.sequence_nr, prev.sequence_nr);
            CHECK_EQ_INT(e.has_fwd_thread, prev.has_fwd_thread);
            CHECK_EQ_INT(e.fwd_thread, prev.fwd_thread);
            CHECK_EQ_INT(e.scope, prev.scope);
            CHECK_EQ_INT(e.is_user_annotation, prev.is_user_annotation);
            CHECK_EQ_INT(e.n_children, prev.n_children);
            CHECK_EQ_STR(e.overload_name, prev.overload_name);
            CHECK_EQ_STR(e.trace_name, prev.trace_name);
            CHECK_EQ_STR(e.file, prev.file);
            CHECK_EQ_INT(e.line, prev.line);
            CHECK(e.start_ns >= prev.end_ns);
            memset(&prev, 0, sizeof prev);
            continue;
        }
        prev = e;
    }
    CHECK_EQ_INT(nsh, 10);
    n->it++;
}

static void dump_events(prof_events *ev) {
    size_t i, n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e = get(ev, i);
        prof_event p;
        memset(&p, 0, sizeof p);
        if (e.parent >= 0) p = get(ev, (size_t)e.parent);
        printf("%s|%s|%s|%s|%s|fl=%lld|seq=%lld|fwd=%d:%llu|sc=%d|ua=%d|nc=%zu|%s:%d\n", e.thread_name ? e.thread_name : "?", e.name,
               p.name ? p.name : "-", e.trace_name ? e.trace_name : "-", e.input_shapes ? e.input_shapes : "None", (long long)e.flops,
               (long long)e.sequence_nr, e.has_fwd_thread, (unsigned long long)e.fwd_thread, e.scope, e.is_user_annotation, e.n_children,
               e.func ? e.func : "-", e.line);
    }
}
static void dump_stats(const char *what, prof_stats s) {
    printf("~stats %s events=%llu dropped=%llu open=%llu malformed=%llu entered=%llu recorded=%llu sdropped=%llu merged=%llu\n", what,
           (unsigned long long)s.events, (unsigned long long)s.dropped, (unsigned long long)s.open_at_stop,
           (unsigned long long)s.malformed_shapes, (unsigned long long)s.scopes_entered, (unsigned long long)s.scopes_recorded,
           (unsigned long long)s.scopes_dropped, (unsigned long long)s.merged);
}

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg, i;
    char tn[16];
    snprintf(tn, sizeof tn, "w%d", t);
    PROF_THREAD_NAME(tn);
    for (i = 0; i < NITER; i++) iteration(t, i);
    return NULL;
}

/* Many threads, steps on the main thread, every kind of op. */
static void test_mixed(void) {
    prof_config cfg = config();
    pthread_t th[NTHREADS];
    prof_events *ev;
    prof_stats st;
    counts n;
    int t, i;
    long steps = 0, pre = 0, post = 0, thr_it[NTHREADS + 1];
    size_t k, nev;
    cfg.schedule.active = 1000000; /* one window: every step recorded */
    cfg.schedule.repeat = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    PROF_THREAD_NAME("w0");
    for (t = 1; t <= NTHREADS; t++) CHECK_EQ_INT(pthread_create(&th[t - 1], NULL, worker, (void *)(intptr_t)t), 0);
    for (i = 0; i < NITER; i++) {
        iteration(0, i);
        if (i % 50 == 49) {
            { PROF_SCOPE("pre_step"); }
            CHECK_EQ_INT(prof_step(), PROF_OK);
            { PROF_SCOPE("post_step"); }
            { PROF_SCOPE("post_step"); }
        }
    }
    for (t = 1; t <= NTHREADS; t++) pthread_join(th[t - 1], NULL);
    ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return;
    if (dump) { dump_events(ev); dump_stats("mixed", prof_events_stats(ev)); }
    memset(&n, 0, sizeof n);
    memset(thr_it, 0, sizeof thr_it);
    nev = prof_events_count(ev);
    for (k = 0; k < nev; k++) {
        prof_event e = get(ev, k);
        if (!strcmp(e.name, "ProfilerStep*")) {
            char want[32];
            snprintf(want, sizeof want, "ProfilerStep#%ld", steps);
            CHECK_EQ_STR(e.trace_name, want); /* the steps in order, each its own name */
            CHECK_EQ_STR(e.thread_name, "w0");
            CHECK_EQ_INT(e.n_children, steps == 0 ? 51 : steps < NITER / 50 ? 53 : 2);
            CHECK_EQ_INT(e.is_user_annotation, 1);
            steps++;
            continue;
        }
        if (!strcmp(e.name, "pre_step") || !strcmp(e.name, "post_step")) {
            prof_event p = get(ev, (size_t)e.parent);
            CHECK_EQ_STR(p.name, "ProfilerStep*");
            CHECK_EQ_INT(e.is_user_annotation, 1);
            CHECK_EQ_INT(e.n_children, 0);
            if (e.name[1] == 'r') pre++;
            else post++;
            continue;
        }
        if (e.name[0] == 'i' && e.name[1] == 't') {
            int ti = e.thread_name ? atoi(e.thread_name + 1) : -1, it = atoi(e.name + 2);
            CHECK(ti >= 0 && ti <= NTHREADS);
            if (ti < 0 || ti > NTHREADS) continue;
            thr_it[ti]++;
            if (e.parent >= 0) CHECK(!strncmp(get(ev, (size_t)e.parent).name, "ProfilerStep*", 13) && ti == 0);
            else CHECK(ti != 0 || it < 0); /* the main thread's are in steps */
            check_iteration(ev, (int64_t)k, ti, it, &n);
        }
    }
    /* every step closed by prof_step and the open one closed by prof_stop */
    CHECK_EQ_INT(steps, NITER / 50 + 1);
    for (t = 0; t <= NTHREADS; t++) CHECK_EQ_INT(thr_it[t], NITER);
    CHECK_EQ_INT(pre, NITER / 50);
    CHECK_EQ_INT(post, 2 * (NITER / 50));
    {
        long T = (NTHREADS + 1) * (long)NITER;
        CHECK_EQ_INT(n.it, T);
        CHECK_EQ_INT(n.plain_a, 6 * T);
        CHECK_EQ_INT(n.plain_b, 3 * T);
        CHECK_EQ_INT(n.plain_in, 2 * T);
        CHECK_EQ_INT(n.sh, 10 * T + 1 * T + 2 * T);
        CHECK_EQ_INT(n.shf, 2 * T);
        CHECK_EQ_INT(n.seq, 4 * T);
        CHECK_EQ_INT(n.agnoseq, 2 * T);
        CHECK_EQ_INT(n.big, 2 * T);
        CHECK_EQ_INT(n.fl, 2 * T);
        CHECK_EQ_INT(n.outer, 2 * T);
        CHECK_EQ_INT(n.dyn, T);
        st = prof_events_stats(ev);
        /* per iteration: it, 34 children, 2 plain_in and 2 nested op_sh, 1 op_sh under plain_b */
        CHECK_EQ_INT(st.events, (uint64_t)(T * 40 + NITER / 50 + 1 + 3 * (NITER / 50)));
        CHECK_EQ_INT(nev, st.events);
        CHECK_EQ_INT(st.dropped, 0);
        CHECK_EQ_INT(st.open_at_stop, 0);
        CHECK_EQ_INT(st.merged, 0);
        CHECK_EQ_INT(st.malformed_shapes, (uint64_t)(2 * T)); /* each op_sh(bad) counts, hit or miss */
        CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded);
        CHECK_EQ_INT(st.scopes_recorded, st.events);
        CHECK_EQ_INT(st.threads, NTHREADS + 1);
    }
    prof_events_free(ev);
}

/* A stale op (opened before this session) whose site and shapes are in
   the caches when its record comes: not an event. */
static void op_stale(int depth) {
    static const int64_t sh[] = { 1, 7 };
    prof_args a = args_of(sh, 2, 0);
    PROF_SCOPE_ARGS("op_stale", &a);
    if (depth == 0) {
        prof_config cfg = config();
        prof_events *ev = prof_stop(); /* op_stale open at the stop */
        prof_events_free(ev);
        CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
        { PROF_SCOPE("mid"); op_stale(1); op_stale(1); op_stale(1); }
    }
}
static void test_stale(void) {
    prof_config cfg = config();
    prof_events *ev;
    prof_stats st;
    size_t k, nst = 0;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    op_stale(0);
    ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return;
    if (dump) { dump_events(ev); dump_stats("stale", prof_events_stats(ev)); }
    for (k = 0; k < prof_events_count(ev); k++) {
        prof_event e = get(ev, k);
        if (!strcmp(e.name, "op_stale")) {
            nst++;
            CHECK_EQ_STR(e.input_shapes, "[[7]]");
            CHECK_EQ_STR(get(ev, (size_t)e.parent).name, "mid");
        }
    }
    CHECK_EQ_INT(nst, 3);
    CHECK_EQ_INT(prof_events_count(ev), 4);
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.events, 4);
    CHECK_EQ_INT(st.scopes_recorded, 4);
    CHECK_EQ_INT(st.open_at_stop, 0);
    prof_events_free(ev);
}

/* The event cap: ops past it are dropped at record time; the decode
   gives the same events whichever path took them. */
static void test_cap(void) {
    prof_config cfg = config();
    prof_events *ev;
    prof_stats st;
    int i;
    cfg.max_events = 3000;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (i = 0; i < 200; i++) iteration(0, i);
    ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return;
    st = prof_events_stats(ev);
    if (dump) { dump_events(ev); dump_stats("cap", st); }
    CHECK(st.events <= 3000);
    CHECK(st.scopes_dropped > 0);
    CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
    CHECK_EQ_INT(st.scopes_recorded, st.events);
    prof_events_free(ev);
}

/* Records the macros never write, forged the way prof__scope_leave_args
   writes its own: an op's FLOPS and AUTOGRAD in the other order, or
   repeated (the later wins, as prof__c_extension reads them). The same
   site and shapes each time, so the caches are warm when they come. */
static const prof_site forged_site = { "op_forged", __FILE__, "forge", 1, PROF_SITE_CPU_OP };
/* an op named as a step is one (prof__c_site): never the fast way */
static const prof_site forged_step_site = { "ProfilerStep#9", __FILE__, "forge", 2, PROF_SITE_CPU_OP };
static const prof_site *forge_site = &forged_site;
typedef struct forged_ext { unsigned kind, aux; uint64_t t0, t1; } forged_ext;
static void forge(const int64_t *sh, int n, const forged_ext *x, int nx) {
    prof__scope s = prof__scope_enter(forge_site, NULL);
    size_t k = 1 + (size_t)nx + (n ? 1 + ((size_t)n + 1) / 2 : 0);
    prof__rec *r, *start;
    int i;
    CHECK(s.t != NULL);
    if (!s.t || !(r = start = prof__slots(s.t, k))) return;
    if (n) {
        r->site = PROF__EXT(PROF__EXT_SHAPES, n);
        r->t0 = r->t1 = 0;
        r++;
        prof__put_data(&r, (const uint64_t *)(const void *)sh, (size_t)n);
    }
    for (i = 0; i < nx; i++, r++) {
        r->site = PROF__EXT(x[i].kind, x[i].aux);
        r->t0 = x[i].t0;
        r->t1 = x[i].t1;
    }
    r->site = s.site;
    r->t0 = s.t0;
    r->t1 = prof__now();
    PROF__STORE(&s.t->pos, start + k);
}
#define NFORGED 60
#define FORGED_KIDS 24
/* The caches' slot of a list of two shape values (v0, v1), as
   prof__c_shared_extra (flops: has_flops) and prof__c_shapes find it: two
   keys of one slot make every hit test compare their values. */
static unsigned slot2(int shared, int has_flops, int64_t flops, int64_t v0, int64_t v1) {
    uint64_t h = shared ? 4u : 3u;
    if (shared && has_flops) h = prof__mix(h ^ (uint64_t)flops);
    h = (h ^ (uint64_t)v0) * 0xff51afd7ed558ccdull;
    h = (h ^ (uint64_t)v1) * 0xff51afd7ed558ccdull;
    return (unsigned)((h ^ (h >> 32)) & 15u);
}
static void test_forged(void) {
    static const int64_t sh[2] = { 1, 5 }, bad[2] = { 5, 9 };
    int64_t sh9[2] = { 1, 9 }, shg[2] = { 1, 0 }, f2 = 101;
    prof_config cfg = config();
    prof_events *ev;
    prof_stats st;
    size_t k;
    long seen[FORGED_KIDS];
    int i;
    /* keys that share a slot with (sh, flops 100) and with sh9 */
    while (slot2(1, 1, f2, 1, 5) != slot2(1, 1, 100, 1, 5)) f2++;
    for (shg[1] = 10; slot2(0, 0, 0, 1, shg[1]) != slot2(0, 0, 0, 1, 9); shg[1]++) {}
    memset(seen, 0, sizeof seen);
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (i = 0; i < NFORGED; i++) {
        char name[16];
        /* A: AUTOGRAD (sequence number, scope 1) before FLOPS */
        forged_ext a[2] = { { PROF__EXT_AUTOGRAD, 0x101u, 0, 0 }, { PROF__EXT_FLOPS, 0, 77, 0 } };
        /* B: FLOPS twice: 22 wins */
        forged_ext b[2] = { { PROF__EXT_FLOPS, 0, 11, 0 }, { PROF__EXT_FLOPS, 0, 22, 0 } };
        /* C: AUTOGRAD twice: the second (seq + 1000, fwd_thread 9) wins */
        forged_ext c[2] = { { PROF__EXT_AUTOGRAD, 0x100u, 0, 0 }, { PROF__EXT_AUTOGRAD, 0x300u, 0, 9 } };
        /* D: FLOPS, AUTOGRAD, FLOPS: 44 wins */
        forged_ext d[3] = { { PROF__EXT_FLOPS, 0, 33, 0 }, { PROF__EXT_AUTOGRAD, 0x100u, 0, 0 }, { PROF__EXT_FLOPS, 0, 44, 0 } };
        /* E, G: a sequence number (an extra of its own); F: FLOPS 100 or f2 */
        forged_ext e[1] = { { PROF__EXT_AUTOGRAD, 0x100u, 0, 0 } };
        forged_ext f1[1] = { { PROF__EXT_FLOPS, 0, 100, 0 } }, fb[1] = { { PROF__EXT_FLOPS, 0, 0, 0 } };
        fb[0].t0 = (uint64_t)f2;
        a[0].t0 = (uint64_t)i;
        c[0].t0 = (uint64_t)i;
        c[1].t0 = (uint64_t)i + 1000;
        d[1].t0 = (uint64_t)i;
        e[0].t0 = (uint64_t)i;
        snprintf(name, sizeof name, "f%d", i);
        {
            PROF_SCOPE_DYN(name);
            forge(sh, 2, a, 2);
            forge(sh, 2, a, 2);
            { PROF_SCOPE("ProfilerStep#7"); } /* a step by its name: after a fast op */
            forge(sh, 2, b, 2);
            forge(sh, 2, b, 2);
            forge(sh, 2, c, 2);
            forge(sh, 2, c, 2);
            forge(sh, 2, d, 3);
            forge(sh, 2, d, 3);
            { PROF_SCOPE("fp"); }
            { PROF_SCOPE("ProfilerStep#8"); } /* ... and in a run of plain scopes */
            forge(bad, 2, e, 1); /* malformed, its own extra */
            forge(bad, 2, e, 1);
            forge(sh, 2, f1, 1);
            forge(sh, 2, fb, 1);
            forge(sh, 2, f1, 1);
            forge(sh, 2, fb, 1);
            forge(sh9, 2, e, 1);
            forge(shg, 2, e, 1);
            forge(sh9, 2, e, 1);
            forge(shg, 2, e, 1);
            forge(sh, 2, NULL, 0); /* (sh, no flops) in ex_cache for the next two */
            forge_site = &forged_step_site;
            forge(sh, 2, NULL, 0);
            forge(sh, 2, NULL, 0);
            forge_site = &forged_site;
        }
    }
    ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return;
    st = prof_events_stats(ev);
    if (dump) { dump_events(ev); dump_stats("forged", st); }
    CHECK_EQ_INT(st.events, NFORGED * (FORGED_KIDS + 1));
    CHECK_EQ_INT(st.scopes_recorded, st.events);
    CHECK_EQ_INT(st.scopes_entered, st.events);
    CHECK_EQ_INT(st.open_at_stop, 0);
    CHECK_EQ_INT(st.malformed_shapes, 2 * NFORGED);
    for (k = 0; k < prof_events_count(ev); k++) {
        prof_event x = get(ev, k), p;
        int64_t it, j;
        char want[32];
        if (x.name[0] == 'f' && x.name[1] != 'p') continue; /* f%d */
        p = get(ev, (size_t)x.parent);
        CHECK_EQ_INT(p.n_children, FORGED_KIDS);
        it = atoi(p.name + 1);
        for (j = 0; j < FORGED_KIDS && prof_events_child(ev, (size_t)x.parent, (size_t)j) != (int64_t)k; j++) {}
        CHECK(j < FORGED_KIDS);
        if (j >= FORGED_KIDS) continue;
        seen[j]++;
        if (j == 2 || j == 10) {
            snprintf(want, sizeof want, "ProfilerStep#%d", j == 2 ? 7 : 8);
            CHECK_EQ_STR(x.name, "ProfilerStep*");
            CHECK_EQ_STR(x.trace_name, want);
            CHECK_EQ_INT(x.is_user_annotation, 1);
            continue;
        }
        if (j >= 22) {
            CHECK_EQ_STR(x.name, "ProfilerStep*");
            CHECK_EQ_STR(x.trace_name, "ProfilerStep#9");
            CHECK_EQ_STR(x.input_shapes, "[[5]]");
            CHECK_EQ_INT(x.is_user_annotation, 0);
            CHECK_EQ_INT(x.flops, 0);
            CHECK_EQ_INT(x.sequence_nr, -1);
            continue;
        }
        if (j == 9) { CHECK_EQ_STR(x.name, "fp"); CHECK_EQ_STR(x.trace_name, "fp"); continue; }
        CHECK_EQ_STR(x.name, "op_forged");
        CHECK_EQ_STR(x.trace_name, "op_forged");
        CHECK_EQ_INT(x.is_user_annotation, 0);
        CHECK_EQ_STR(x.input_shapes, j == 11 || j == 12 ? "[[9]]" : j == 17 || j == 19 ? "[[9]]" : j == 18 || j == 20 ? (snprintf(want, sizeof want, "[[%lld]]", (long long)shg[1]), want) : "[[5]]");
        CHECK_EQ_INT(x.has_fwd_thread, j == 5 || j == 6);
        CHECK_EQ_INT(x.scope, j < 2);
        if (j < 2) { CHECK_EQ_INT(x.flops, 77); CHECK_EQ_INT(x.sequence_nr, it); }
        else if (j < 5) { CHECK_EQ_INT(x.flops, 22); CHECK_EQ_INT(x.sequence_nr, -1); }
        else if (j < 7) { CHECK_EQ_INT(x.flops, 0); CHECK_EQ_INT(x.sequence_nr, it + 1000); CHECK_EQ_INT(x.fwd_thread, 9); }
        else if (j < 9) { CHECK_EQ_INT(x.flops, 44); CHECK_EQ_INT(x.sequence_nr, it); }
        else if (j < 13) { CHECK_EQ_INT(x.flops, 0); CHECK_EQ_INT(x.sequence_nr, it); }
        else if (j < 17) { CHECK_EQ_INT(x.flops, j % 2 ? 100 : f2); CHECK_EQ_INT(x.sequence_nr, -1); }
        else if (j < 21) { CHECK_EQ_INT(x.flops, 0); CHECK_EQ_INT(x.sequence_nr, it); }
        else { CHECK_EQ_INT(x.flops, 0); CHECK_EQ_INT(x.sequence_nr, -1); }
    }
    for (i = 0; i < FORGED_KIDS; i++) CHECK_EQ_INT(seen[i], NFORGED);
    prof_events_free(ev);
}

/* The same single-thread program twice: the second prof_stop without the
   list's reservations (its first two big allocations fail; the list then
   grows as it is filled, so the fast paths meet e->cap and e->capex),
   and with node ids. The events must be the same, in the same order. */
static char *describe(prof_events *ev, size_t k) {
    prof_event e = get(ev, k), p;
    char buf[512];
    memset(&p, 0, sizeof p);
    if (e.parent >= 0) p = get(ev, (size_t)e.parent);
    snprintf(buf, sizeof buf, "%s|%s|%s|%s|%lld|%lld|%d:%llu|%d|%d|%zu", e.name, p.name ? p.name : "-", e.trace_name ? e.trace_name : "-",
             e.input_shapes ? e.input_shapes : "None", (long long)e.flops, (long long)e.sequence_nr, e.has_fwd_thread,
             (unsigned long long)e.fwd_thread, e.scope, e.is_user_annotation, e.n_children);
    return strdup(buf);
}
static void test_room(void) {
    prof_events *ev[2];
    size_t k, n[2];
    int run, i;
    for (run = 0; run < 2; run++) {
        prof_config cfg = config();
        if (run) { cfg.with_node_id = 1; cfg.node_id = 5; }
        CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
        for (i = 0; i < 300; i++) iteration(1, i);
        g_failed_big = 0;
        g_fail_big = run ? 2 : 0;
        ev[run] = prof_stop();
        g_fail_big = 0;
        CHECK(ev[run] != NULL);
        if (!ev[run]) return;
        n[run] = prof_events_count(ev[run]);
    }
    CHECK_EQ_INT(g_failed_big, 2);
    CHECK_EQ_INT(n[0], 300 * 40);
    CHECK_EQ_INT(n[1], n[0]);
    CHECK_EQ_INT(prof_events_stats(ev[1]).malformed_shapes, 600);
    for (k = 0; k < n[0] && k < n[1]; k++) {
        char *a = describe(ev[0], k), *b = describe(ev[1], k);
        CHECK_EQ_STR(b, a);
        CHECK_EQ_INT(get(ev[1], k).node_id, 5);
        CHECK_EQ_INT(get(ev[0], k).node_id, -1);
        free(a);
        free(b);
    }
    prof_events_free(ev[0]);
    prof_events_free(ev[1]);
}

/* Ops with sequence numbers (args mode) share their extras: each keeps
   its own number beside the shared extra (PROF__F_SEQX), and every reader
   gives that number; what writes to an op's extra later (memory charged
   to it, _remove_dup_nodes lifting a child's kernels) makes it an extra of
   its own with its number. */
static void op_fwd(int64_t seq) {
    static const int64_t sh[] = { 2, 8, 8 };
    prof_args a = args_of(sh, 3, 128);
    a.sequence_nr = seq;
    a.set = PROF_ARGS_SEQUENCE_NR;
    {
        PROF_SCOPE_ARGS("sx_fwd", &a);
        prof_alloc((void *)(uintptr_t)(0x1000 + 16 * seq), 64); /* freed by the caller */
    }
}
static void op_dup_inner(int64_t seq) {
    static const int64_t sh[] = { 1, 4 };
    prof_args a = args_of(sh, 2, 0);
    a.sequence_nr = seq;
    a.set = PROF_ARGS_SEQUENCE_NR;
    { PROF_SCOPE_ARGS("sx_dup", &a); }
}
static void op_dup(int64_t seq) {
    static const int64_t sh[] = { 1, 4 };
    prof_args a = args_of(sh, 2, 0);
    a.sequence_nr = seq;
    a.set = PROF_ARGS_SEQUENCE_NR;
    {
        PROF_SCOPE_ARGS("sx_dup", &a);
        op_dup_inner(seq + 1);
    }
}
static void op_bwd(int64_t seq, uint64_t tid) {
    static const int64_t sh[] = { 1, 2 };
    prof_args a = args_of(sh, 2, 0);
    a.sequence_nr = seq;
    a.fwd_thread = tid;
    a.scope = 1; /* a backward function */
    a.set = PROF_ARGS_SEQUENCE_NR | PROF_ARGS_FWD_THREAD;
    {
        PROF_SCOPE_ARGS("sx_bwd", &a);
        { PROF_SCOPE("sx_under_bwd"); }
    }
}
static void fwd_site(int64_t seq) {
    PROF_SCOPE("sx_caller");
    op_fwd(seq);
    prof_dealloc((void *)(uintptr_t)(0x1000 + 16 * seq));
}
static void test_seq_shared(void) {
    enum { N = 200 };
    prof_config cfg = config();
    prof_events *ev;
    uint64_t tid = prof__gettid();
    size_t k, nev, nfwd = 0, ndup = 0, nbwd = 0, nunder = 0;
    int i;
    char *json = NULL;
    cfg.profile_memory = 1;
    cfg.with_stack = PROF_STACK_SCOPES;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (i = 0; i < N; i++) {
        fwd_site(i);
        op_dup(10000 + 2 * i);
        op_bwd(i, tid);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    /* the 4N recorded ops' numbers sit beside 3 shared extras; the tree
       (built by prof_stop) made an extra of its own, with its number, for
       each sx_fwd, charged 64 bytes; none for sx_caller, whose sums are 0,
       or for the outer sx_dup, whose merged child had no kernels to give */
    CHECK_EQ_INT(ev->nsx - 1, 4 * N);
    CHECK_EQ_INT(ev->nex - 1, 3 + N);
    nev = prof_events_count(ev); /* builds the tree: memory charged, duplicates merged */
    CHECK_EQ_INT(nev, 5 * N);    /* fwd, its caller, one dup of two, bwd and its child */
    for (k = 0; k < nev; k++) {
        prof_event e = get(ev, k);
        if (!strcmp(e.name, "sx_fwd")) {
            prof_event p = get(ev, (size_t)e.parent);
            CHECK_EQ_INT(e.sequence_nr, (int64_t)nfwd);
            CHECK_EQ_STR(e.input_shapes, "[[8, 8]]");
            CHECK_EQ_INT(e.flops, 128);
            CHECK_EQ_INT(e.cpu_memory_usage, 64);
            CHECK_EQ_INT(e.self_cpu_memory_usage, 64);
            CHECK_EQ_INT(e.thread, tid);
            CHECK_EQ_STR(p.name, "sx_caller");
            CHECK_EQ_INT(p.cpu_memory_usage, 0); /* allocated and freed inside */
            CHECK_EQ_INT(p.self_cpu_memory_usage, -64);
            nfwd++;
        } else if (!strcmp(e.name, "sx_dup")) {
            CHECK_EQ_INT(e.sequence_nr, 10000 + 2 * (int64_t)ndup); /* the parent's, its child merged */
            CHECK_EQ_INT(e.n_children, 0);
            CHECK_EQ_STR(e.input_shapes, "[[4]]");
            ndup++;
        } else if (!strcmp(e.name, "sx_bwd")) {
            CHECK_EQ_INT(e.sequence_nr, (int64_t)nbwd);
            CHECK_EQ_INT(e.has_fwd_thread, 1);
            CHECK_EQ_INT(e.fwd_thread, tid);
            CHECK_EQ_INT(e.scope, 1);
            nbwd++;
        } else if (!strcmp(e.name, "sx_under_bwd")) {
            /* the stack of the forward op with the backward's number:
               sx_fwd under sx_caller (its own would start with sx_bwd) */
            if (CHECK(e.stack_depth >= 2)) {
                CHECK(strstr(e.stack[0], "sx_fwd") != NULL);
                CHECK(strstr(e.stack[1], "sx_caller") != NULL);
            }
            CHECK_EQ_INT(e.sequence_nr, -1);
            nunder++;
        }
    }
    CHECK_EQ_INT(nfwd, N);
    CHECK_EQ_INT(ndup, N);
    CHECK_EQ_INT(nbwd, N);
    CHECK_EQ_INT(nunder, N);
    CHECK_EQ_INT(prof_events_stats(ev).merged, N);
    /* the trace gives every number once, in both exporters' ways */
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/stop_fast_seq.json"), PROF_OK);
    json = check_read_file("build/stop_fast_seq.json");
    if (CHECK(json != NULL)) {
        for (i = 0; i < N; i++) {
            char want[64];
            const char *at;
            int found = 0;
            snprintf(want, sizeof want, "\"Sequence number\": %d", i);
            for (at = json; (at = strstr(at, want)) != NULL; at++) found += !isdigit((unsigned char)at[strlen(want)]);
            CHECK_EQ_INT(found, 2); /* sx_fwd's and sx_bwd's */
            snprintf(want, sizeof want, "\"Sequence number\": %d}", 10000 + 2 * i);
            for (found = 0, at = json; (at = strstr(at, want)) != NULL; at++) found++;
            CHECK_EQ_INT(found, 1);
            snprintf(want, sizeof want, "\"Sequence number\": %d}", 10000 + 2 * i + 1);
            CHECK(strstr(json, want) == NULL); /* the merged child's */
        }
    }
    free(json);
    prof_events_free(ev);
}

/* prof__c_op_one's guess (ex_guess): a site whose last two ops took the
   same ex_cache entry tries that entry before hashing its values. By then
   the entry may hold another site's key of the same slot, or the op's
   value records may not be DATA ones: either must go the way it goes
   without the guess. */
static void op_g1(const int64_t *sh, int n) { prof_args a = args_of(sh, n, 0); PROF_SCOPE_ARGS("op_g1", &a); }
static void op_g2(const int64_t *sh, int n) { prof_args a = args_of(sh, n, 0); PROF_SCOPE_ARGS("op_g2", &a); }
static const prof_site guess_site = { "op_guess", __FILE__, "guess", 3, PROF_SITE_CPU_OP };
/* an op of two shape values whose value record is tagged FLOPS, not DATA */
static void forge_badtag(const int64_t *sh) {
    prof__scope s = prof__scope_enter(&guess_site, NULL);
    prof__rec *r;
    CHECK(s.t != NULL);
    if (!s.t || !(r = prof__slots(s.t, 3))) return;
    r[0].site = PROF__EXT(PROF__EXT_SHAPES, 2);
    r[0].t0 = r[0].t1 = 0;
    r[1].site = PROF__EXT(PROF__EXT_FLOPS, 0);
    r[1].t0 = (uint64_t)sh[0];
    r[1].t1 = (uint64_t)sh[1];
    r[2].site = s.site;
    r[2].t0 = s.t0;
    r[2].t1 = prof__now();
    PROF__STORE(&s.t->pos, r + 3);
}
static void test_guess(void) {
    static const int64_t A[2] = { 1, 7 }; /* one tensor of one dim: [[7]] */
    int64_t B[2] = { 1, 8 }, C[2] = { 1, 8 };
    const int64_t *want[8];
    char *warm = NULL, *cold = NULL;
    prof_config cfg = config();
    prof_events *ev;
    size_t k, nb = 0, ng = 0;
    int64_t mal[2] = { 0, 0 };
    int run;
    cfg.with_flops = 0;
    /* another key of A's slot, and B of another slot */
    while (slot2(1, 0, 0, C[0], C[1]) != slot2(1, 0, 0, A[0], A[1])) C[1]++;
    while (slot2(1, 0, 0, B[0], B[1]) == slot2(1, 0, 0, A[0], A[1])) B[1]++;
    want[0] = want[1] = want[2] = A; want[3] = C; want[4] = A; want[5] = B; want[6] = want[7] = A;
    for (run = 0; run < 2; run++) {
        CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
        if (run == 0) {
            int i;
            for (i = 0; i < 3; i++) op_g1(A, 2); /* the site's guess: A's entry */
            op_g2(C, 2);                           /* ... which now holds C */
            op_g1(A, 2);
            op_g1(B, 2);
            op_g1(A, 2);
            op_g1(A, 2);
            forge_site = &guess_site;
            for (i = 0; i < 3; i++) forge(A, 2, NULL, 0);
            forge_site = &forged_site;
            forge_badtag(A); /* the guess trusted, the records not DATA */
        } else {
            forge_badtag(A); /* first in its session: no guess, no cache */
        }
        ev = prof_stop();
        CHECK(ev != NULL);
        if (!ev) return;
        if (dump) dump_events(ev);
        mal[run] = (int64_t)prof_events_stats(ev).malformed_shapes;
        for (k = 0; k < prof_events_count(ev); k++) {
            prof_event x = get(ev, k);
            char sh[32];
            if (!strcmp(x.name, "op_g1") || !strcmp(x.name, "op_g2")) {
                CHECK(nb < 8);
                if (nb >= 8) break;
                snprintf(sh, sizeof sh, "[[%lld]]", (long long)want[nb][1]);
                CHECK_EQ_STR(x.input_shapes, sh);
                CHECK_EQ_STR(x.name, nb == 3 ? "op_g2" : "op_g1");
                nb++;
            } else if (!strcmp(x.name, "op_guess") && ng++ == 3) {
                warm = describe(ev, k);
            } else if (!strcmp(x.name, "op_guess") && run == 1) {
                cold = describe(ev, k);
            }
        }
        CHECK_EQ_INT(prof_events_count(ev), run == 0 ? 12 : 1);
        prof_events_free(ev);
    }
    CHECK_EQ_INT(nb, 8);
    CHECK(warm != NULL && cold != NULL);
    if (warm && cold) CHECK_EQ_STR(warm, cold);
    CHECK_EQ_INT(mal[0], mal[1]);
    free(warm);
    free(cold);
}

int main(int argc, char **argv) {
    dump = argc > 1 && !strcmp(argv[1], "--dump");
    prof_set_log(check_log, NULL);
    test_mixed();
    test_stale();
    test_cap();
    test_forged();
    test_room();
    test_seq_shared();
    test_guess();
    return check_report();
}
