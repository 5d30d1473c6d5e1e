/* test_oom_exports.c - the analysis and every exporter with their Nth
   allocation failing, for every N until they succeed: no crash, an error
   (logged), the old file kept whole and no temporary file left; then the
   next call, with memory back, gives what a first call gives.

   The allocator fills what it hands out with 0xA5 bytes, as a reused heap
   block may hold: prof.h must not free or read what it did not set. (The
   Perfetto exporter once freed its per-thread slice stacks uninitialized
   when an allocation after theirs failed; and copied from a NULL buffer
   with length 0 when a protobuf message's first growth failed, which
   -fsanitize=undefined stops at; pprof likewise.) */
#define _GNU_SOURCE 1 /* before any system header: the implementation needs it */
#include "fail_alloc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <sys/stat.h>

#define OUT "build/oom_exports"

static void leaf(int i) {
    PROF_SCOPE_SHAPES("mm", 2, i, 3, 2, 3, 4);
    void *p = prof_malloc(100 + (size_t)i);
    prof_free(p);
}
/* One thread (the allocation count is then the same every run): nested
   scopes, run-time names, shapes, flops, marks, counters, memory, async
   ranges and metadata, with stacks, so that every exporter has all it
   writes. */
static prof_events *record(void) {
    prof_config cfg;
    prof_events *ev;
    int i;
    char nm[32];
    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    cfg.profile_memory = 1;
    cfg.with_stack = PROF_STACK_SCOPES;
    cfg.with_flops = 1;
    cfg.no_prefault_thread = 1;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return NULL;
    PROF_THREAD_NAME("main");
    prof_add_metadata("k", "v");
    for (i = 0; i < 20; i++) {
        PROF_SCOPE("step");
        snprintf(nm, sizeof nm, "dyn_%d", i % 5);
        { PROF_SCOPE_DYN(nm); leaf(i); }
        { PROF_SCOPE_FLOPS("flop", 1000 + i); PROF_MARK("m"); PROF_COUNTER("c", i * 1.5); }
        PROF_ASYNC_BEGIN("as", (uint64_t)i);
        PROF_ASYNC_END((uint64_t)i);
    }
    ev = prof_stop();
    CHECK(ev != NULL);
    return ev;
}

/* By hand: 600 nested events (Perfetto's deeper tracks), overlapping ops
   with shapes and kernels on two devices, async ranges, memory on CPU and
   device, stacks and metadata: the exporters' other paths. */
static prof_events *build_hand(void) {
    static const char *const stk[] = { "inner", "outer (a.c:3)", "main (/x/y/main.c:1)" };
    static const int nd[2] = { 2, 1 };
    static const int64_t dims[3] = { 3, 4, 5 };
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    int i, ok = ev && prof_events_set_device(ev, "cuda") == PROF_OK;
    int64_t idx;
    if (ok) prof_events_set_flags(ev, 1, 1);
    for (i = 0; ok && i < 600; i++) {
        memset(&d, 0, sizeof d);
        d.name = i % 2 ? "deep_a" : "deep_b";
        d.thread = 1;
        d.start_ns = i;
        d.end_ns = 2000 - i;
        d.stack = stk;
        d.stack_depth = 3;
        d.file = "/x/y/a.c";
        d.line = i;
        ok = prof_events_add(ev, &d) >= 0;
    }
    for (i = 0; ok && i < 20; i++) {
        memset(&d, 0, sizeof d);
        d.name = "op";
        d.thread = 2;
        d.start_ns = 100 * i;
        d.end_ns = 100 * i + 150; /* overlaps the next */
        d.set = PROF_EVENT_SHAPES | PROF_EVENT_SEQUENCE_NR;
        d.sequence_nr = i;
        d.input_shapes.n_inputs = 2;
        d.input_shapes.ndims = nd;
        d.input_shapes.dims = dims;
        d.flops = 1000;
        d.stack = stk;
        d.stack_depth = 2;
        ok = (idx = prof_events_add(ev, &d)) >= 0 && prof_events_append_kernel(ev, (size_t)idx, "k", i % 2, 40) == PROF_OK;
        memset(&d, 0, sizeof d);
        d.name = "as";
        d.thread = 3;
        d.start_ns = 10 * i;
        d.end_ns = 10 * i + 500;
        d.set = PROF_EVENT_ASYNC;
        ok = ok && prof_events_add(ev, &d) >= 0 && prof_events_add_memory(ev, 2, 100 * i + 10, 4096, PROF_DEVICE_CPU, 0) == PROF_OK &&
             prof_events_add_memory(ev, 2, 100 * i + 20, 512, PROF_DEVICE_CUDA, 0) == PROF_OK;
    }
    for (i = 0; i < 2 && ok; i++) { /* kernels nested on a stream (prof__lane_durs bounds them) */
        memset(&d, 0, sizeof d);
        d.name = i ? "inner" : "outer";
        d.thread = 1;
        d.start_ns = 5000 + 10 * i;
        d.end_ns = 5050;
        d.set = PROF_EVENT_RESOURCE_ID;
        d.device_type = PROF_DEVICE_CUDA;
        d.device_resource_id = 9;
        ok = prof_events_add(ev, &d) >= 0;
    }
    ok = ok && prof_events_add_metadata(ev, "k", "v") == PROF_OK && prof_events_add_metadata_json(ev, "j", "[1,{\"a\":2}]") == PROF_OK;
    CHECK(ok);
    if (!ok) {
        prof_events_free(ev);
        return NULL;
    }
    return ev;
}

typedef struct job { const char *name, *path; } job;
static const job jobs[] = {
    { "perfetto", OUT "/t.pftrace" }, { "pprof", OUT "/t.pb" },         { "stacks", OUT "/t.stacks" },
    { "merged", OUT "/t.merged" },    { "timeline", OUT "/t.mem.json" }, { "chrome", OUT "/t.json" },
};
#define NJOBS ((int)(sizeof jobs / sizeof *jobs))
static prof_result run_job(prof_events *ev, int k) {
    switch (k) {
    case 5: return prof_export_chrome_trace(ev, jobs[k].path);
    case 0: return prof_export_perfetto(ev, jobs[k].path);
    case 1: return prof_export_pprof(ev, jobs[k].path, NULL);
    case 2: return prof_export_stacks(ev, jobs[k].path, NULL);
    case 3: return prof_export_stacks_merged(ev, jobs[k].path, NULL);
    default: return prof_export_memory_timeline(ev, jobs[k].path, PROF_DEVICE_CPU, 0);
    }
}

/* Each exporter, its Nth allocation failing: an error, the file before it
   untouched, no temporary; with memory back, the bytes of a clean export. */
static void test_exporters(prof_events *ev) {
    int k;
    for (k = 0; k < NJOBS; k++) {
        char *want, *got;
        size_t want_n = 0, got_n = 0;
        long n, failures = 0;
        prof_result r;
        g_fail_at = -1;
        if (!CHECK_EQ_INT(run_job(ev, k), PROF_OK)) continue;
        want = check_read_file_n(jobs[k].path, &want_n);
        for (n = 1; n < 100000; n++) {
            g_count = 0;
            g_fail_at = n;
            check_log_reset();
            r = run_job(ev, k);
            g_fail_at = -1;
            got = check_read_file_n(jobs[k].path, &got_n);
            /* failed: the old file; done, or an optional allocation (a cache) failed: the same bytes */
            CHECK_MSG(got && got_n == want_n && memcmp(got, want, want_n) == 0, "%s: allocation %ld: the file differs (%d)", jobs[k].name, n, (int)r);
            free(got);
            CHECK_EQ_INT(check_count_tmp(OUT), 0);
            if (r == PROF_OK && g_count < n) break; /* no allocation failed: done */
            if (r == PROF_OK) continue;
            failures++;
            /* out of memory is PROF_E_NOMEM, in one message (the writer's close used to
               make it PROF_E_IO, and Perfetto and pprof added a second message) */
            CHECK_MSG(r == PROF_E_NOMEM && check_log_count(PROF_E_NOMEM) == 1 && check_log_count(PROF_E_IO) == 0,
                      "%s: allocation %ld: code %d, %d out-of-memory and %d I/O messages", jobs[k].name, n, (int)r,
                      check_log_count(PROF_E_NOMEM), check_log_count(PROF_E_IO));
        }
        CHECK_MSG(failures > 0, "%s allocates nothing?", jobs[k].name);
        remove(jobs[k].path);
        CHECK_EQ_INT(run_job(ev, k), PROF_OK);
        got = check_read_file_n(jobs[k].path, &got_n);
        /* the trace names its path and time base: same path, same list, same bytes */
        CHECK_MSG(got && got_n == want_n && memcmp(got, want, want_n) == 0, "%s: the export after the failures differs", jobs[k].name);
        free(got);
        free(want);
    }
}

/* key_averages (by name, shapes, stack) and the tables, the Nth allocation
   failing: NULL and a message, then the same table as a clean run. */
static void test_analysis(prof_events *ev) {
    int mode;
    for (mode = 0; mode < 3; mode++) {
        prof_group_options g;
        prof_table_options to;
        prof_averages *a;
        char *want, *got;
        long n;
        memset(&g, 0, sizeof g);
        memset(&to, 0, sizeof to);
        g.group_by_input_shapes = mode == 1;
        g.group_by_stack_n = mode == 2 ? 5 : 0;
        to.sort_by = "self_cpu_time_total";
        g_fail_at = -1;
        a = prof_key_averages(ev, &g);
        if (!CHECK(a != NULL)) continue;
        want = prof_averages_table(a, &to);
        prof_averages_free(a);
        for (n = 1; n < 100000; n++) {
            g_count = 0;
            g_fail_at = n;
            check_log_reset();
            a = prof_key_averages(ev, &g);
            got = a ? prof_averages_table(a, &to) : NULL;
            g_fail_at = -1;
            if (got) { /* every allocation made, or a failed one that was optional (a memo) */
                CHECK_MSG(got && strcmp(got, want) == 0, "mode %d: allocation %ld failed: a table that differs:\n%s\nwant:\n%s", mode, n, got, want);
                prof_free_string(got);
                prof_averages_free(a);
                if (g_count < n) break;
                continue;
            }
            CHECK_MSG(check_log_count(PROF_E_NOMEM) >= 1, "mode %d: allocation %ld: no out-of-memory message", mode, n);
            prof_averages_free(a);
        }
        prof_free_string(want);
    }
}

/* What an earlier run left (a crash leaves its temporaries). */
static void clean_out(void) {
    DIR *d = opendir(OUT);
    struct dirent *de;
    char p[512];
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", OUT, de->d_name);
        remove(p);
    }
    if (d) closedir(d);
}

int main(void) {
    prof_events *ev;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    clean_out();
    ev = record();
    if (ev) {
        test_analysis(ev);
        test_exporters(ev);
        prof_events_free(ev);
    }
    ev = build_hand();
    if (ev) {
        test_analysis(ev);
        test_exporters(ev);
        prof_events_free(ev);
    }
    prof_shutdown();
    return check_report();
}
