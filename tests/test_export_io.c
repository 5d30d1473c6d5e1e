/* The exporters' writer against hostile outputs: a pipe whose reader is
   gone or a file past RLIMIT_FSIZE (every exporter, small and large
   traces: no SIGPIPE or SIGXFSZ may reach the
   host, the export fails with PROF_E_IO and says why), error messages for
   paths of any length (the reason is kept), and the nesting of the JSON
   trace's ts/dur as a parser reads them (doubles).

   Files go to build/export_io/ (cwd = repo root). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#define OUT "build/export_io"


/* n events on two threads, each with a two-frame stack (the memory
   timeline of such a list is short, but any byte into the pipe fails). */
static prof_events *build(size_t n) {
    prof_events *ev = prof_events_create();
    size_t i;
    if (!ev) return NULL;
    for (i = 0; i < n; i++) {
        prof_event_desc d;
        const char *st[2];
        char name[48];
        snprintf(name, sizeof name, "op %u with a longer name", (unsigned)(i % 97));
        st[0] = name;
        st[1] = "root frame of the stack";
        memset(&d, 0, sizeof d);
        d.name = name;
        d.thread = 1 + i % 2;
        d.start_ns = (int64_t)i * 3000;
        d.end_ns = d.start_ns + 2000 + (int64_t)(i % 7) * 100;
        d.stack = st;
        d.stack_depth = 2;
        if (!CHECK(prof_events_add(ev, &d) >= 0)) { prof_events_free(ev); return NULL; }
    }
    return ev;
}

static int sigpipe_pending(void) {
    sigset_t p;
    return sigpending(&p) == 0 && sigismember(&p, SIGPIPE) == 1;
}

/* Exporting into a pipe whose reader closed: PROF_E_IO with EPIPE's text,
   the host alive (SIGPIPE's default action would end this program), no
   SIGPIPE left pending, the thread's signal mask as it was. */
static void test_closed_pipe(void) {
    static const size_t sizes[] = { 50, 60000 }; /* one buffer; past the writer thread's start */
    size_t s, k;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        prof_events *ev = build(sizes[s]);
        if (!ev) return;
        for (k = 0; k < CHECK_N_EXPORTERS; k++) {
            int fds[2];
            char path[64];
            prof_result r;
            sigset_t before, after;
            if (!CHECK(pipe(fds) == 0)) break;
            close(fds[0]);
            snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
            pthread_sigmask(SIG_SETMASK, NULL, &before);
            check_log_reset();
            r = CHECK_EXPORTERS[k].fn(ev, path);
            pthread_sigmask(SIG_SETMASK, NULL, &after);
            CHECK_MSG(r == PROF_E_IO, "%s into a closed pipe (%zu events): %d (%s)", CHECK_EXPORTERS[k].name, sizes[s], (int)r, prof_result_string(r));
            CHECK_MSG(check_log_has(PROF_E_IO, strerror(EPIPE)), "%s: no message with '%s' (last error: %s)", CHECK_EXPORTERS[k].name, strerror(EPIPE), prof_last_error());
            CHECK_MSG(!sigpipe_pending(), "%s left a SIGPIPE pending", CHECK_EXPORTERS[k].name);
            CHECK_MSG(sigismember(&before, SIGPIPE) == sigismember(&after, SIGPIPE), "%s changed the signal mask", CHECK_EXPORTERS[k].name);
            close(fds[1]);
        }
        prof_events_free(ev);
    }
    /* a SIGPIPE the host has pending (blocked) before the export is its
       own: the export must not take it away */
    {
        sigset_t set, old;
        int fds[2];
        char path[64];
        prof_events *ev = build(50);
        sigemptyset(&set);
        sigaddset(&set, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &set, &old);
        raise(SIGPIPE);
        if (ev && CHECK(pipe(fds) == 0)) {
            close(fds[0]);
            snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
            CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
            CHECK_MSG(sigpipe_pending(), "the host's pending SIGPIPE was taken");
            close(fds[1]);
        }
        {
            struct timespec zero = { 0, 0 };
            while (sigtimedwait(&set, NULL, &zero) == SIGPIPE) {}
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        prof_events_free(ev);
    }
}

/* A path of 4000 bytes in a directory that does not exist: the message
   still ends with the reason (strerror(ENOENT)), in the log and in
   prof_last_error. */
static void test_long_path(void) {
    size_t k, n = 4000;
    char *path = (char *)malloc(n + 1);
    prof_events *ev = build(10);
    const char *reason = strerror(ENOENT);
    if (!CHECK(path && ev)) { free(path); prof_events_free(ev); return; }
    memcpy(path, OUT "/no/such/dir/", sizeof(OUT "/no/such/dir/") - 1);
    for (k = sizeof(OUT "/no/such/dir/") - 1; k < n; k++) path[k] = (char)('a' + k % 26);
    path[n] = 0;
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        check_log_reset();
        CHECK_EQ_INT(CHECK_EXPORTERS[k].fn(ev, path), PROF_E_IO);
        CHECK_MSG(check_log_has(PROF_E_IO, reason), "%s: the log lost the reason '%s'", CHECK_EXPORTERS[k].name, reason);
        CHECK_MSG(strstr(prof_last_error(), reason) != NULL, "%s: prof_last_error lost the reason: %s", CHECK_EXPORTERS[k].name, prof_last_error());
        CHECK_MSG(strncmp(prof_last_error(), CHECK_EXPORTERS[k].name, strlen(CHECK_EXPORTERS[k].name)) == 0, "%s: the message lost its start: %.60s", CHECK_EXPORTERS[k].name, prof_last_error());
        CHECK(strlen(prof_last_error()) < 512);
    }
    free(path);
    prof_events_free(ev);
}

/* ----- JSON nesting in doubles ------------------------------------------ */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(uint64_t n) { /* 0..n-1 */
    g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17;
    return n ? g_rng % n : 0;
}
static const char *const DEPTH_NAMES[] = { "d0", "d1", "d2", "d3", "d4", "d5", "d6", "z" }; /* z: zero-length */
#define MAX_DEPTH 6
#define N_LANES 6
static size_t g_name_count[N_LANES][MAX_DEPTH + 2];
static size_t g_added;

/* [start, end) and, below it, children that touch each other, start with
   it or end with it (or both: wrappers of the same span), on a 10 ns grid
   (a TSC that moves in 10 ns steps) or on any ns. Events last MIN_LEN ns
   at least: a chain of n events that end together is written to end 1 ns
   apart, which needs n ns (a scope costs more than that to record). */
#define MIN_LEN 10
static void gen(prof_events *ev, int t, uint64_t thread, int64_t start, int64_t end, int depth, int64_t grid) {
    prof_event_desc d;
    int64_t at, span = end - start;
    memset(&d, 0, sizeof d);
    d.name = DEPTH_NAMES[depth];
    d.thread = thread;
    d.start_ns = start;
    d.end_ns = end;
    if (!CHECK(prof_events_add(ev, &d) >= 0)) return;
    g_added++;
    if (depth == MAX_DEPTH || span < 4 * MIN_LEN) return;
    if (rnd(5) == 0) { gen(ev, t, thread, start, end, depth + 1, grid); return; } /* a wrapper of the same span */
    at = rnd(3) ? start : start + grid * (int64_t)(1 + rnd(3));
    while (at + grid <= end) {
        int64_t len = grid * (int64_t)(1 + rnd((uint64_t)(span / grid)));
        if (len < MIN_LEN) len = MIN_LEN;
        if (at + len > end || rnd(4) == 0) len = end - at; /* ends with the parent */
        if (len < MIN_LEN) break;
        gen(ev, t, thread, at, at + len, depth + 1, grid);
        at += len;
        if (rnd(6) == 0) at += grid; /* a gap */
    }
    if (rnd(4) == 0) { /* a zero-length event (a coarse clock's empty scope) on a grid point of the span, its ends included */
        at = start + grid * (int64_t)rnd((uint64_t)(span / grid) + 1);
        d.name = DEPTH_NAMES[MAX_DEPTH + 1];
        d.start_ns = d.end_ns = at;
        if (CHECK(prof_events_add(ev, &d) >= 0)) g_added++;
    }
}

static const struct { int64_t base, grid; } LANES[N_LANES] = {
    { 1000, 10 },                      /* near the trace's start */
    { 1187584249, 10 },                /* the example magnitude, 10 ns steps */
    { 3600000000003, 1 },              /* an hour in, any ns */
    { 86400000000000 * 3 + 7, 10 },    /* three days in: past the exact range */
    { 1100000000000003, 1 },           /* from 2^40 us (prof.h's far range, ends written as their bounds) to 2^50 ns */
    { 1700000000123456789, 1 },        /* Unix time: ulps of 256 ns */
};

/* Writes OUT/<name>.json from lanes [first, last), its truth (each event's
   ns and parent, by index) checked by tests/export/check_nesting.py, and
   its expectations for the real consumers (tests/js: DevTools' engine
   keeps every event, speedscope's importer warns of nothing). */
static void touching_trace(const char *name, size_t first, size_t last) {
    prof_events *ev = prof_events_create();
    FILE *f;
    size_t i, t, n;
    char path[256], cmd[600];
    if (!CHECK(ev != NULL)) return;
    memset(g_name_count, 0, sizeof g_name_count);
    g_added = 0;
    for (t = first; t < last; t++) {
        int64_t at = LANES[t].base;
        int k;
        for (k = 0; k < 40; k++) {
            int64_t len = LANES[t].grid * (int64_t)(5 + rnd(20000));
            gen(ev, (int)t, 7001 + t, at, at + len, 0, LANES[t].grid);
            at += len; /* the next root touches this one */
            if (rnd(5) == 0) at += LANES[t].grid * (int64_t)(1 + rnd(3));
        }
    }
    snprintf(path, sizeof path, OUT "/%s.json", name);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    n = prof_events_count(ev);
    /* every event added is in the list or merged into its same-name parent
       (a zero-length z in a z at the same ns); the viewers' counts are the
       list's */
    CHECK_EQ_INT(n + prof_events_stats(ev).merged, g_added);
    snprintf(path, sizeof path, OUT "/%s.truth", name);
    f = fopen(path, "w");
    if (CHECK(f != NULL)) {
        for (i = 0; i < n; i++) {
            prof_event e;
            int k;
            if (!CHECK(prof_events_get(ev, i, &e) == PROF_OK)) break;
            fprintf(f, "%zu %llu %lld %lld %lld\n", i, (unsigned long long)e.thread, (long long)e.start_ns, (long long)e.end_ns, (long long)e.parent);
            for (k = 0; k <= MAX_DEPTH + 1; k++)
                if (strcmp(e.name, DEPTH_NAMES[k]) == 0 && CHECK(e.thread >= 7001 + first && e.thread < 7001 + last)) g_name_count[e.thread - 7001][k]++;
        }
        fclose(f);
    }
    snprintf(path, sizeof path, OUT "/%s.expect.json", name);
    f = fopen(path, "w");
    if (CHECK(f != NULL)) {
        fprintf(f, "{\"threads\": {");
        for (t = first; t < last; t++) {
            int k, first_name = 1;
            fprintf(f, "%s\n  \"%zu\": {\"scopes\": {", t > first ? "," : "", 7001 + t);
            for (k = 0; k <= MAX_DEPTH + 1; k++) {
                if (!g_name_count[t][k]) continue;
                fprintf(f, "%s\"%s\": %zu", first_name ? "" : ", ", DEPTH_NAMES[k], g_name_count[t][k]);
                first_name = 0;
            }
            fprintf(f, "}}");
        }
        fprintf(f, "\n}, \"exact_threads\": true}\n");
        fclose(f);
    }
    prof_events_free(ev);
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "python3 tests/export/check_nesting.py " OUT "/%s.json " OUT "/%s.truth", name, name);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
}

/* touch.json: lanes a trace has (times from the session's start, up to
   days); touch_far.json: from 2^40 us (12.7 days; the checker took 2^50 ns
   for prof.h's bound and failed the ends written there) and Unix-time
   nanoseconds, where only DevTools' arithmetic (ts + dur) can be kept
   exact, not speedscope's. */
static void test_touching(void) {
    touching_trace("touch", 0, N_LANES - 2);
    touching_trace("touch_far", N_LANES - 2, N_LANES);
}

/* An async event on a device (hand-built: CUPTI's kind) is still an "X"
   on its stream, so it takes part in the touching rule: kernA touches
   async B and B touches kernC, each one nanosecond shorter. Leaving every
   async event out of that pass (they became "b"/"e" pairs on the CPU only)
   wrote 10.000 for both. */
static void dev_async_add(prof_events *ev, const char *name, int64_t s, int64_t e, int async) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = s;
    d.end_ns = e;
    d.device_type = PROF_DEVICE_CUDA;
    d.device_resource_id = 7;
    d.set = PROF_EVENT_RESOURCE_ID | (async ? PROF_EVENT_ASYNC : 0);
    CHECK(prof_events_add(ev, &d) >= 0);
}
static void test_device_async_touch(void) {
    static const char *const want[3][2] = {{"\"kernA\"", "\"dur\": 9.999,"}, {"\"asyncB\"", "\"dur\": 9.999,"}, {"\"kernC\"", "\"dur\": 10.000,"}};
    const int64_t T = 1000000000;
    prof_events *ev = prof_events_create();
    char line[4096];
    int found[3] = {0, 0, 0}, k;
    FILE *f;
    if (!CHECK(ev != NULL)) return;
    dev_async_add(ev, "kernA", T, T + 10000, 0);
    dev_async_add(ev, "asyncB", T + 10000, T + 20000, 1);
    dev_async_add(ev, "kernC", T + 20000, T + 30000, 0);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/dev_async.json"), PROF_OK);
    prof_events_free(ev);
    f = fopen(OUT "/dev_async.json", "r");
    if (!CHECK(f != NULL)) return;
    while (fgets(line, sizeof line, f))
        for (k = 0; k < 3; k++)
            if (strstr(line, want[k][0])) {
                found[k]++;
                CHECK_MSG(strstr(line, "\"ph\": \"X\"") && strstr(line, want[k][1]), "%s: want %s in %s", want[k][0], want[k][1], line);
            }
    fclose(f);
    for (k = 0; k < 3; k++) CHECK_MSG(found[k] == 1, "%s written %d times", want[k][0], found[k]);
}

/* Marks in a recorded session: OUT/marks.json, with the instants DevTools'
   trace engine must keep (tests/js). */
static void test_marks(void) {
    prof_config c;
    prof_events *ev;
    FILE *f;
    memset(&c, 0, sizeof c);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE("outer");
        PROF_MARK("mark a");
        { PROF_SCOPE("inner"); PROF_MARK("mark b"); }
        PROF_MARK("mark a");
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/marks.json"), PROF_OK);
    f = fopen(OUT "/marks.expect.json", "w");
    if (CHECK(f != NULL)) {
        prof_event e;
        CHECK(prof_events_get(ev, 0, &e) == PROF_OK);
        fprintf(f, "{\"threads\": {\"%llu\": {\"scopes\": {\"outer\": 1, \"inner\": 1}, \"instants\": {\"mark a\": 2, \"mark b\": 1}}}, \"exact_threads\": false}\n",
                (unsigned long long)e.thread);
        fclose(f);
    }
    prof_events_free(ev);
}

/* Async ranges that do not nest in the thread's scopes: one begins before
   a scope and ends inside it, one begins inside a scope and ends after it.
   OUT/async.json: DevTools' engine keeps every scope with its parent and
   speedscope warns of nothing (tests/js; as "X" events the ranges overlapped
   the scopes and the engine dropped them); check_perfetto.py pairs each
   "b" with its "e" and finds the range on an async lane of the Perfetto
   trace of the same list. */
static void async_pair(prof_events *ev, const char *name);
static void test_async_overlap(void) {
    prof_config c;
    prof_events *ev;
    FILE *f;
    size_t i, n, b = 0, e_ = 0;
    memset(&c, 0, sizeof c);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    PROF_ASYNC_BEGIN("straddles begin", 1);
    { PROF_SCOPE("first"); }
    {
        PROF_SCOPE("second");
        { PROF_SCOPE("inner"); }
        PROF_ASYNC_END(1);
        PROF_ASYNC_BEGIN("straddles end", 2);
        { PROF_SCOPE("inner"); }
    }
    { PROF_SCOPE("third"); }
    PROF_ASYNC_END(2);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    n = prof_events_count(ev);
    CHECK_EQ_INT(n, 7);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/async.json"), PROF_OK);
    f = fopen(OUT "/async.expect.json", "w");
    if (CHECK(f != NULL)) {
        prof_event e;
        CHECK(prof_events_get(ev, 0, &e) == PROF_OK);
        fprintf(f, "{\"threads\": {\"%llu\": {\"scopes\": {\"first\": 1, \"second\": 1, \"inner\": 2, \"third\": 1}, "
                   "\"parents\": {\"first\": null, \"second\": null, \"inner\": \"second\", \"third\": null}}}, \"exact_threads\": true, "
                   "\"async\": {\"straddles begin\": 1, \"straddles end\": 1}}\n",
                (unsigned long long)e.thread);
        fclose(f);
    }
    f = fopen(OUT "/async.json", "r");
    if (CHECK(f != NULL)) { /* each range a "b" and an "e", no "X" */
        static const char PH_B[] = "  {\"ph\": \"b\", ", PH_E[] = "  {\"ph\": \"e\", ";
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strstr(line, "\"name\": \"straddles ")) {
                int is_b = strncmp(line, PH_B, sizeof PH_B - 1) == 0, is_e = strncmp(line, PH_E, sizeof PH_E - 1) == 0;
                CHECK_MSG(is_b || is_e, "not a \"b\" or \"e\": %s", line);
                b += (size_t)is_b;
                e_ += (size_t)is_e;
            }
        }
        fclose(f);
        CHECK_EQ_INT(b, 2);
        CHECK_EQ_INT(e_, 2);
    }
    for (i = 0; i < n; i++) {
        prof_event e;
        if (CHECK(prof_events_get(ev, i, &e) == PROF_OK) && e.is_async) CHECK_EQ_INT(e.parent, -1);
    }
    async_pair(ev, "async_pf");
    prof_events_free(ev);
}

/* A hand-built list whose events overlap on one thread without nesting:
   "b" begins inside "a" and ends after it, "d" (b's child) straddles a's
   end, "s2" begins inside its sibling "s1" and ends after it. As "X"
   events DevTools' trace engine dropped the later of each pair; now each
   is a "b"/"e" pair (tests/js: OUT/overlap.json keeps every event, the
   pairs as measures, speedscope warns of nothing), those that nest stay
   "X" with their parents, and the Perfetto trace of the list puts the
   same events on overlapping lanes (check_perfetto.py). */
/* Kernels nested on one stream (a hand-built list's) that end together
   where the next one begins: each was trimmed as if alone, so "inner"
   ended after "outer" in doubles and DevTools' trace engine dropped it
   (tests/js: OUT/devnest.json keeps every kernel, each in its parent). */
static void test_device_nest_hand(void) {
    static const struct { const char *name; int64_t start, end; } ks[] = {
        { "outer", 1000, 1030 }, { "inner", 1010, 1030 }, { "leaf", 1029, 1030 }, { "next", 1030, 1040 },
    };
    prof_events *ev = prof_events_create();
    FILE *f;
    size_t k;
    if (!CHECK(ev != NULL)) return;
    for (k = 0; k < sizeof ks / sizeof *ks; k++) check_add_kernel(ev, ks[k].name, 0, 9, ks[k].start, ks[k].end);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/devnest.json"), PROF_OK);
    f = fopen(OUT "/devnest.expect.json", "w");
    if (CHECK(f != NULL)) {
        fprintf(f, "{\"threads\": {\"9\": {\"scopes\": {\"outer\": 1, \"inner\": 1, \"leaf\": 1, \"next\": 1}, "
                   "\"parents\": {\"outer\": null, \"inner\": \"outer\", \"leaf\": \"inner\", \"next\": null}}}, \"exact_threads\": false}\n");
        fclose(f);
    }
    prof_events_free(ev);
}

static void overlap_pair(prof_events *ev, const char *name);
static void test_overlap_hand(void) {
    static const struct { const char *name; int64_t start, end; } evs[] = {
        { "a", 1000, 5000 }, { "b", 3000, 8000 }, { "c", 3500, 4000 }, { "d", 4500, 6000 },
        { "e", 9000, 10000 }, { "f", 9000, 9500 }, { "g", 9500, 10000 },
        { "p", 20000, 30000 }, { "s1", 21000, 25000 }, { "s2", 24000, 26000 },
    };
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    FILE *f;
    size_t k, pairs = 0;
    char line[512];
    if (!CHECK(ev != NULL)) return;
    memset(&d, 0, sizeof d);
    d.thread = 7;
    for (k = 0; k < sizeof evs / sizeof *evs; k++) {
        d.name = evs[k].name;
        d.start_ns = evs[k].start;
        d.end_ns = evs[k].end;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/overlap.json"), PROF_OK);
    f = fopen(OUT "/overlap.expect.json", "w");
    if (CHECK(f != NULL)) {
        fprintf(f, "{\"threads\": {\"7\": {\"scopes\": {\"a\": 1, \"c\": 1, \"e\": 1, \"f\": 1, \"g\": 1, \"p\": 1, \"s1\": 1}, "
                   "\"parents\": {\"a\": null, \"c\": \"a\", \"e\": null, \"f\": \"e\", \"g\": \"e\", \"p\": null, \"s1\": \"p\"}}}, "
                   "\"exact_threads\": true, \"async\": {\"b\": 1, \"d\": 1, \"s2\": 1}}\n");
        fclose(f);
    }
    f = fopen(OUT "/overlap.json", "r");
    if (CHECK(f != NULL)) { /* b, d and s2 each a "b" and an "e"; no other pair */
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "  {\"ph\": \"b\", ", 14) && strncmp(line, "  {\"ph\": \"e\", ", 14)) continue;
            pairs++;
            CHECK_MSG(strstr(line, "\"name\": \"b\"") || strstr(line, "\"name\": \"d\"") || strstr(line, "\"name\": \"s2\""), "an unexpected pair: %s", line);
        }
        fclose(f);
        CHECK_EQ_INT(pairs, 6);
    }
    overlap_pair(ev, "overlap_pf");
    prof_events_free(ev);
}

/* ----- Perfetto ------------------------------------------------------------ */

static const char *const HOSTILE[] = {
    "quote\" back\\slash /solidus </script>",
    "ctl \x01\x02\x1f\x7f\t\n\r end",
    "lone continuation \x80 and \xbf\xbf end",
    "overlong \xc0\xaf \xe0\x80\xaf end",
    "surrogates \xed\xa0\x80 end",
    "F5..FF \xf5\xff end",
    "cut at the end \xf0\x9f\x98",
    "valid caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80",
    "",
};
#define N_HOSTILE (sizeof HOSTILE / sizeof HOSTILE[0])

/* Exports ev as OUT/<name>.json and OUT/<name>.pftrace and has
   tests/export/check_perfetto.py compare them; and as OUT/<name>.pb
   (pprof) and OUT/<name>.stacks (merged), compared by check_pprof.py. */
static void perfetto_pair(prof_events *ev, const char *name) {
    char js[256], pf[256], cmd[700];
    snprintf(js, sizeof js, OUT "/%s.json", name);
    snprintf(pf, sizeof pf, OUT "/%s.pftrace", name);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, js), PROF_OK);
    CHECK_MSG(prof_export_perfetto(ev, pf) == PROF_OK, "prof_export_perfetto(%s): %s", pf, prof_last_error());
    snprintf(cmd, sizeof cmd, "python3 tests/export/check_perfetto.py %s %s", js, pf);
    fflush(stdout);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
    /* the pprof profile of the same list, against its merged folded stacks */
    snprintf(js, sizeof js, OUT "/%s.stacks", name);
    snprintf(pf, sizeof pf, OUT "/%s.pb", name);
    CHECK_EQ_INT(prof_export_stacks_merged(ev, js, "self_cpu_time_total"), PROF_OK);
    CHECK_MSG(prof_export_pprof(ev, pf, "self_cpu_time_total") == PROF_OK, "prof_export_pprof(%s): %s", pf, prof_last_error());
    snprintf(cmd, sizeof cmd, "python3 tests/export/check_pprof.py %s %s", pf, js);
    fflush(stdout);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
}

static void async_pair(prof_events *ev, const char *name) { perfetto_pair(ev, name); }
static void overlap_pair(prof_events *ev, const char *name) { perfetto_pair(ev, name); }

/* A hand-built list: hostile names in every string (names, overload names,
   stacks, shapes), events that nest and touch, async ranges, device events
   on two streams, a 1 MB name. */
static void test_perfetto_hand(void) {
    prof_events *ev = prof_events_create();
    size_t k;
    int64_t at = 1000;
    char *big = (char *)malloc((1 << 20) + 1);
    if (!CHECK(ev != NULL && big != NULL)) { free(big); prof_events_free(ev); return; }
    memset(big, 'b', 1 << 20);
    memcpy(big, "big \xff\"\\", 8);
    big[1 << 20] = 0;
    for (k = 0; k < N_HOSTILE + 1; k++) {
        prof_event_desc d;
        const char *st[3];
        static const int ndims[] = { 2, 0 };
        static const int64_t dims[] = { 2, 3 };
        const char *nm = k < N_HOSTILE ? HOSTILE[k] : big;
        memset(&d, 0, sizeof d);
        st[0] = nm;
        st[1] = HOSTILE[(k + 1) % N_HOSTILE];
        st[2] = "root \\ frame";
        d.name = nm;
        d.overload_name = HOSTILE[(k + 2) % N_HOSTILE];
        d.thread = 11 + k % 2;
        d.start_ns = at;
        d.end_ns = at + 5000;
        d.stack = st;
        d.stack_depth = 3;
        d.set = PROF_EVENT_SHAPES;
        d.input_shapes.n_inputs = 2;
        d.input_shapes.ndims = ndims;
        d.input_shapes.dims = dims;
        d.flops = (int64_t)k * 1000;
        CHECK(prof_events_add(ev, &d) >= 0);
        /* a child that ends with it, and one touching that */
        d.name = "child";
        d.overload_name = NULL;
        d.set = 0;
        d.stack_depth = 0;
        d.start_ns = at + 4000;
        d.end_ns = at + 5000;
        CHECK(prof_events_add(ev, &d) >= 0);
        d.start_ns = at + 3500;
        d.end_ns = at + 4000;
        CHECK(prof_events_add(ev, &d) >= 0);
        /* an async range that overlaps the next event */
        d.name = "async range";
        d.set = PROF_EVENT_ASYNC;
        d.start_ns = at + 2000;
        d.end_ns = at + 9000;
        CHECK(prof_events_add(ev, &d) >= 0);
        /* a device event */
        d.name = k % 2 ? "kernel \"k\"" : HOSTILE[k];
        d.set = PROF_EVENT_RESOURCE_ID;
        d.device_type = PROF_DEVICE_CUDA;
        d.device_index = (int)(k % 2);
        d.device_resource_id = 7 + (int64_t)(k % 3);
        d.start_ns = at + 3000;
        d.end_ns = at + 3500;
        CHECK(prof_events_add(ev, &d) >= 0);
        at += 5000; /* the next one touches */
    }
    perfetto_pair(ev, "pf_hand");
    prof_events_free(ev);
    free(big);
}

/* Two events of one name that begin at one ns on a thread, one of them
   empty and listed first: a scope with two empty children at its start,
   one of its own name (a coarse clock: an empty scope reads one tick
   twice; with a sibling, _remove_dup_nodes keeps it). check_perfetto.py paired the
   JSON's empty one with the longer slice (the first within 16 ns of its
   end) and then failed the longer one. */
static void test_perfetto_zero_twins(void) {
    prof_events *ev = prof_events_create();
    int i;
    if (!CHECK(ev != NULL)) return;
    for (i = 0; i < 4; i++) {
        const int64_t b = 1000 + 100 * i;
        check_add_event(ev, "m", 21, b, b + 22);
        check_add_event(ev, "n", 21, b + 22, b + 22); /* listed first: the JSON's first "n" at b + 22 */
        check_add_event(ev, "x", 21, b + 22, b + 22);
        check_add_event(ev, "n", 21, b + 22, b + 35 + i);
    }
    CHECK_EQ_INT(prof_events_count(ev), 16);
    perfetto_pair(ev, "pf_zero_twins");
    prof_events_free(ev);
}

/* What trace_processor's importer does with a file that protoc reads
   fine (check_perfetto.py replays it the importer's way): steps named
   apart from their site (ProfilerStep#N: name_iid would win over the
   name), recursion 1100 deep (a track keeps 512 open slices; the begins
   past that were dropped and their ends closed the wrong slices), one
   counter from two call sites and two threads (one track per name), a
   metadata key with '.' (annotation names lose it; trace attributes keep
   it), two threads (their order, their descriptors' sequences), twelve
   async ranges at once (their lanes' order in the UI), marks in the
   recursion (pf_mark_at), twice on the main thread and once on another. */
static void pf_recurse_b(int n);
/* A mark inside the scope 511 levels down (the 512th open on the
   thread's track) went on that track as the 513th slice, which the
   importer drops: it goes on the track of levels 512-1023. Marks at
   levels 510, 511, 512 and 1000 (n counts down from 1100). */
static void pf_mark_at(int n) {
    if (n == 1100 - 510) PROF_MARK("mark 510");
    if (n == 1100 - 511) PROF_MARK("mark 511");
    if (n == 1100 - 512) PROF_MARK("mark 512");
    if (n == 1100 - 1000) PROF_MARK("mark 1000");
}
static void pf_recurse_a(int n) { /* two names: _remove_dup_nodes folds a child named as its parent */
    PROF_SCOPE("recurse a");
    pf_mark_at(n);
    if (n > 0) pf_recurse_b(n - 1);
}
static void pf_recurse_b(int n) {
    PROF_SCOPE("recurse b");
    pf_mark_at(n);
    if (n > 0) pf_recurse_a(n - 1);
}
static void *pf_worker(void *arg) {
    (void)arg;
    prof_set_thread_name("worker");
    PROF_SCOPE("work");
    PROF_COUNTER("loss", 7.0);
    pf_recurse_a(1100); /* its marks: one more thread with a full track */
    return NULL;
}
static void test_perfetto_importer(void) {
    prof_config c;
    prof_events *ev;
    pthread_t th;
    int i;
    memset(&c, 0, sizeof c);
    c.schedule.active = 100;
    c.with_stack = PROF_STACK_SCOPES;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    prof_set_thread_name("main");
    prof_add_metadata("git.sha[0]", "abc");
    CHECK_EQ_INT(prof_add_metadata_json("json string", "\"a \\\"quoted\\\" value\""), PROF_OK); /* the attribute holds its JSON */
    for (i = 0; i < 3; i++) {
        PROF_SCOPE("step body");
        PROF_COUNTER("loss", 1.0 + i);
        CHECK_EQ_INT(prof_step(), PROF_OK);
    }
    pf_recurse_a(1100);
    CHECK(pthread_create(&th, NULL, pf_worker, NULL) == 0); /* its full stretch between the main thread's two */
    pthread_join(th, NULL);
    pf_recurse_a(1100); /* a second time: two full stretches on one thread */
    /* 12 async ranges open at once: 12 lanes, "async" beside the thread's
       track and "async (2)" to "(12)" under it, in their numbers' order
       ("async (10)" after "(9)") */
    for (i = 1; i <= 12; i++) PROF_ASYNC_BEGIN("async", (uint64_t)i);
    for (i = 1; i <= 12; i++) PROF_ASYNC_END((uint64_t)i);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK(prof_events_count(ev) > 1100);
    perfetto_pair(ev, "pf_importer");
    prof_events_free(ev);
}

/* Async ranges that overlap: random ones, each on the first lane free at
   its start (check_perfetto.py: every lane a well-formed stack, the lanes
   in order); then 400000 open at once, whose lanes the writer once found
   by a scan from the first lane per event (quadratic: about 25 s here,
   hours for a few million), now in a few steps each. */
static void test_perfetto_many_lanes(void) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    long n = check_scale(400000, 10), i;
    unsigned r = 12345;
    clock_t c0;
    double cpu;
    if (!CHECK(ev != NULL)) return;
    memset(&d, 0, sizeof d);
    d.name = "async";
    d.thread = 5;
    d.set = PROF_EVENT_ASYNC;
    for (i = 0; i < 3000; i++) {
        r = r * 1103515245u + 12345u;
        d.start_ns = 1000 + (int64_t)(r >> 8) % 1000000;
        r = r * 1103515245u + 12345u;
        d.end_ns = d.start_ns + 1 + (int64_t)(r >> 8) % (i % 2 ? 50000 : 500);
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    d.name = "step";
    d.set = 0;
    d.start_ns = 500;
    d.end_ns = 2000000;
    CHECK(prof_events_add(ev, &d) >= 0);
    perfetto_pair(ev, "pf_lanes");
    prof_events_free(ev);
    if (!CHECK((ev = prof_events_create()) != NULL)) return;
    d.name = "open";
    d.set = PROF_EVENT_ASYNC;
    for (i = 0; i < n; i++) {
        d.start_ns = 1000 + i;
        d.end_ns = 1000000000 + i;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    /* 300 kernels at once on stream 0x7fffff: its lanes' ranks (stream <<
       8, plus the lane) passed INT_MAX, signed overflow (UBSan) */
    d.name = "kernel";
    d.set = PROF_EVENT_RESOURCE_ID;
    d.device_type = PROF_DEVICE_CUDA;
    d.device_resource_id = 0x7fffff;
    for (i = 0; i < 300; i++) {
        d.start_ns = 2000 + i;
        d.end_ns = 900000000 + i;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    c0 = clock();
    CHECK_EQ_INT(prof_export_perfetto(ev, OUT "/pf_many_lanes.pftrace"), PROF_OK);
    cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    CHECK_MSG(cpu < 4.0, "%ld async ranges open at once: prof_export_perfetto took %.1f s of CPU", n, cpu);
    prof_events_free(ev);
}

/* More than 256 kernels at once on one stream, beside other streams and
   devices: the lanes of a stream were ranked stream << 8 plus the lane, so
   stream 0's lane 257 took stream 1's rank and the UI's order of the
   GPU's tracks was undefined (check_perfetto.py: no two child tracks share
   a rank, each parent shows its children in the lanes' order). */
static void test_perfetto_stream_lanes(void) {
    static const int64_t streams[] = { 0, 1, 2, 7, 300 };
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    size_t s, i;
    if (!CHECK(ev != NULL)) return;
    memset(&d, 0, sizeof d);
    d.name = "launch";
    d.thread = 3;
    d.start_ns = 100;
    d.end_ns = 200;
    CHECK(prof_events_add(ev, &d) >= 0);
    d.name = "kernel";
    d.set = PROF_EVENT_RESOURCE_ID;
    d.device_type = PROF_DEVICE_CUDA;
    for (s = 0; s < sizeof streams / sizeof *streams; s++) {
        d.device_resource_id = streams[s];
        d.device_index = s < 3 ? 0 : 1;
        for (i = 0; i < (s == 0 ? 300u : s == 1 ? 260u : 3u); i++) {
            d.start_ns = 1000 + (int64_t)i;
            d.end_ns = 100000 + (int64_t)i;
            CHECK(prof_events_add(ev, &d) >= 0);
        }
    }
    perfetto_pair(ev, "pf_stream_lanes");
    prof_events_free(ev);
}

/* A list that spans more than 2^63 ns (one thread's event near INT64_MIN,
   another's near INT64_MAX): a thread sequence's first clock delta, from
   the trace's start, was taken in int64_t (signed overflow, UBSan). The
   file must decode (protoc); the JSON cannot hold such times to the ns
   (doubles), so no comparison with it. */
/* Streams written under ids of their own in the JSON (negative ones but
   Kineto's -1, and those past INT32_MAX): the JSON's lanes keep the
   stream in their names, and hold what the Perfetto file's streams hold. */
static void test_remapped_streams(void) {
    static const int64_t streams[] = { 0, -1, -2, -3, (int64_t)1 << 40 };
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    size_t k;
    if (!CHECK(ev != NULL)) return;
    memset(&d, 0, sizeof d);
    d.name = "launcher";
    d.thread = 7;
    d.start_ns = 0;
    d.end_ns = 1000;
    CHECK(prof_events_add(ev, &d) >= 0);
    for (k = 0; k < sizeof streams / sizeof streams[0]; k++) {
        memset(&d, 0, sizeof d);
        d.name = "kernel";
        d.thread = 7;
        d.start_ns = 10 + 10 * (int64_t)k;
        d.end_ns = d.start_ns + 100;
        d.device_type = PROF_DEVICE_CUDA;
        d.set = PROF_EVENT_RESOURCE_ID;
        d.device_resource_id = streams[k];
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    perfetto_pair(ev, "pf_streams");
    prof_events_free(ev);
}

static void test_perfetto_extremes(void) {
    static const int64_t span[][2] = { { INT64_MIN, INT64_MIN + 1000 }, { INT64_MAX - 1000, INT64_MAX } };
    static const char *const frame[1] = { "e (x.c:1)" }; /* pprof's samples are stacks */
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    size_t k;
    if (!CHECK(ev != NULL)) return;
    for (k = 0; k < 2; k++) {
        memset(&d, 0, sizeof d);
        d.name = "e";
        d.thread = 3 + k;
        d.start_ns = span[k][0];
        d.end_ns = span[k][1];
        d.stack = frame;
        d.stack_depth = 1;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    CHECK_EQ_INT(prof_export_perfetto(ev, OUT "/pf_extremes.pftrace"), PROF_OK);
    fflush(stdout);
    CHECK(system("protoc --proto_path=tests/export/proto --decode=perfetto.protos.Trace perfetto_trace.proto < " OUT "/pf_extremes.pftrace > /dev/null") == 0);
    /* pprof: a span past 2^63 ns is INT64_MAX ns long (duration_nanos was
       left out, which check_pprof.py fails where there are samples) */
    CHECK_EQ_INT(prof_export_stacks_merged(ev, OUT "/pf_extremes.stacks", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_pprof(ev, OUT "/pf_extremes.pb", "self_cpu_time_total"), PROF_OK);
    fflush(stdout);
    CHECK(system("python3 tests/export/check_pprof.py " OUT "/pf_extremes.pb " OUT "/pf_extremes.stacks") == 0);
    CHECK(system("protoc --proto_path=tests/export/proto --decode=perftools.profiles.Profile profile.proto < " OUT "/pf_extremes.pb | grep -qx 'duration_nanos: 9223372036854775807'") == 0);
    prof_events_free(ev);
    /* A recorded list (times from the session's wall clock) with an event
       added 2^63 - 2^60 ns on: on the wall clock it would pass 2^63, which
       trace_processor reads as a negative time and drops; the file's times
       are then the list's own, from its earliest. */
    {
        prof_config c;
        memset(&c, 0, sizeof c);
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        { PROF_SCOPE("recorded"); }
        ev = prof_stop();
        if (!CHECK(ev != NULL)) return;
        memset(&d, 0, sizeof d);
        d.name = "far";
        d.thread = 77;
        d.start_ns = INT64_MAX - ((int64_t)1 << 60);
        d.end_ns = d.start_ns + 1000;
        CHECK(prof_events_add(ev, &d) >= 0);
        perfetto_pair(ev, "pf_far");
        prof_events_free(ev);
    }
}

/* Many threads, each with a name of its own (one event each): the writer
   kept a bit per (thread, site) and filled them (quadratic: 30000 threads
   took 112 MB, 60000 took 450 MB and 2.4 s); past 1 MB of bits it now
   keeps a map of the pairs met. 3000 threads (past 1 MB) are checked
   against the JSON trace; 30000 must export in a child whose address space
   is held to 48 MB more than it uses (not under valgrind or sanitizers,
   which map memory of their own). */
static prof_events *threads_list(long n) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    char nm[32];
    long i;
    for (i = 0; ev && i < n; i++) {
        memset(&d, 0, sizeof d);
        snprintf(nm, sizeof nm, "name %ld", i);
        d.name = nm;
        d.thread = (uint64_t)i + 1;
        d.start_ns = 1000 + i * 10;
        d.end_ns = 1000 + i * 10 + 5;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    return ev;
}
static void test_perfetto_many_threads(void) {
    prof_events *ev = threads_list(3000);
    pid_t pid;
    int st = 0;
    if (!CHECK(ev != NULL)) return;
    perfetto_pair(ev, "pf_threads");
    prof_events_free(ev);
    if (check_under_valgrind() || check_under_sanitizer() || !CHECK((ev = threads_list(30000)) != NULL)) return;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        FILE *f = fopen("/proc/self/status", "r");
        char line[256];
        long vm_kb = 0;
        struct rlimit lim;
        while (f && fgets(line, sizeof line, f)) if (strncmp(line, "VmSize:", 7) == 0) vm_kb = atol(line + 7);
        if (f) fclose(f);
        lim.rlim_cur = lim.rlim_max = (rlim_t)(vm_kb + 48 * 1024) * 1024;
        if (vm_kb == 0 || setrlimit(RLIMIT_AS, &lim) != 0) _exit(3);
        _exit(prof_export_perfetto(ev, OUT "/pf_threads_as.pftrace") == PROF_OK ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "prof_export_perfetto of 30000 threads with 48 MB of address space to spare: status %d", st);
    prof_events_free(ev);
}

/* A recorded session: named threads (hostile names), scopes with stacks,
   marks, counters, allocations on two devices. */
static void test_perfetto_recorded(void) {
    prof_config c;
    prof_events *ev;
    int i;
    memset(&c, 0, sizeof c);
    c.with_stack = PROF_STACK_SCOPES;
    c.profile_memory = 1;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    prof_set_thread_name(HOSTILE[0]);
    for (i = 0; i < 20; i++) {
        PROF_SCOPE("step");
        PROF_COUNTER("ctr \"c\" \\ \xff", i * 0.5);
        {
            PROF_SCOPE_DYN(HOSTILE[i % N_HOSTILE]);
            PROF_MARK("mark \"m\" \\ \x01\x7f \xff \xc3\xa9");
            prof_alloc_ex((const void *)(uintptr_t)(0x1000 + i), 64 + (size_t)i, PROF_DEVICE_CPU, 0, "cat \xff");
            prof_alloc_ex((const void *)(uintptr_t)(0x9000 + i), 128, PROF_DEVICE_CUDA, 1, NULL);
        }
        if (i % 2) { prof_dealloc((const void *)(uintptr_t)(0x1000 + i)); prof_dealloc((const void *)(uintptr_t)(0x9000 + i)); }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    perfetto_pair(ev, "pf_recorded");
    /* the touching trace too */
    prof_events_free(ev);
}

/* ----- export options (prof_events_set_export_options) -------------------- */

static int has_bytes(const char *p, size_t n, const char *s) {
    size_t k = strlen(s), i;
    for (i = 0; p && i + k <= n; i++) if (memcmp(p + i, s, k) == 0) return 1;
    return 0;
}
/* Exports ev in every format with stacks as OUT/<tag>.*, then checks
   that each file has every string of want and none of avoid. */
static void check_paths(prof_events *ev, const char *tag, const char *const *want, const char *const *avoid) {
    static const char *const ext[] = { "json", "stacks", "pb", "pftrace" };
    int k;
    for (k = 0; k < 4; k++) {
        char path[256];
        size_t n = 0;
        char *p;
        const char *const *s;
        snprintf(path, sizeof path, OUT "/%s.%s", tag, ext[k]);
        if (k == 0) CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        if (k == 1) CHECK_EQ_INT(prof_export_stacks(ev, path, "self_cpu_time_total"), PROF_OK);
        if (k == 2) CHECK_EQ_INT(prof_export_pprof(ev, path, "self_cpu_time_total"), PROF_OK);
        if (k == 3) CHECK_EQ_INT(prof_export_perfetto(ev, path), PROF_OK);
        p = check_read_file_n(path, &n);
        if (!CHECK_MSG(p != NULL, "cannot read %s", path)) continue;
        for (s = want; *s; s++) {
            /* pprof and Perfetto hold the file apart from the frame's name */
            const char *w = *s;
            if (k >= 2 && strchr(w, '(')) w = strchr(w, '(') + 1;
            if (k >= 2 && strchr(w, ':')) {
                char tmp[128];
                snprintf(tmp, sizeof tmp, "%.*s", (int)(strchr(w, ':') - w), w);
                CHECK_MSG(has_bytes(p, n, tmp), "%s: no '%s'", path, tmp);
            } else {
                char tmp[128], *c;
                snprintf(tmp, sizeof tmp, "%s", w);
                if (k == 2 && (c = strstr(tmp, "+0x")) != NULL) *c = 0; /* pprof: a native frame's module, its offset an address */
                for (c = tmp; k == 1 && *c; c++) if (*c == ' ') *c = '_'; /* folded stacks' separator */
                CHECK_MSG(has_bytes(p, n, tmp), "%s: no '%s'", path, tmp);
            }
        }
        for (s = avoid; *s; s++) CHECK_MSG(!has_bytes(p, n, *s), "%s: has '%s'", path, *s);
        free(p);
    }
}
/* Source paths in stacks: the longest common directory of the recorded
   files is cut by default, a given prefix at a directory boundary only,
   "" keeps them; the list's own events (prof_events_get, the tables) keep
   them as recorded. */
static void test_source_prefix(void) {
    prof_events *ev = prof_events_create();
    prof_export_options xo;
    prof_event got;
    static const char *const st_in[] = { "inner (/src/proj/b/y.c:7)", "outer (/src/proj/a/x.c:3)" };
    static const char *const st_nat[] = { "fn (/usr/lib/libm.so+0x10)", "outer (/src/proj/a/x.c:3)" };
    int64_t i0;
    if (!CHECK(ev != NULL)) return;
    {
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = "outer"; d.thread = 1; d.start_ns = 0; d.end_ns = 10000;
        d.file = "/src/proj/a/x.c"; d.func = "outer_fn"; d.line = 3;
        d.stack = st_in + 1; d.stack_depth = 1;
        i0 = prof_events_add(ev, &d);
        d.name = "inner"; d.start_ns = 1000; d.end_ns = 4000;
        d.file = "/src/proj/b/y.c"; d.line = 7;
        d.stack = st_in; d.stack_depth = 2;
        CHECK(prof_events_add(ev, &d) >= 0);
        d.name = "fn"; d.start_ns = 5000; d.end_ns = 8000;
        d.file = NULL; d.func = NULL; d.line = 0;
        d.stack = st_nat; d.stack_depth = 2;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    {
        static const char *const want[] = { "inner (b/y.c:7)", "outer (a/x.c:3)", "/usr/lib/libm.so+0x10", NULL };
        static const char *const avoid[] = { "/src/proj/", NULL };
        check_paths(ev, "prefix_default", want, avoid);
    }
    memset(&xo, 0, sizeof xo);
    xo.source_prefix = "/src";
    CHECK_EQ_INT(prof_events_set_export_options(ev, &xo), PROF_OK);
    {
        static const char *const want[] = { "inner (proj/b/y.c:7)", "outer (proj/a/x.c:3)", NULL };
        static const char *const avoid[] = { "/src/", NULL };
        check_paths(ev, "prefix_src", want, avoid);
    }
    xo.source_prefix = "/src/proj/a/"; /* only the files under it */
    CHECK_EQ_INT(prof_events_set_export_options(ev, &xo), PROF_OK);
    {
        static const char *const want[] = { "inner (/src/proj/b/y.c:7)", "outer (x.c:3)", NULL };
        static const char *const avoid[] = { "/src/proj/a/", NULL };
        check_paths(ev, "prefix_a", want, avoid);
    }
    xo.source_prefix = "/sr"; /* not a directory of theirs: nothing cut */
    CHECK_EQ_INT(prof_events_set_export_options(ev, &xo), PROF_OK);
    {
        static const char *const want[] = { "inner (/src/proj/b/y.c:7)", "outer (/src/proj/a/x.c:3)", NULL };
        static const char *const avoid[] = { "(c/", NULL };
        check_paths(ev, "prefix_sr", want, avoid);
    }
    xo.source_prefix = "";
    CHECK_EQ_INT(prof_events_set_export_options(ev, &xo), PROF_OK);
    {
        static const char *const want[] = { "inner (/src/proj/b/y.c:7)", "outer (/src/proj/a/x.c:3)", NULL };
        static const char *const avoid[] = { "(a/x.c", "(b/y.c", NULL };
        check_paths(ev, "prefix_none", want, avoid);
    }
    /* the list keeps what was recorded */
    CHECK_EQ_INT(prof_events_set_export_options(ev, NULL), PROF_OK);
    if (CHECK(i0 >= 0 && prof_events_get(ev, (size_t)i0, &got) == PROF_OK)) {
        CHECK_EQ_STR(got.file, "/src/proj/a/x.c");
        CHECK(got.stack_depth == 1 && strcmp(got.stack[0], "outer (/src/proj/a/x.c:3)") == 0);
    }
    xo.args = (prof_args_level)7;
    CHECK_EQ_INT(prof_events_set_export_options(ev, &xo), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_set_export_options(NULL, &xo), PROF_E_ARG);
    prof_events_free(ev);
}

/* PROF_ARGS_LIGHT: no per-event ids in the args, so speedscope makes one
   frame per name (export_io_js: light.json against light.expect.json with
   "merged", and full.json, the same calls with their ids, must fail it). */
static void test_light_args(void) {
    prof_config c;
    prof_events *ev;
    prof_export_options xo;
    int i;
    FILE *f;
    memset(&c, 0, sizeof c);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < 20; i++) {
        PROF_SCOPE("call a");
        { PROF_SCOPE("call b"); }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/full.json"), PROF_OK);
    memset(&xo, 0, sizeof xo);
    xo.args = PROF_ARGS_LIGHT;
    CHECK_EQ_INT(prof_events_set_export_options(ev, &xo), PROF_OK);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/light.json"), PROF_OK);
    {
        size_t n = 0, nf = 0;
        char *p = check_read_file_n(OUT "/light.json", &n), *q = check_read_file_n(OUT "/full.json", &nf);
        if (CHECK(p != NULL && q != NULL)) {
            CHECK(prof_json_valid(p));
            CHECK(!has_bytes(p, n, "External id") && !has_bytes(p, n, "Ev Idx"));
            CHECK(has_bytes(p, n, "\"args\": {}"));
            CHECK(has_bytes(q, nf, "External id"));
        }
        free(p);
        free(q);
    }
    f = fopen(OUT "/light.expect.json", "w");
    if (CHECK(f != NULL)) {
        fprintf(f, "{\"importer\": \"Trace Event Format profile\", \"profiles\": 1, \"frames\": [\"call a\", \"call b\"], \"merged\": true}\n");
        fclose(f);
    }
    prof_events_free(ev);
}

/* PROF_ARGS_LIGHT with ids of every kind (sequence numbers, device events):
   the JSON stays valid, and Perfetto's annotations equal its args. */
static void test_light_hand(void) {
    prof_events *ev = prof_events_create();
    prof_export_options xo;
    prof_event_desc d;
    size_t n = 0;
    char *p;
    if (!CHECK(ev != NULL)) return;
    memset(&d, 0, sizeof d);
    d.name = "op"; d.thread = 3; d.start_ns = 0; d.end_ns = 5000;
    d.set = PROF_EVENT_SEQUENCE_NR; d.sequence_nr = 42;
    CHECK(prof_events_add(ev, &d) >= 0);
    d.set = PROF_EVENT_SEQUENCE_NR | PROF_EVENT_FWD_THREAD; d.fwd_thread = 3; d.sequence_nr = 43;
    d.start_ns = 6000; d.end_ns = 9000;
    CHECK(prof_events_add(ev, &d) >= 0);
    d.name = "kern"; d.set = PROF_EVENT_RESOURCE_ID; d.device_type = PROF_DEVICE_CUDA; d.device_resource_id = 7;
    d.start_ns = 1000; d.end_ns = 2000;
    CHECK(prof_events_add(ev, &d) >= 0);
    memset(&xo, 0, sizeof xo);
    xo.args = PROF_ARGS_LIGHT;
    CHECK_EQ_INT(prof_events_set_export_options(ev, &xo), PROF_OK);
    perfetto_pair(ev, "light_hand");
    p = check_read_file_n(OUT "/light_hand.json", &n);
    if (CHECK(p != NULL)) {
        CHECK(prof_json_valid(p));
        CHECK(!has_bytes(p, n, "Sequence number") && !has_bytes(p, n, "External id"));
        CHECK(has_bytes(p, n, "\"args\": {\"Fwd thread id\": 3}"));
        CHECK(has_bytes(p, n, "\"args\": {\"device\": 0, \"stream\": 7}"));
    }
    free(p);
    prof_events_free(ev);
}

/* ----- every string field of every format, hostile --------------------- */

static void put_hex(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) fprintf(f, "%02x", (unsigned char)*s);
    fputc('"', f);
}
#define HOST_MARK "mark \"m\" \\ \x01\x7f \xff \xe2\x80\xa8 \xf0\x9f\x98"
#define HOST_CTR "ctr \"c\" \\ \x1f \xc0\xaf \xed\xa0\x80"
static void *host_thread(void *arg) {
    prof_set_thread_name((const char *)arg);
    { PROF_SCOPE_DYN((const char *)arg); PROF_MARK(HOST_MARK); PROF_COUNTER(HOST_CTR, 1.5); }
    return NULL;
}
/* The hostile set in every string a format writes: names, overload names,
   stack frames (the trace's Call stack, folded stacks, pprof, Perfetto),
   metadata keys and values, thread names, marks, counters; a 1 MB name.
   check_hostile.py compares the JSON trace and folded stacks with the raw
   bytes, check_perfetto.py / check_pprof.py the others with those. (The
   memory timeline has numbers only.) */
static void test_hostile_fields(void) {
    static const char *const extra[] = { "line sep \xe2\x80\xa8 para \xe2\x80\xa9 end", "semi;colon sp ace", "tab\tcr\rlf\n" };
    const char *set[N_HOSTILE + 4];
    size_t ns = 0, k;
    prof_events *ev = prof_events_create();
    prof_export_options xo;
    char *big = (char *)malloc((1 << 20) + 1);
    char cmd[300];
    FILE *f;
    if (!CHECK(ev != NULL && big != NULL)) { free(big); prof_events_free(ev); return; }
    memset(big, 'x', 1 << 20);
    memcpy(big, "big \\ \"q\" \x01 \xff", 14);
    big[1 << 20] = 0;
    for (k = 0; k < N_HOSTILE; k++) set[ns++] = HOSTILE[k];
    for (k = 0; k < 3; k++) set[ns++] = extra[k];
    set[ns++] = big;
    memset(&xo, 0, sizeof xo);
    xo.source_prefix = ""; /* the frames exactly as given */
    CHECK_EQ_INT(prof_events_set_export_options(ev, &xo), PROF_OK);
    f = fopen(OUT "/hostile.expect.json", "w");
    if (!CHECK(f != NULL)) { free(big); prof_events_free(ev); return; }
    fprintf(f, "{\"trace\": \"" OUT "/hostile.json\", \"stacks\": \"" OUT "/hostile.stacks\",\n\"events\": [");
    for (k = 0; k < ns; k++) {
        prof_event_desc d;
        const char *st[3];
        char key[96];
        int j;
        memset(&d, 0, sizeof d);
        st[0] = set[k];
        st[1] = set[(k + 2) % ns];
        st[2] = "root \\ frame";
        d.name = set[k];
        d.overload_name = set[(k + 1) % ns];
        d.thread = 21;
        d.start_ns = (int64_t)k * 10000;
        d.end_ns = d.start_ns + 5000;
        d.stack = st;
        d.stack_depth = 3;
        CHECK(prof_events_add(ev, &d) >= 0);
        fprintf(f, "%s\n {\"name\": ", k ? "," : "");
        put_hex(f, d.name);
        fprintf(f, ", \"overload\": ");
        put_hex(f, d.overload_name);
        fprintf(f, ", \"stack\": [");
        for (j = 0; j < 3; j++) { if (j) fprintf(f, ", "); put_hex(f, st[j]); }
        fprintf(f, "]}");
        /* metadata: a key per string (keys are unique), the next as value */
        snprintf(key, sizeof key, "key %zu %.60s", k, set[k]);
        CHECK_EQ_INT(prof_events_add_metadata(ev, key, set[(k + 1) % ns]), PROF_OK);
    }
    fprintf(f, "],\n\"meta\": [");
    for (k = 0; k < ns; k++) {
        char key[96];
        snprintf(key, sizeof key, "key %zu %.60s", k, set[k]);
        fprintf(f, "%s[", k ? ", " : "");
        put_hex(f, key);
        fprintf(f, ", ");
        put_hex(f, set[(k + 1) % ns]);
        fprintf(f, "]");
    }
    fprintf(f, "]}\n");
    fclose(f);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/hostile.json"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks_merged(ev, OUT "/hostile.stacks", "self_cpu_time_total"), PROF_OK);
    snprintf(cmd, sizeof cmd, "python3 tests/export/check_hostile.py " OUT "/hostile.expect.json");
    fflush(stdout);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
    perfetto_pair(ev, "hostile_pair");
    prof_events_free(ev);

    /* recorded: threads named with each string (kept whole), marks, counters */
    {
        prof_config c;
        memset(&c, 0, sizeof c);
        c.with_stack = PROF_STACK_SCOPES;
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        for (k = 0; k < ns - 1; k++) { /* not the 1 MB one (a thread per string) */
            pthread_t th;
            if (CHECK(pthread_create(&th, NULL, host_thread, (void *)(uintptr_t)set[k]) == 0)) pthread_join(th, NULL);
        }
        ev = prof_stop();
        if (!CHECK(ev != NULL)) { free(big); return; }
        CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/hostile_rec.json"), PROF_OK);
        f = fopen(OUT "/hostile_rec.expect.json", "w");
        if (CHECK(f != NULL)) {
            fprintf(f, "{\"trace\": \"" OUT "/hostile_rec.json\", \"stacks\": null, \"events\": [");
            for (k = 0; k < ns - 1; k++) {
                fprintf(f, "%s{\"name\": ", k ? ", " : "");
                put_hex(f, set[k]);
                fprintf(f, "}");
            }
            fprintf(f, "], \"threads\": [");
            for (k = 0; k < ns - 1; k++) {
                if (!set[k][0]) continue; /* an empty name: "thread <tid>" */
                if (k) fprintf(f, ", ");
                put_hex(f, set[k]);
            }
            fprintf(f, "], \"marks\": [");
            put_hex(f, HOST_MARK);
            fprintf(f, "], \"counters\": [");
            put_hex(f, HOST_CTR);
            fprintf(f, "]}\n");
            fclose(f);
        }
        snprintf(cmd, sizeof cmd, "python3 tests/export/check_hostile.py " OUT "/hostile_rec.expect.json");
        fflush(stdout);
        CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
        perfetto_pair(ev, "hostile_rec_pair");
        prof_events_free(ev);
    }
    free(big);
}


/* ----- the writer's threads: queue, pool, token, errors mid-way ---------- */

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0) ok = 0;
    return ok;
}
/* A pipe's reader that takes its bytes slowly (a pause every 64 kB), so
   the writer thread blocks in write(2) and the formatter fills every
   buffer of the queue and waits for one; the parallel JSON's workers run
   out of free buffers. It keeps what it read, or closes the pipe after
   `close_after` bytes (a reader gone mid-way). */
typedef struct slow_reader { int fd; size_t close_after; char *got; size_t n, cap; } slow_reader;
static void *slow_read(void *arg) {
    slow_reader *r = (slow_reader *)arg;
    char b[65536];
    ssize_t k;
    while ((k = read(r->fd, b, sizeof b)) > 0) {
        struct timespec pause = { 0, 300000 };
        if (r->n + (size_t)k > r->cap) {
            char *g = (char *)realloc(r->got, (r->n + (size_t)k) * 2);
            if (!g) break;
            r->got = g;
            r->cap = (r->n + (size_t)k) * 2;
        }
        memcpy(r->got + r->n, b, (size_t)k);
        r->n += (size_t)k;
        if (r->close_after && r->n >= r->close_after) break;
        nanosleep(&pause, NULL);
    }
    close(r->fd);
    return NULL;
}
/* fn's output into a pipe read slowly (closed after close_after bytes, 0:
   never); what the reader got in r (the caller frees r->got). */
static prof_result export_to_slow_pipe(check_export_fn fn, prof_events *ev, size_t close_after, slow_reader *r) {
    int fds[2];
    char path[64];
    pthread_t th;
    prof_result res = PROF_E_IO;
    memset(r, 0, sizeof *r);
    if (!CHECK(pipe(fds) == 0)) return res;
    r->fd = fds[0];
    r->close_after = close_after;
    if (!CHECK(pthread_create(&th, NULL, slow_read, r) == 0)) { close(fds[0]); close(fds[1]); return res; }
    snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
    res = fn(ev, path);
    close(fds[1]);
    pthread_join(th, NULL);
    return res;
}
/* The same bytes through a slow pipe as into a file: every exporter with
   its writer thread from the first buffer (queue full, the buffers reused
   in turn), the
   JSON also in parallel with small chunks (the pool runs out, chunks
   complete out of turn) and with chunks bigger than a worker's buffer
   (their first part written in their turn). */
static void test_slow_reader(void) {
    static const struct { size_t min, chunk; } par[] = { { (size_t)-1, 4096 }, { 0, 300 }, { 0, 16000 } };
    prof_events *ev = build(50000);
    size_t k, m, old_min = prof__par_min_events, old_chunk = prof__par_chunk;
    if (!ev) return;
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        for (m = 0; m < (CHECK_EXPORTERS[k].fn == check_ex_trace ? sizeof par / sizeof par[0] : 1); m++) {
            char path[128];
            char *want;
            size_t want_n = 0;
            slow_reader r;
            prof__par_min_events = par[m].min;
            prof__par_chunk = par[m].chunk;
            snprintf(path, sizeof path, OUT "/slow_%s.out", CHECK_EXPORTERS[k].name);
            prof__par_min_events = (size_t)-1; /* the file: one thread, the reference */
            CHECK_EQ_INT(CHECK_EXPORTERS[k].fn(ev, path), PROF_OK);
            prof__par_min_events = par[m].min;
            want = check_read_file_n(path, &want_n);
            CHECK_MSG(CHECK_EXPORTERS[k].fn != check_ex_perfetto || want_n > 5 * PROF__W_CHUNK, "the Perfetto trace (%zu bytes) is too small to fill the writer's queue", want_n);
            prof__w_async_after = 0;
            CHECK_EQ_INT(export_to_slow_pipe(CHECK_EXPORTERS[k].fn, ev, 0, &r), PROF_OK);
            prof__w_async_after = PROF__W_ASYNC_AFTER;
            if (CHECK_EXPORTERS[k].fn == check_ex_trace) { /* the traceName is the path: compare up to it */
                const char *a = want ? strstr(want, "\"traceName\"") : NULL, *b = r.got ? strstr(r.got, "\"traceName\"") : NULL;
                CHECK_MSG(a && b && a - want == b - r.got && memcmp(want, r.got, (size_t)(a - want)) == 0,
                          "%s (chunks %zu, parallel from %zu): the pipe's bytes differ from the file's", CHECK_EXPORTERS[k].name, par[m].chunk, par[m].min);
            } else {
                CHECK_MSG(want && r.n == want_n && memcmp(want, r.got, want_n) == 0, "%s: the pipe got %zu bytes, the file has %zu, or they differ", CHECK_EXPORTERS[k].name, r.n, want_n);
            }
            free(r.got);
            free(want);
            unlink(path);
        }
    }
    prof__par_min_events = old_min;
    prof__par_chunk = old_chunk;
    prof_events_free(ev);
}
/* The JSON formatted in parallel into a file: the same bytes as one
   thread writes, whether each worker writes its own chunks at their
   offsets (pwrite, our own temporary file) or the chunks go out in turn
   as into a stream (prof__par_stream), with chunks of every size: small
   (the pool runs out, chunks complete before their offset is known) and
   bigger than a worker's buffer (their first part written once the
   chunks before them are formatted). The file it replaces goes whole. */
static void test_par_file(void) {
    static const size_t chunks[] = { 97, 300, 2048, 16000 };
    prof_events *ev = build(50000);
    size_t c, m, old_min = prof__par_min_events, old_chunk = prof__par_chunk;
    char *want;
    size_t want_n = 0;
    if (!ev) return;
    prof__par_min_events = (size_t)-1; /* the reference: one thread */
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/par_file.json"), PROF_OK);
    want = check_read_file_n(OUT "/par_file.json", &want_n);
    CHECK_MSG(want_n > 4 * PROF__PAR_BUF, "the trace (%zu bytes) is too small for chunks bigger than a buffer", want_n);
    for (m = 0; m < 2; m++) {
        for (c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            uint64_t pw = __atomic_load_n(&prof__par_pwrites, __ATOMIC_RELAXED);
            char *got;
            size_t got_n = 0;
            prof__par_min_events = 0;
            prof__par_chunk = chunks[c];
            prof__par_stream = (int)m;
            CHECK(write_text(OUT "/par_file.json", "an older file, replaced whole\n"));
            CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/par_file.json"), PROF_OK);
            got = check_read_file_n(OUT "/par_file.json", &got_n);
            CHECK_MSG(want && got && got_n == want_n && memcmp(want, got, want_n) == 0,
                      "%s, chunks of %zu: %zu bytes against one thread's %zu, or they differ", m ? "in turn" : "at offsets", chunks[c], got_n, want_n);
            pw = __atomic_load_n(&prof__par_pwrites, __ATOMIC_RELAXED) - pw;
#if defined(PROF__NO_PWRITE)
            pw = !m; /* no pwrite (32 bits, POSIX 2001): in turn either way */
#endif
            CHECK_MSG((pw > 0) == !m, "%s, chunks of %zu: pwrite %s", m ? "in turn" : "at offsets", chunks[c], m ? "used" : "not used");
            free(got);
        }
    }
    prof__par_stream = 0;
    prof__par_min_events = old_min;
    prof__par_chunk = old_chunk;
    free(want);
    unlink(OUT "/par_file.json");
    prof_events_free(ev);
}
/* A target whose name is longer than NAME_MAX fails at once with
   ENAMETOOLONG: nothing is written (the trace was written whole under a
   short temporary name, and only the rename failed), no temporary file
   stays, and every exporter says so. */
static void test_name_too_long(void) {
    prof_events *ev = build(50000);
    size_t k, old_min = prof__par_min_events;
    char path[600];
    if (!ev) return;
    snprintf(path, sizeof path, "%s/%0300d.json", OUT, 0);
    prof__par_min_events = 0;
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        uint64_t pw = __atomic_load_n(&prof__par_pwrites, __ATOMIC_RELAXED);
        check_log_reset();
        CHECK_EQ_INT(CHECK_EXPORTERS[k].fn(ev, path), PROF_E_IO);
        CHECK_MSG(check_log_has(PROF_E_IO, "too long"), "%s: no 'File name too long' in its message", CHECK_EXPORTERS[k].name);
        CHECK_EQ_INT(__atomic_load_n(&prof__par_pwrites, __ATOMIC_RELAXED) - pw, 0);
    }
    CHECK_EQ_INT(check_count_tmp(OUT), 0);
    prof__par_min_events = old_min;
    prof_events_free(ev);
}
/* A path ending in .gz: the JSON trace and the memory timeline refuse it
   (PROF_E_ARG: their readers gunzip by the name), and nothing is written
   there; pprof, whose readers look at the bytes, writes "x.pb.gz". */
static void test_gz_refused(void) {
    prof_events *ev = build(100);
    char path[300];
    if (!ev) return;
    snprintf(path, sizeof path, "%s/trace.json.gz", OUT);
    remove(path);
    check_log_reset();
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_ARG);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, path, PROF_DEVICE_CPU, 0), PROF_E_ARG);
    CHECK(check_log_find(PROF_E_ARG, "gzip it", NULL) == 2);
    CHECK(access(path, F_OK) != 0);
    snprintf(path, sizeof path, "%s/profile.pb.gz", OUT);
    CHECK_EQ_INT(prof_export_pprof(ev, path, NULL), PROF_OK);
    CHECK(access(path, F_OK) == 0);
    remove(path);
    prof_events_free(ev);
}
/* A write that fails once the writer thread (started at the first buffer)
   or the parallel workers have taken over: a reader gone after 512 kB
   (EPIPE, no SIGPIPE), and a file that reaches RLIMIT_FSIZE (EFBIG) at
   1 MiB: PROF_E_IO, the old
   target intact, no temporary file left. */
static void test_write_fails_midway(void) {
    static const size_t par_min[] = { (size_t)-1, 0 };
    prof_events *ev = build(50000);
    size_t k, m, old_min = prof__par_min_events, old_chunk = prof__par_chunk;
    struct rlimit old_lim, lim;
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    if (!ev) return;
    CHECK(getrlimit(RLIMIT_FSIZE, &old_lim) == 0);
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        for (m = 0; m < (CHECK_EXPORTERS[k].fn == check_ex_trace ? 2u : 1u); m++) {
            slow_reader r;
            prof_result res;
            char path[128];
            size_t size = 0;
            char *full;
            prof__par_min_events = par_min[m];
            prof__par_chunk = 1000;
            snprintf(path, sizeof path, OUT "/midway_%s.out", CHECK_EXPORTERS[k].name);
            CHECK_EQ_INT(CHECK_EXPORTERS[k].fn(ev, path), PROF_OK);
            full = check_read_file_n(path, &size);
            free(full);
            if (size < (1u << 20)) continue; /* the memory timeline: one buffer */
            check_log_reset();
            prof__w_async_after = 0; /* the writer thread from the first buffer */
            res = export_to_slow_pipe(CHECK_EXPORTERS[k].fn, ev, 1u << 19, &r);
            CHECK_MSG(res == PROF_E_IO && check_log_has(PROF_E_IO, strerror(EPIPE)), "%s (parallel from %zu) into a pipe closed mid-way: %d (%s)", CHECK_EXPORTERS[k].name, par_min[m], (int)res, prof_last_error());
            CHECK_MSG(!sigpipe_pending(), "%s left a SIGPIPE pending", CHECK_EXPORTERS[k].name);
            free(r.got);
            CHECK(unlink(path) == 0 && write_text(path, "OLD\n"));
            lim = old_lim;
            lim.rlim_cur = 1u << 20;
            if (CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0)) {
                check_log_reset();
                res = CHECK_EXPORTERS[k].fn(ev, path);
                CHECK(setrlimit(RLIMIT_FSIZE, &old_lim) == 0);
                CHECK_MSG(res == PROF_E_IO && check_log_has(PROF_E_IO, path) && check_log_has(PROF_E_IO, strerror(EFBIG)), "%s (parallel from %zu) past RLIMIT_FSIZE: %d (%s)", CHECK_EXPORTERS[k].name, par_min[m], (int)res, prof_last_error());
            }
            full = check_read_file_n(path, &size);
            CHECK_MSG(full && strcmp(full, "OLD\n") == 0, "%s: the old file was not left as it was", CHECK_EXPORTERS[k].name);
            free(full);
            CHECK(check_count_tmp(OUT) == 0);
            prof__w_async_after = PROF__W_ASYNC_AFTER;
            unlink(path);
        }
    }
    prof__par_min_events = old_min;
    prof__par_chunk = old_chunk;
    signal(SIGXFSZ, old_sig);
    prof_events_free(ev);
}

/* A file that reaches RLIMIT_FSIZE with SIGXFSZ at its default action
   (which ends the process, as SIGPIPE's does): each exporter, small
   and large traces, fails with PROF_E_IO (EFBIG) and the host lives, with
   no SIGXFSZ left pending and its signal mask as it was. In a child, whose
   limit is 1 byte while it exports (it prints nothing then: its stdout
   may be a file too); its verdicts come back through a pipe. */
static void quiet_log(prof_log_level l, prof_result c, const char *m, void *u) { (void)l; (void)c; (void)m; (void)u; }
static void test_file_size_signal(void) {
    static const size_t sizes[] = { 50, 60000 }; /* one buffer; past the writer thread's start */
    enum { N = 2 * CHECK_N_EXPORTERS };
    char got[N];
    int fds[2], status = 0;
    size_t i;
    pid_t pid;
    if (!CHECK(pipe(fds) == 0)) return;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        char verdict[N];
        struct rlimit old_lim, lim;
        size_t s, k;
        close(fds[0]);
        signal(SIGXFSZ, SIG_DFL);
        prof_set_log(quiet_log, NULL); /* nothing to stderr while the limit holds */
        memset(verdict, '?', sizeof verdict);
        if (getrlimit(RLIMIT_FSIZE, &old_lim) != 0) _exit(3);
        for (s = 0; s < 2; s++) {
            prof_events *ev = build(sizes[s]);
            if (!ev) _exit(4);
            for (k = 0; k < CHECK_N_EXPORTERS; k++) {
                char path[128];
                sigset_t before, after, pending;
                prof_result r;
                snprintf(path, sizeof path, OUT "/fsize_%s_%zu.out", CHECK_EXPORTERS[k].name, sizes[s]);
                unlink(path);
                lim = old_lim;
                lim.rlim_cur = 1;
                pthread_sigmask(SIG_SETMASK, NULL, &before);
                if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(5);
                r = CHECK_EXPORTERS[k].fn(ev, path);
                if (setrlimit(RLIMIT_FSIZE, &old_lim) != 0) _exit(6);
                pthread_sigmask(SIG_SETMASK, NULL, &after);
                verdict[s * CHECK_N_EXPORTERS + k] =
                    r != PROF_E_IO ? 'r' : !strstr(prof_last_error(), strerror(EFBIG)) ? 'm'
                    : sigpending(&pending) != 0 || sigismember(&pending, SIGXFSZ) ? 'p'
                    : sigismember(&before, SIGXFSZ) != sigismember(&after, SIGXFSZ) ? 'k'
                    : access(path, F_OK) == 0 ? 'f' : 'y';
            }
            prof_events_free(ev);
        }
        prof_shutdown();
        if (write(fds[1], verdict, sizeof verdict) != (ssize_t)sizeof verdict) _exit(2);
        _exit(0);
    }
    close(fds[1]);
    if (!CHECK(pid > 0)) { close(fds[0]); return; }
    memset(got, 0, sizeof got);
    for (i = 0; i < N;) {
        ssize_t k = read(fds[0], got + i, N - i);
        if (k <= 0) break;
        i += (size_t)k;
    }
    close(fds[0]);
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "past RLIMIT_FSIZE with SIGXFSZ's default action: child exit %d, signal %d",
              WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    for (i = 0; i < N; i++)
        CHECK_MSG(got[i] == 'y', "%s (%zu events) past RLIMIT_FSIZE: verdict '%c' (r: not PROF_E_IO, m: no EFBIG message, p: SIGXFSZ left pending, k: mask changed, f: file left, 0: child died)",
                  CHECK_EXPORTERS[i % CHECK_N_EXPORTERS].name, sizes[i / CHECK_N_EXPORTERS], got[i] ? got[i] : '0');
}

int main(void) {
    prof_set_log(check_log, NULL);
    CHECK(mkdir("build", 0755) == 0 || errno == EEXIST);
    CHECK(mkdir(OUT, 0755) == 0 || errno == EEXIST);
    test_closed_pipe();
    test_long_path();
    test_touching();
    test_device_async_touch();
    test_marks();
    test_async_overlap();
    test_overlap_hand();
    test_device_nest_hand();
    test_perfetto_hand();
    test_perfetto_recorded();
    test_perfetto_zero_twins();
    test_perfetto_importer();
    test_perfetto_many_lanes();
    test_perfetto_stream_lanes();
    test_perfetto_extremes();
    test_remapped_streams();
    test_perfetto_many_threads();
    test_source_prefix();
    test_light_args();
    test_light_hand();
    test_hostile_fields();
    test_slow_reader();
    test_par_file();
    test_name_too_long();
    test_gz_refused();
    test_write_fails_midway();
    test_file_size_signal();
    prof_shutdown();
    return check_report();
}
