/* Hostile use, as a third party's tests would try it: many short-lived
   threads across sessions, tiny caps met mid-nesting, unbalanced and open
   ranges, [memory] rows through every exporter, one list exported twice in
   every format. Each test states the invariant it holds prof.h to.

   Files go to build/hostile/ (cwd = repo root). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define OUT "build/hostile"

static int have_tools(void) {
    return system("python3 -c 'import sys' >/dev/null 2>&1") == 0 && system("protoc --version >/dev/null 2>&1") == 0;
}

/* scopes_entered == scopes_recorded + scopes_dropped + open_at_stop */
static void check_accounting(const prof_events *ev, const char *what) {
    prof_stats s = prof_events_stats(ev);
    CHECK_MSG(s.scopes_entered == s.scopes_recorded + s.scopes_dropped + s.open_at_stop,
              "%s: entered %llu != recorded %llu + dropped %llu + open %llu", what,
              (unsigned long long)s.scopes_entered, (unsigned long long)s.scopes_recorded,
              (unsigned long long)s.scopes_dropped, (unsigned long long)s.open_at_stop);
}

/* ----- [memory] rows in the Perfetto trace -------------------------------- */
/* A [memory] row (a record no event holds) is a row of the tables, but in
   the traces only its record, as a memory instant / counter value: the JSON
   writes no "X" event for it, and the Perfetto trace must write no slice
   (check_perfetto.py: the same slices as the JSON's X events). */
static void perfetto_vs_json(prof_events *ev, const char *name) {
    char js[256], pf[256], cmd[700];
    snprintf(js, sizeof js, OUT "/%s.json", name);
    snprintf(pf, sizeof pf, OUT "/%s.pftrace", name);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, js), PROF_OK);
    CHECK_EQ_INT(prof_export_perfetto(ev, pf), PROF_OK);
    snprintf(cmd, sizeof cmd, "python3 tests/export/check_perfetto.py %s %s", js, pf);
    fflush(stdout);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
}

static void test_perfetto_memory_rows(void) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    prof_config cfg;
    size_t i, rows = 0;
    if (!CHECK(ev != NULL)) return;
    prof_events_set_flags(ev, 1, 0);
    memset(&d, 0, sizeof d);
    d.name = "op";
    d.thread = 1;
    d.start_ns = 10000;
    d.end_ns = 20000;
    CHECK(prof_events_add(ev, &d) >= 0);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 5000, 64, PROF_DEVICE_CPU, 0), PROF_OK);   /* before op: a row */
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 15000, 32, PROF_DEVICE_CPU, 0), PROF_OK);  /* in op */
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 30000, -64, PROF_DEVICE_CPU, 0), PROF_OK); /* after: a row */
    CHECK_EQ_INT(prof_events_count(ev), 3); /* the rows are made by the count too */
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && !strcmp(e.name, "[memory]")) rows++;
    }
    CHECK_EQ_INT(rows, 2);
    perfetto_vs_json(ev, "memory_rows_hand");
    prof_events_free(ev);

    /* recorded: an allocation and a free with no scope open anywhere */
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    cfg.with_stack = PROF_STACK_SCOPES;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    prof_free(prof_malloc(48));
    {
        PROF_SCOPE("outer");
        prof_free(prof_malloc(16));
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    check_accounting(ev, "memory rows");
    CHECK_EQ_INT(prof_events_count(ev), 3); /* outer and two [memory] rows */
    perfetto_vs_json(ev, "memory_rows_recorded");
    prof_events_free(ev);
}

/* ----- record_shapes: scopes without shapes in the Perfetto trace --------- */
/* With record_shapes every event's input shapes are [] unless it has its
   own (prof_events_get, the tables), but the traces carry "Input Dims"
   only for an op with inputs, as Kineto writes them: the JSON has it on
   "mm" alone (it was "Input Dims": [] on every event, on the scopes
   PyTorch's record_function makes too), and the Perfetto trace's
   annotations say the same (check_perfetto.py). */
static void test_perfetto_no_shapes(void) {
    prof_config cfg;
    prof_events *ev;
    prof_event e;
    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    {
        PROF_SCOPE_SHAPES("mm", 2, 3, 4, 2, 4, 5);
        { PROF_SCOPE("plain"); }
        PROF_BEGIN("range");
        PROF_END();
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    check_accounting(ev, "record_shapes");
    CHECK_EQ_INT(prof_events_count(ev), 3);
    if (CHECK_EQ_INT(prof_events_get(ev, 1, &e), PROF_OK)) CHECK_EQ_STR(e.input_shapes, "[]");
    perfetto_vs_json(ev, "no_shapes");
    {
        char *js = check_read_file(OUT "/no_shapes.json");
        if (CHECK(js != NULL)) {
            CHECK_EQ_INT(check_count_str(js, "\"Input Dims\""), 1);
            CHECK(strstr(js, "\"Input Dims\": [[3, 4], [4, 5]]") != NULL);
            free(js);
        }
    }
    prof_events_free(ev);
}

/* ----- threads: churn across sessions, caps, exact accounting ------------- */
#define CHURN_ITERS 20
static void *churn_worker(void *arg) {
    int i, n = (int)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, "w%d", n % 5);
    PROF_THREAD_NAME(name);
    for (i = 0; i < CHURN_ITERS; i++) {
        PROF_SCOPE("outer");
        { PROF_SCOPE("inner"); }
        PROF_BEGIN("range");
        { PROF_SCOPE_DYN(name); }
        PROF_END();
    }
    return NULL;
}

/* nthreads short-lived threads, each 4 * CHURN_ITERS scopes, under cap:
   every scope accounted for, never more recorded than the cap, the list
   holds exactly the recorded scopes, and its total is their count. */
static void churn_in(int nthreads, size_t cap, int one_at_a_time) {
    prof_config cfg;
    pthread_t t[128];
    prof_events *ev;
    prof_stats s;
    prof_avg tot;
    int i, started = 0;
    uint64_t want = (uint64_t)nthreads * 4 * CHURN_ITERS;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = cap;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    if (one_at_a_time) { /* each exits, its share's rest back, before the next starts */
        for (i = 0; i < nthreads && i < 128; i++)
            if (pthread_create(&t[i], NULL, churn_worker, (void *)(intptr_t)i) == 0) { pthread_join(t[i], NULL); started++; }
    } else {
        for (i = 0; i < nthreads && i < 128; i++) started += pthread_create(&t[i], NULL, churn_worker, (void *)(intptr_t)i) == 0;
        for (i = 0; i < started; i++) pthread_join(t[i], NULL);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(started, nthreads);
    s = prof_events_stats(ev);
    check_accounting(ev, "churn");
    CHECK_EQ_INT(s.scopes_entered, want);
    CHECK_EQ_INT(s.open_at_stop, 0);
    CHECK_EQ_INT(s.merged, 0);
    CHECK_EQ_INT(s.dropped, s.scopes_dropped); /* nothing but scopes */
    CHECK_EQ_INT(prof_events_count(ev), s.scopes_recorded);
    CHECK_EQ_INT(s.events, s.scopes_recorded);
    if (cap) CHECK(s.scopes_recorded <= cap);
    if (!cap || (cap >= want && (one_at_a_time || cap >= 2 * want))) CHECK_EQ_INT(s.scopes_recorded, want);
    else if (cap >= want) /* threads at once hold shares they may not use: drops can begin before the cap, by at most about a quarter of it (the manual) */
        CHECK_MSG(s.scopes_recorded + cap / 4 + (uint64_t)nthreads >= want, "churn: %llu of %llu recorded under a cap of %zu",
                  (unsigned long long)s.scopes_recorded, (unsigned long long)want, cap);
    else CHECK(s.scopes_dropped > 0);
    tot = prof_events_total_average(ev);
    CHECK_EQ_INT(tot.count, s.scopes_recorded);
    CHECK(s.threads >= 1 && s.threads <= (uint64_t)nthreads);
    prof_events_free(ev);
}

static void churn(int nthreads, size_t cap) { churn_in(nthreads, cap, 0); }

static void test_thread_churn(void) {
    churn(100, 0);
    churn(48, 1);
    churn(48, 7);
    churn(48, 1000);
    prof_shutdown(); /* and again after a shutdown */
    churn(48, 0);
    churn(32, (size_t)32 * 4 * CHURN_ITERS); /* exactly enough, threads at once: within the manual's bound */
    churn_in(32, (size_t)32 * 4 * CHURN_ITERS, 1); /* exactly enough, one thread at a time: every scope */
}

/* A cap of k events met inside a nest a { b { BEGIN c { d } END } }: the
   first min(k, 4) levels are kept, each the parent of the next, and the
   rest dropped with all they enclose. */
static void test_cap_mid_nesting(void) {
    static const char *const names[] = { "a", "b", "c", "d" };
    size_t k, i;
    for (k = 1; k <= 6; k++) {
        prof_config cfg;
        prof_events *ev;
        prof_stats s;
        size_t keep = k < 4 ? k : 4;
        memset(&cfg, 0, sizeof cfg);
        cfg.max_events = k;
        if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
        {
            PROF_SCOPE("a");
            {
                PROF_SCOPE("b");
                PROF_BEGIN("c");
                { PROF_SCOPE("d"); }
                PROF_END();
            }
        }
        ev = prof_stop();
        if (!CHECK(ev != NULL)) return;
        s = prof_events_stats(ev);
        check_accounting(ev, "cap mid-nesting");
        CHECK_EQ_INT(s.scopes_entered, 4);
        CHECK_EQ_INT(s.scopes_recorded, keep);
        CHECK_EQ_INT(s.scopes_dropped, 4 - keep);
        CHECK_EQ_INT(s.unbalanced_ends, 0);
        if (CHECK_EQ_INT(prof_events_count(ev), keep)) {
            for (i = 0; i < keep; i++) {
                prof_event e;
                if (!CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK)) continue;
                CHECK_EQ_STR(e.name, names[i]);
                CHECK_EQ_INT(e.parent, (int64_t)i - 1);
            }
        }
        prof_events_free(ev);
    }
}

/* Threads that exit with ranges open, unbalanced PROF_ENDs before and
   after a session: counted, never recorded, never carried over. */
static void *exit_open(void *arg) {
    (void)arg;
    PROF_BEGIN("never ended");
    PROF_BEGIN("nor this");
    { PROF_SCOPE("done"); }
    return NULL;
}
static void test_open_and_unbalanced(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats s;
    pthread_t t[8];
    int i;
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    PROF_END();
    for (i = 0; i < 8; i++) CHECK_EQ_INT(pthread_create(&t[i], NULL, exit_open, NULL), 0);
    for (i = 0; i < 8; i++) pthread_join(t[i], NULL);
    PROF_BEGIN("main open");
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    s = prof_events_stats(ev);
    check_accounting(ev, "open and unbalanced");
    CHECK_EQ_INT(s.scopes_entered, 8 * 3 + 1);
    CHECK_EQ_INT(s.scopes_recorded, 8);
    CHECK_EQ_INT(s.open_at_stop, 8 * 2 + 1);
    CHECK_EQ_INT(s.unbalanced_ends, 1);
    CHECK_EQ_INT(prof_events_count(ev), 8);
    prof_events_free(ev);
    PROF_END(); /* closes "main open" of the old session: nothing */
    PROF_END();
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    { PROF_SCOPE("x"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    s = prof_events_stats(ev);
    check_accounting(ev, "after");
    CHECK_EQ_INT(s.scopes_entered, 1);
    CHECK_EQ_INT(s.open_at_stop, 0);
    CHECK_EQ_INT(s.unbalanced_ends, 0);
    CHECK_EQ_INT(prof_events_count(ev), 1);
    prof_events_free(ev);
}

/* A count-then-get loop on a hand-built list with memory outside every
   event: prof_events_count answers with the [memory] rows the tree adds,
   so the loop sees every event once (it used to count 1, the tree then
   made 3, and index 0 became "[memory]": "op" was never seen). */
static void test_count_then_get(void) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    size_t n, i;
    int ops = 0, rows = 0;
    if (!CHECK(ev != NULL)) return;
    memset(&d, 0, sizeof d);
    prof_events_set_flags(ev, 1, 0);
    d.name = "op"; d.thread = 1; d.start_ns = 10000; d.end_ns = 20000;
    CHECK(prof_events_add(ev, &d) >= 0);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 5000, 64, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 30000, -64, PROF_DEVICE_CPU, 0), PROF_OK);
    n = prof_events_count(ev);
    CHECK_EQ_INT(n, 3);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (!CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK)) continue;
        if (strcmp(e.name, "op") == 0) ops++;
        else if (strcmp(e.name, "[memory]") == 0) rows++;
    }
    CHECK_EQ_INT(ops, 1);
    CHECK_EQ_INT(rows, 2);
    CHECK_EQ_INT(prof_events_count(ev), n); /* and stays */
    prof_events_free(ev);
}

/* An async range begun under the cap whose end comes past it: the end is
   dropped, the range is unmatched, and the warning names the cap as a
   cause (it used to blame the program's pairing alone). */
static void test_async_past_cap(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats s;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = 5;
    cfg.log = check_log;
    check_log_reset();
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    {
        PROF_SCOPE("a");
        {
            PROF_SCOPE("b");
            PROF_BEGIN("c");
            { PROF_SCOPE("d"); }
            PROF_END();
            PROF_ASYNC_BEGIN("as", 1);
        }
        PROF_ASYNC_END(1);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    s = prof_events_stats(ev);
    CHECK_EQ_INT(s.unmatched_async, 1);
    CHECK_EQ_INT(s.async_dropped, 1);
    CHECK(check_log_find(PROF_E_UNBALANCED, "because the cap (max_events) dropped", NULL));
    prof_events_free(ev);
    prof_set_log(check_log, NULL);
}

/* prof_memory_categories with names NULL counts, whatever max says (the
   declaration: "names may be NULL to count"); it wrote names[0] when max
   was not 0. */
static void test_memory_categories_count(void) {
    prof_config c;
    prof_events *ev;
    const char *names[4] = { NULL, NULL, NULL, NULL };
    static char a, b;
    memset(&c, 0, sizeof c);
    c.profile_memory = 1;
    c.log = check_log;
    if (!CHECK(prof_start(&c) == PROF_OK)) return;
    {
        PROF_SCOPE("alloc");
        prof_alloc_ex(&a, 64, PROF_DEVICE_CPU, 0, "weights");
        prof_alloc(&b, 32);
        prof_dealloc(&a);
        prof_dealloc(&b);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_memory_categories(ev, PROF_DEVICE_CPU, 0, NULL, 0), 2);
    CHECK_EQ_INT(prof_memory_categories(ev, PROF_DEVICE_CPU, 0, NULL, 4), 2);
    CHECK_EQ_INT(prof_memory_categories(ev, PROF_DEVICE_CPU, 0, names, 4), 2);
    CHECK(names[0] && strcmp(names[0], "unknown") == 0);
    CHECK(names[1] && strcmp(names[1], "weights") == 0);
    CHECK(names[2] == NULL);
    prof_events_free(ev);
}

/* ----- invalid UTF-8 in the table ---------------------------------------- */
/* A name from C is any bytes. The table prints text that is not valid
   UTF-8 as the exporters write it, one U+FFFD for each maximal invalid
   subpart (as Python's decode(errors='replace'): "\xe2\x82" cut short
   is one, "\xed\xa0\x80" a surrogate three), and counts each as one
   character: the table of such names is, byte for
   byte, the table of the same names with the U+FFFD already in them
   (which is what PyTorch prints for those). Once the bytes went through
   raw and widths counted lead bytes: a name of 61 stray continuation
   bytes was 0 wide and never cut, "bad\xff\xfe" 5 wide. */
#define FFFD "\xEF\xBF\xBD"
static prof_events *utf8_list(int replaced) {
    static const char *const raw_frames[] = { "f\xed\xa0\x80.c(1): g", "main\xc0.c(2): <module>" };
    static const char *const rep_frames[] = { "f" FFFD FFFD FFFD ".c(1): g", "main" FFFD ".c(2): <module>" };
    char cont[62], cont_rep[61 * 3 + 1];
    const char *names[4], *overloads[4];
    prof_events *ev = prof_events_create();
    int i;
    if (!ev) return NULL;
    memset(cont, 0x80, 61);
    cont[61] = 0;
    for (i = 0; i < 61; i++) memcpy(cont_rep + 3 * i, FFFD, 3);
    cont_rep[61 * 3] = 0;
    names[0] = replaced ? "bad" FFFD FFFD : "bad\xff\xfe";
    names[1] = replaced ? cont_rep : cont;
    names[2] = replaced ? "cut" FFFD "x" FFFD : "cut\xe2\x82x\xf0\x9f\x98"; /* sequences cut short: one each */
    names[3] = replaced ? "ok \xe2\x82\xac" FFFD "x" : "ok \xe2\x82\xac\xf8x"; /* a valid euro sign kept */
    overloads[0] = replaced ? "o" FFFD : "o\xc0";
    overloads[1] = overloads[2] = overloads[3] = "";
    for (i = 0; i < 4; i++) {
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = names[i];
        d.overload_name = overloads[i];
        d.thread = 1;
        d.start_ns = i * 1000;
        d.end_ns = i * 1000 + 500 + i;
        if (i == 1) {
            d.stack = replaced ? rep_frames : raw_frames;
            d.stack_depth = 2;
        }
        CHECK(prof_events_add(ev, &d) == i);
    }
    return ev;
}
static int valid_utf8(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 1 : prof__utf8_len(p);
        if (!n) return 0;
        p += n;
    }
    return 1;
}
static void test_table_invalid_utf8(void) {
    prof_events *raw = utf8_list(0), *rep = utf8_list(1);
    int k;
    if (!CHECK(raw && rep)) { prof_events_free(raw); prof_events_free(rep); return; }
    for (k = 0; k < 4; k++) {
        prof_table_options o;
        char *a, *b;
        memset(&o, 0, sizeof o);
        o.header = k == 3 ? "head\xff" : NULL;
        if (k == 1) { o.max_name_column_width = 6; o.max_src_column_width = 9; }
        if (k == 2) { o.max_name_column_width = -1; o.max_src_column_width = -1; }
        if (k == 3) o.sort_by = "cpu_time_total";
        a = prof_events_table(raw, &o);
        if (k == 3) o.header = "head" FFFD;
        b = prof_events_table(rep, &o);
        if (CHECK(a && b)) {
            CHECK_MSG(strcmp(a, b) == 0, "options %d: the table of invalid UTF-8 differs from its U+FFFD form:\n%s\n---\n%s", k, a, b);
            CHECK_MSG(valid_utf8(a), "options %d: the table is not valid UTF-8", k);
        }
        if (k == 0 && a) /* 52 characters and "...", in a 55-wide column */
            CHECK(strstr(a, "\n" FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD
                               FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD
                               "...  ") != NULL);
        prof_free_string(a);
        prof_free_string(b);
    }
    {   /* key_averages' table: the same rows */
        prof_averages *x = prof_key_averages(raw, NULL), *y = prof_key_averages(rep, NULL);
        char *a = x ? prof_averages_table(x, NULL) : NULL, *b = y ? prof_averages_table(y, NULL) : NULL;
        CHECK(a && b && strcmp(a, b) == 0 && valid_utf8(a));
        prof_free_string(a);
        prof_free_string(b);
        prof_averages_free(x);
        prof_averages_free(y);
    }
    prof_events_free(raw);
    prof_events_free(rep);
}

/* Counter samples that are not finite: the JSON writes NaN and the
   infinities as null, the Perfetto file the doubles themselves; the
   checker takes them as the same sample (it raised TypeError on the
   null: found by the s23-E API fuzzer). */
static void test_perfetto_counter_nonfinite(void) {
    prof_config cfg;
    prof_events *ev;
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    {
        PROF_SCOPE("samples"); /* (the checker aligns the two files' times on slices) */
        PROF_COUNTER("q", 1.5);
        PROF_COUNTER("q", NAN);
        PROF_COUNTER("q", INFINITY);
        PROF_COUNTER("q", -INFINITY);
        PROF_COUNTER("q", 2.0);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    perfetto_vs_json(ev, "counter_nonfinite");
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    test_thread_churn();
    test_cap_mid_nesting();
    test_open_and_unbalanced();
    test_count_then_get();
    test_async_past_cap();
    test_memory_categories_count();
    test_table_invalid_utf8();
    if (have_tools()) {
        test_perfetto_memory_rows();
        test_perfetto_no_shapes();
        test_perfetto_counter_nonfinite();
    }
    else printf("test_hostile: python3 or protoc missing: the Perfetto checks are skipped\n");
    prof_shutdown();
    return check_report();
}
