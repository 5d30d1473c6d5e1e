/* test_guess_redo.c - the JSON trace written on the guess that its events
   nest (prof__tpipe: the touching top-level events found chunk by chunk
   while two workers format, the file emptied and written again when an
   event proves the guess wrong), on its failure paths, which
   test_export's test_guess_same_bytes does not reach:
   - every allocation failing in turn, with the writer thread and without,
     on lists where the guess holds, fails late (an overlap) and fails on a
     device event: the result is PROF_OK (the same bytes as one pass on
     one thread) or PROF_E_NOMEM with one message, no file left behind;
   - a file-size limit (EFBIG) at every size on the way, with the guess
     failing near the end: PROF_E_IO naming the errno ("File too large",
     never the -1 of PROF__W_REDO), no temporary file left;
   - random small lists (nesting, touching, overlapping, async, device and
     user-annotation events, node ids, shuffled orders) in chunks of 1 to 9
     events: the same bytes as one pass on one thread. */
#define _GNU_SOURCE 1 /* before any system header: the implementation needs it */
#include "fail_alloc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define OUT "build/guess_redo"

/* Files in OUT other than `keep` (NULL: none kept). */
static int stray_files(const char *keep) {
    DIR *d = opendir(OUT);
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)) != NULL)
        if (de->d_name[0] != '.' && !(keep && strcmp(de->d_name, keep) == 0)) n++;
    if (d) closedir(d);
    return n;
}
static void clear_out(void) {
    DIR *d = opendir(OUT);
    struct dirent *de;
    char path[512];
    while (d && (de = readdir(d)) != NULL)
        if (de->d_name[0] != '.' && snprintf(path, sizeof path, "%s/%s", OUT, de->d_name) < (int)sizeof path) remove(path);
    if (d) closedir(d);
}
/* The trace one pass on one thread writes (no guess) into *ref. */
static int reference(prof_events *ev, char **ref, size_t *len) {
    size_t old = prof__par_min_events;
    prof_result r;
    prof__par_min_events = (size_t)-1;
    r = prof_export_chrome_trace(ev, OUT "/a.json");
    prof__par_min_events = old;
    *ref = check_read_file_n(OUT "/a.json", len);
    remove(OUT "/a.json");
    return CHECK_EQ_INT(r, PROF_OK) && CHECK(*ref != NULL);
}
/* The file at OUT "/b.json" is the reference (its traceName aside). */
static int same_as(const char *ref, size_t ref_len, const char *what, long at) {
    size_t len = 0, k = 0;
    char *b = check_read_file_n(OUT "/b.json", &len), *tn;
    int ok;
    if (!CHECK(b != NULL)) return 0;
    if ((tn = strstr(b, "/b.json\"")) != NULL) tn[1] = 'a';
    while (k < len && k < ref_len && b[k] == ref[k]) k++;
    ok = CHECK_MSG(len == ref_len && k == len, "%s (%ld): the trace differs at byte %zu (sizes %zu, %zu)", what, at, k, ref_len, len);
    free(b);
    return ok;
}

/* 3 threads, touching top-level events each with two children; v 1: one
   overlaps its thread's next near the end, v 2: a device event there,
   v 3: a fourth thread's first event touches its next, near the end (the
   bit of the first chunk's event is final only then). */
static prof_events *make_list(int v, size_t ntop) {
    prof_events *ev = prof_events_create();
    size_t i;
    int t;
    if (!CHECK(ev != NULL)) return NULL;
    for (i = 0; i < ntop; i++) {
        if (v == 3 && (i == 0 || i == ntop - 3)) {
            prof_event_desc d;
            memset(&d, 0, sizeof d);
            d.name = "long";
            d.thread = 4;
            d.start_ns = i ? 1000000 + (int64_t)i * 1000 : 1000000;
            d.end_ns = i ? d.start_ns + 10 : 1000000 + (int64_t)(ntop - 3) * 1000;
            CHECK(prof_events_add(ev, &d) >= 0);
        }
        for (t = 0; t < 3; t++) {
            prof_event_desc d;
            int64_t s = 1000000 + (int64_t)i * 1000;
            memset(&d, 0, sizeof d);
            d.name = "top";
            d.thread = (uint64_t)t + 1;
            d.start_ns = s;
            d.end_ns = s + (i % 5 == 0 ? 1000 : 900) + (v == 1 && t == 1 && i == ntop - 3 ? 300 : 0);
            CHECK(prof_events_add(ev, &d) >= 0);
            d.name = "child";
            d.end_ns = s + 400;
            CHECK(prof_events_add(ev, &d) >= 0);
            d.name = "child2";
            d.start_ns = s + 400;
            d.end_ns = s + (i % 5 == 0 ? 1000 : 900);
            CHECK(prof_events_add(ev, &d) >= 0);
            if (v == 2 && t == 2 && i == ntop - 3) {
                d.name = "kern";
                d.device_type = PROF_DEVICE_CUDA;
                d.start_ns = s;
                d.end_ns = s + 5;
                CHECK(prof_events_add(ev, &d) >= 0);
            }
        }
    }
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    return ev;
}

static void test_oom_sweep(void) {
    size_t old_min = prof__par_min_events, old_chunk = prof__par_chunk;
    uint64_t old_after = prof__w_async_after;
    int v, th;
    for (v = 0; v < 3; v++)
        for (th = 0; th < 2; th++) {
            prof_events *ev = make_list(v, 100);
            char *ref = NULL;
            size_t ref_len = 0;
            long n;
            if (!ev) return;
            if (reference(ev, &ref, &ref_len)) {
                prof__par_min_events = 0; /* the guess, two workers */
                prof__par_chunk = 16;
                prof__w_async_after = th ? 0 : (uint64_t)-1;
                for (n = 1; n < 100000; n++) {
                    prof_result r;
                    check_log_reset();
                    g_count = 0;
                    g_fail_at = n;
                    r = prof_export_chrome_trace(ev, OUT "/b.json");
                    g_fail_at = -1;
                    if (r == PROF_OK) {
                        same_as(ref, ref_len, v == 0 ? "nested, allocation failed" : v == 1 ? "overlap, allocation failed" : "device, allocation failed", n);
                        remove(OUT "/b.json");
                        if (g_count < n) break; /* every allocation passed: done */
                    } else {
                        CHECK_MSG(r == PROF_E_NOMEM, "allocation %ld (v %d): result %d, not PROF_E_NOMEM: %s", n, v, (int)r, prof_last_error());
                        CHECK_MSG(check_log_total() == 1, "allocation %ld (v %d): %zu messages", n, v, check_log_total());
                        CHECK_MSG(stray_files(NULL) == 0, "allocation %ld (v %d): a file was left", n, v);
                    }
                }
                CHECK(n > 10 && n < 100000);
                prof__par_min_events = old_min;
                prof__par_chunk = old_chunk;
                prof__w_async_after = old_after;
            }
            free(ref);
            prof_events_free(ev);
        }
    check_log_reset();
}

static void test_write_errors(void) {
    size_t old_min = prof__par_min_events, old_chunk = prof__par_chunk;
    prof_events *ev = make_list(1, 1500); /* 9000 events, the overlap near the end */
    char *ref = NULL;
    size_t ref_len = 0;
    long lim;
    int done = 0;
    if (!ev) return;
    signal(SIGXFSZ, SIG_IGN);
    if (reference(ev, &ref, &ref_len)) {
        prof__par_min_events = 0;
        prof__par_chunk = 300;
        for (lim = 1000; !done && lim < 64L << 20; lim = lim * 3 / 2) {
            struct rlimit rl;
            prof_result r;
            check_log_reset();
            rl.rlim_cur = (rlim_t)lim;
            rl.rlim_max = RLIM_INFINITY;
            if (!CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0)) break;
            r = prof_export_chrome_trace(ev, OUT "/b.json");
            rl.rlim_cur = RLIM_INFINITY;
            setrlimit(RLIMIT_FSIZE, &rl);
            if (r == PROF_OK) {
                CHECK((size_t)lim >= ref_len);
                same_as(ref, ref_len, "file-size limit", lim);
                remove(OUT "/b.json");
                done = 1;
            } else {
                CHECK_MSG(r == PROF_E_IO && check_log_has(PROF_E_IO, strerror(EFBIG)) && !check_log_has(PROF_E_IO, "Unknown error"),
                          "limit %ld: result %d: %s", lim, (int)r, prof_last_error());
                CHECK_MSG(stray_files(NULL) == 0, "limit %ld: a file was left", lim);
            }
        }
        CHECK(done);
        prof__par_min_events = old_min;
        prof__par_chunk = old_chunk;
    }
    signal(SIGXFSZ, SIG_DFL);
    free(ref);
    prof_events_free(ev);
    check_log_reset();
}

/* Workers wait for a bit that stays open for most of the list: the
   first chunk's "long" event is written touching its next (a nanosecond
   short), which the scan meets ~12000 events later, past its step. */
static void test_long_pending(void) {
    size_t old_min = prof__par_min_events, old_chunk = prof__par_chunk;
    prof_events *ev = make_list(3, 4000);
    char *ref = NULL;
    size_t ref_len = 0;
    int k;
    if (!ev) return;
    if (reference(ev, &ref, &ref_len)) {
        CHECK(strstr(ref, "\"name\": \"long\", \"pid\"") != NULL);
        CHECK(strstr(ref, "\"tid\": 4, \"ts\": 1000.000, \"dur\": 3996.999,") != NULL); /* touching: 1 ns short */
        prof__par_min_events = 0;
        for (k = 0; k < 4; k++) {
            prof__par_chunk = k ? 16 * (size_t)k : 1;
            if (CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/b.json"), PROF_OK)) same_as(ref, ref_len, "long pending", (long)prof__par_chunk);
            remove(OUT "/b.json");
        }
        prof__par_min_events = old_min;
        prof__par_chunk = old_chunk;
    }
    free(ref);
    prof_events_free(ev);
}

/* xorshift: the same lists every run */
static uint64_t g_rs;
static uint64_t rnd(void) {
    g_rs ^= g_rs << 13;
    g_rs ^= g_rs >> 7;
    g_rs ^= g_rs << 17;
    return g_rs;
}
static void test_random_lists(void) {
    size_t old_min = prof__par_min_events, old_chunk = prof__par_chunk;
    uint64_t old_after = prof__w_async_after;
    unsigned it;
    for (it = 0; it < (unsigned)check_scale(150, 5); it++) { /* fewer under valgrind and the sanitizers */
        prof_event_desc *ds = (prof_event_desc *)calloc(400, sizeof *ds);
        prof_events *ev = prof_events_create();
        char *ref = NULL;
        size_t n = 0, i, ref_len = 0;
        int nthr, t, order;
        if (!CHECK(ds != NULL && ev != NULL)) { free(ds); prof_events_free(ev); return; }
        g_rs = (uint64_t)(it + 1) * 0x9e3779b97f4a7c15ull;
        nthr = 1 + (int)(rnd() % 3);
        for (t = 0; t < nthr; t++) {
            int64_t now = (int64_t)(rnd() % 100), ends[16];
            int depth = 0, k, cnt = 20 + (int)(rnd() % 60);
            for (k = 0; k < cnt && n < 400; k++) {
                prof_event_desc *d = &ds[n++];
                int64_t len;
                while (depth > 0 && (rnd() % 3 == 0 || now >= ends[depth - 1])) {
                    now = ends[depth - 1] + (int64_t)(rnd() % 3); /* touching, or 1-2 ns apart */
                    depth--;
                }
                len = 1 + (int64_t)(rnd() % 1000);
                if (depth > 0 && now + len > ends[depth - 1] && rnd() % 8) len = ends[depth - 1] - now; /* else overlaps its parent's end */
                if (len < 0) len = 0;
                d->name = rnd() % 2 ? "a" : "b";
                d->thread = (uint64_t)t + 7;
                d->start_ns = now;
                d->end_ns = now + len;
                if (rnd() % 12 == 0) d->set |= PROF_EVENT_ASYNC;
                if (rnd() % 25 == 0) d->device_type = PROF_DEVICE_CUDA;
                if (rnd() % 10 == 0) d->set |= PROF_EVENT_USER_ANNOTATION;
                if (rnd() % 20 == 0) { d->set |= PROF_EVENT_NODE_ID; d->node_id = (int)(rnd() % 2); }
                if (depth < 15 && rnd() % 2) {
                    ends[depth++] = now + len;
                    now += (int64_t)(rnd() % 3);
                } else {
                    now += len + (int64_t)(rnd() % 2);
                }
            }
        }
        order = (int)(rnd() % 4); /* 0, 1: as made (in order); 2: shuffled; 3: reversed */
        if (order == 2)
            for (i = n; i > 1; i--) {
                size_t r = rnd() % i;
                prof_event_desc x = ds[i - 1];
                ds[i - 1] = ds[r];
                ds[r] = x;
            }
        if (order == 3)
            for (i = 0; i < n / 2; i++) {
                prof_event_desc x = ds[i];
                ds[i] = ds[n - 1 - i];
                ds[n - 1 - i] = x;
            }
        for (i = 0; i < n; i++) CHECK(prof_events_add(ev, &ds[i]) >= 0);
        CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
        if (reference(ev, &ref, &ref_len)) {
            prof__par_min_events = 0;
            prof__par_chunk = 1 + rnd() % 9;
            prof__w_async_after = rnd() % 2 ? 0 : (uint64_t)-1;
            if (CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/b.json"), PROF_OK)) same_as(ref, ref_len, "random list", (long)it);
            remove(OUT "/b.json");
            prof__par_min_events = old_min;
            prof__par_chunk = old_chunk;
            prof__w_async_after = old_after;
        }
        free(ref);
        free(ds);
        prof_events_free(ev);
    }
}

int main(void) {
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    clear_out(); /* a run killed midway (the OOM killer, ^C) leaves its files: not this run's */
    test_oom_sweep();
    test_write_errors();
    test_long_pending();
    test_random_lists();
    CHECK(stray_files(NULL) == 0);
    rmdir(OUT);
    prof_shutdown();
    return check_report();
}
