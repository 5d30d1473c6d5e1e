/* prof_export_stacks_merged sums a big list's events in parts on two
   threads at once (prof__folded_merged): the file must be byte for byte the one the single
   pass writes, on random lists of nested events with random scope stacks
   (a child's stack is its parent's with frames added), some without a
   stack, children that outlast their parent (negative self times, left
   out), CUDA kernels (the device metric) and sums that saturate. The
   parts are forced with prof__par_min_events = 0 and the single pass with
   SIZE_MAX. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static uint64_t g_rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng % n);
}
static const char *const FRAMES[] = { "main (a.c:1)", "step (a.c:9)", "fwd (b.c:3)", "bwd (b.c:7)", "mm (c.c:2)", "add (c.c:5)", "a;b c", "" };
enum { NFRAMES = sizeof FRAMES / sizeof FRAMES[0] };

/* n events on 3 threads: parents with 0-3 children. */
static prof_events *make_list(size_t n) {
    prof_events *ev = prof_events_create();
    int64_t t[3] = { 1000, 5000, 9000 };
    size_t i = 0;
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);
    while (i < n) {
        const char *st[16];
        prof_event_desc d;
        int th = (int)rnd(3), depth = (int)rnd(5), nc = (int)rnd(4), c, k;
        int64_t start = t[th], len = 200 + (int64_t)rnd(40000);
        int64_t parent;
        for (k = 0; k < depth; k++) st[k] = FRAMES[rnd(NFRAMES)];
        memset(&d, 0, sizeof d);
        d.name = "parent";
        d.thread = 100 + (uint64_t)th;
        d.start_ns = start;
        d.end_ns = start + len * (nc + 1) + 7;
        d.stack = depth ? st : NULL;
        d.stack_depth = depth;
        parent = prof_events_add(ev, &d);
        CHECK(parent >= 0);
        i++;
        if (rnd(8) == 0 && i < n) { /* a kernel launched from it, for the device metric */
            CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)parent, "kernel", 0, 1000 + (int64_t)rnd(900000)), PROF_OK);
        }
        for (c = 0; c < nc && i < n; c++) {
            const char *cs[16];
            int cd = rnd(6) == 0 ? 0 : depth + 1 + (int)rnd(2), j;
            for (j = 0; j < cd - depth; j++) cs[j] = FRAMES[rnd(NFRAMES)];
            for (j = 0; j < depth && cd; j++) cs[cd - depth + j] = st[j];
            memset(&d, 0, sizeof d);
            d.name = c % 2 ? "child odd" : "child even";
            d.thread = 100 + (uint64_t)th;
            d.start_ns = start + 3 + len * c;
            /* now and then longer than its parent's share: the parent's self time goes negative */
            d.end_ns = d.start_ns + (rnd(5) == 0 ? len * 3 : len - (int64_t)rnd(150));
            if (d.end_ns > start + len * (nc + 1) + 7) d.end_ns = start + len * (nc + 1) + 7;
            d.stack = cd ? cs : NULL;
            d.stack_depth = cd;
            CHECK(prof_events_add(ev, &d) >= 0);
            i++;
        }
        t[th] = start + len * (nc + 1) + 100;
    }
    return ev;
}
/* Events of a third of INT64_MAX each, two a thread on 3 threads, one
   stack: the sum saturates (the list's first three events and its last
   three, in the first parts and the last). Then 10 events on another
   stack, in the parts between. */
static prof_events *make_big(void) {
    prof_events *ev = prof_events_create();
    const int64_t len = INT64_MAX / 3;
    const char *st[2] = { "big (a.c:1)", "root (a.c:0)" };
    int th, k;
    for (k = 0; k < 2; k++)
        for (th = 0; th < 3; th++) {
            prof_event_desc d;
            memset(&d, 0, sizeof d);
            d.name = "big";
            d.thread = 100 + (uint64_t)th;
            d.start_ns = len * k;
            d.end_ns = len * (k + 1);
            d.stack = st;
            d.stack_depth = 2;
            CHECK(prof_events_add(ev, &d) >= 0);
        }
    for (k = 0; k < 10; k++) {
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = "small";
        d.thread = 200;
        d.start_ns = 5 + 1000000 * (int64_t)k;
        d.end_ns = d.start_ns + 999995;
        d.stack = st + 1;
        d.stack_depth = 1;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    return ev;
}

/* The merged file with prof__par_min_events = min_events. */
static char *merged(prof_events *ev, const char *metric, size_t min_events, size_t *len) {
    const char *path = "test_merged_halves.stacks";
    size_t old = prof__par_min_events;
    char *text;
    prof__par_min_events = min_events;
    CHECK_EQ_INT(prof_export_stacks_merged(ev, path, metric), PROF_OK);
    prof__par_min_events = old;
    text = check_read_file_n(path, len);
    remove(path);
    return text;
}

static void check_list(prof_events *ev, const char *metric) {
    size_t n1 = 0, n2 = 0;
    char *one = merged(ev, metric, (size_t)-1, &n1), *two = merged(ev, metric, 0, &n2);
    CHECK(one != NULL && two != NULL);
    CHECK_EQ_INT((long long)n1, (long long)n2);
    CHECK(one && two && n1 == n2 && memcmp(one, two, n1) == 0);
    free(one);
    free(two);
}

int main(void) {
    static const size_t sizes[] = { 2, 3, 17, 200, 1000, 5000 };
    size_t s;
    int rep;
    prof_set_log(check_log, NULL);
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (rep = 0; rep < 6; rep++) {
            prof_events *ev = make_list(sizes[s]);
            check_list(ev, "self_cpu_time_total");
            check_list(ev, "self_cuda_time_total");
            prof_events_free(ev);
        }
    }
    { /* sums that saturate */
        prof_events *ev = make_big();
        size_t n = 0;
        char *text = merged(ev, "self_cpu_time_total", 0, &n);
                CHECK_EQ_STR(text ? text : "", "root_(a.c:0);big_(a.c:1) 9223372036854775\nroot_(a.c:0) 9999\n");
        free(text);
        check_list(ev, "self_cpu_time_total");
        prof_events_free(ev);
    }
    return check_report();
}
