/* bench/chrome_same.c - prof_export_chrome_trace of this prof.h beside
   another's (bench/chrome_same_old.c, usually the last commit's), byte for
   byte, on varied lists: the bench workloads (plain, scope stacks, full
   args, deep; also PROF_ARGS_LIGHT) small and big (two workers, the
   guess of prof__tpipe), hand-built lists (hostile names: quotes, control
   bytes, invalid UTF-8, names past the head's fixed move and a megabyte
   long; touching, zero-length, far, negative and overlapping events, a
   list out of order, device events and kernels, memory records), and a
   recorded session (marks, counters, async ranges, memory, threads, scope
   stacks, shapes, FLOPs). Each list is exported under several settings
   (one thread, two workers in chunks of 3 and of the default, the writer
   thread from the first byte, every event through prof__w_event), the
   same settings on both sides. Run it with bench/chrome_same.sh (in a PID
   namespace, so both traces have the same pid either way). Prints one line
   per difference and "same: N traces" at the end; exits 1 on any. */
#define main export_bench_main /* the bench's workloads, without its main */
#include "export.c"
#undef main

prof_result old_export_chrome_trace(prof_events *e, const char *path);
void old_set_knobs(size_t par_min_events, size_t par_chunk, uint64_t async_after, int trace_fast);

static const char *g_path = "/dev/shm/prof_chrome_same.json";
static int g_same, g_diff;

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (b = (char *)malloc((size_t)n + 1)) != NULL) {
        *len = fread(b, 1, (size_t)n, f);
        b[*len] = 0;
    }
    fclose(f);
    return b;
}

static void knobs(int k) {
    size_t par_min = 32768, chunk = PROF__PAR_CHUNK;
    uint64_t async_after = PROF__W_ASYNC_AFTER;
    int fast = 1;
    switch (k) {
    case 0: par_min = (size_t)-1; break;                   /* one thread */
    case 1: break;                                         /* the defaults */
    case 2: par_min = 1; chunk = 3; break;                 /* two workers, tiny chunks */
    case 3: par_min = (size_t)-1; async_after = 0; break;  /* the writer thread at once */
    case 4: par_min = (size_t)-1; fast = 0; break;         /* no fast path */
    }
    prof__par_min_events = par_min;
    prof__par_chunk = chunk;
    prof__w_async_after = async_after;
    prof__trace_fast = fast;
    old_set_knobs(par_min, chunk, async_after, fast);
}

/* Exports ev with both under every setting and compares. */
static void compare(const char *what, prof_events *ev) {
    int k;
    for (k = 0; k < 5; k++) {
        char *a, *b;
        size_t na = 0, nb = 0, at = 0;
        prof_result ra, rb;
        knobs(k);
        unlink(g_path);
        ra = prof_export_chrome_trace(ev, g_path);
        a = slurp(g_path, &na);
        unlink(g_path);
        rb = old_export_chrome_trace(ev, g_path);
        b = slurp(g_path, &nb);
        unlink(g_path);
        while (a && b && at < na && at < nb && a[at] == b[at]) at++;
        if (ra != rb || !a || !b || na != nb || at != na) {
            g_diff++;
            printf("DIFF %s (setting %d): results %d %d, sizes %zu %zu, first difference at byte %zu\n", what, k, (int)ra, (int)rb, na, nb, at);
            if (a && b && at < na && at < nb) printf("  new: %.120s\n  old: %.120s\n", a + (at > 60 ? at - 60 : 0), b + (at > 60 ? at - 60 : 0));
        } else {
            g_same++;
        }
        free(a);
        free(b);
    }
    knobs(1);
}

static void add(prof_events *ev, const char *name, uint64_t thread, int64_t s, int64_t e, const char *const *stack, int depth) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = thread;
    d.start_ns = s;
    d.end_ns = e;
    d.stack = stack;
    d.stack_depth = depth;
    if (prof_events_add(ev, &d) < 0) { fprintf(stderr, "prof_events_add: %s\n", prof_last_error()); exit(1); }
}

static void workloads(void) {
    static const char *const wl[] = { "full", "plain", "stk", "deep" };
    static const size_t sizes[] = { 3000, 70000 };
    int w, s, light;
    init_args();
    g_depth = 40;
    for (w = 0; w < 4; w++)
        for (s = 0; s < 2; s++) {
            prof_events *ev = workload(w, sizes[s]);
            char what[64];
            if (!ev) exit(1);
            for (light = 0; light < 2; light++) {
                prof_export_options o;
                memset(&o, 0, sizeof o);
                o.args = light ? PROF_ARGS_LIGHT : PROF_ARGS_FULL;
                prof_events_set_export_options(ev, &o);
                snprintf(what, sizeof what, "%s %zu%s", wl[w], sizes[s], light ? " light" : "");
                compare(what, ev);
            }
            prof_events_free(ev);
        }
}

/* Names that need escaping, or are long, in every place a string goes. */
static char g_mega[(1 << 20) + 1], g_mega_clean[(1 << 20) + 1], g_long[3][400];
static const char *g_names[] = {
    "plain", "q\"uote\\back", "ctl\x01\x02\t\n\r\x1f\x7f end", "bad \xff\xfe utf8", "cut \xe2\x82" "A", "surrogate \xed\xa0\x80", "overlong \xc0\xaf",
    "past \xf4\x90\x80\x80", "trail \xe2\x82", "ok h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80", "", NULL, NULL, NULL, NULL, NULL };
static void hostile_init(void) {
    size_t i;
    for (i = 0; i < sizeof g_mega - 1; i++) g_mega[i] = "ab\"\\\x01\xff\xc3\xa9xyz"[i % 11];
    if (g_mega[sizeof g_mega - 2] == '\xc3') g_mega[sizeof g_mega - 2] = 'z';
    for (i = 0; i < sizeof g_mega_clean - 1; i++) g_mega_clean[i] = (char)('a' + i % 26);
    for (i = 0; i < 3; i++) {
        size_t n = i == 0 ? 95 : i == 1 ? 140 : 399;
        memset(g_long[i], 'L', n);
        g_long[i][n / 2] = '"';
        g_long[i][n] = 0;
    }
    g_names[11] = g_long[0];
    g_names[12] = g_long[1];
    g_names[13] = g_long[2];
    g_names[14] = g_mega;
    g_names[15] = g_mega_clean;
}
#define N_NAMES (sizeof g_names / sizeof g_names[0])

static void hostile(size_t n, size_t names) { /* names: the first of g_names (the megabyte ones last) */
    prof_events *ev = prof_events_create();
    size_t i;
    int64_t t = 1000;
    char what[64];
    for (i = 0; i < n; i++) {
        const char *stk[3];
        prof_event_desc d;
        int64_t shape_dims[3] = { 2, 3, 4 };
        int nd[2] = { 2, 1 };
        memset(&d, 0, sizeof d);
        stk[0] = g_names[(i + 1) % names];
        stk[1] = g_names[(i + 5) % names];
        stk[2] = g_names[(i * 7) % names];
        d.name = g_names[i % names];
        d.thread = 1 + i % 3;
        d.start_ns = t;
        d.end_ns = t + 5000;
        d.stack = stk;
        d.stack_depth = (int)(i % 4);
        if (i % 5 == 1) d.trace_name = g_names[(i + 3) % names];
        if (i % 7 == 2) d.overload_name = g_names[(i + 2) % names];
        if (i % 3 == 0) { d.set |= PROF_EVENT_SHAPES; d.input_shapes.n_inputs = 2; d.input_shapes.ndims = nd; d.input_shapes.dims = shape_dims; }
        if (i % 4 == 0) { d.set |= PROF_EVENT_SEQUENCE_NR; d.sequence_nr = (int64_t)i; }
        if (i % 6 == 0) d.flops = (int64_t)i * 1000;
        if (prof_events_add(ev, &d) < 0) { fprintf(stderr, "prof_events_add: %s\n", prof_last_error()); exit(1); }
        if (i % 3 == 2) t += 5000; /* three threads' events side by side, back to back on each */
    }
    prof_events_add_metadata(ev, "hostile \"key\"\x01", g_names[2]);
    prof_events_add_metadata_json(ev, "json", "{\"a\": [1, 2]}");
    snprintf(what, sizeof what, "hostile %zu/%zu", n, names);
    compare(what, ev);
    prof_events_free(ev);
}

/* Events that touch (back to back, ending with their parent), of length 0,
   far from 0 (past 2^46 and 2^50 ns, past 10^16), negative, crossing 10^8;
   reps copies of the pattern, each `step` later. */
static void timing(const char *what, int64_t base, int64_t step, size_t reps, int overlap_at) {
    static const char *const stk[2] = { "inner frame", "outer frame" };
    prof_events *ev = prof_events_create();
    size_t r;
    for (r = 0; r < reps; r++) {
        int64_t t = base + (int64_t)r * step;
        add(ev, "top", 1, t, t + 100, NULL, 0);
        add(ev, "child a", 1, t, t + 40, stk, 2);
        add(ev, "grandchild", 1, t + 10, t + 40, stk, 1);
        add(ev, "child b", 1, t + 40, t + 100, NULL, 0);
        add(ev, "zero", 1, t + 100, t + 100, NULL, 0);
        add(ev, "next top", 1, t + 100, t + 160, NULL, 0);
        add(ev, "other thread", 2, t + 5, t + 160, NULL, 0);
        add(ev, "other thread next", 2, t + 160, t + 170, NULL, 0);
        if ((int)r == overlap_at) add(ev, "overlaps", 1, t + 150, t + 190, NULL, 0);
    }
    compare(what, ev);
    prof_events_free(ev);
}

/* A list added last event first (not in start order). */
static void reversed(void) {
    prof_events *ev = prof_events_create();
    int64_t k;
    for (k = 999; k >= 0; k--) {
        add(ev, k % 2 ? "odd" : "even", 1 + (uint64_t)(k % 2), k * 100, k * 100 + 100, NULL, 0);
        add(ev, "inner", 1 + (uint64_t)(k % 2), k * 100 + 10, k * 100 + 90, NULL, 0);
    }
    compare("reversed", ev);
    prof_events_free(ev);
}

/* Device events, kernels, async and user-annotation events, memory. */
static void device(void) {
    prof_events *ev = prof_events_create();
    int k;
    prof_events_set_device(ev, "cuda");
    for (k = 0; k < 300; k++) {
        prof_event_desc d;
        int64_t i;
        memset(&d, 0, sizeof d);
        d.name = k % 3 ? "aten::mm" : "cudaLaunchKernel";
        d.thread = 1;
        d.start_ns = (int64_t)k * 1000;
        d.end_ns = (int64_t)k * 1000 + 900;
        i = prof_events_add(ev, &d);
        if (i >= 0 && k % 2) prof_events_append_kernel(ev, (size_t)i, "kernel \"k\"", k % 2, 500);
        memset(&d, 0, sizeof d);
        d.name = k % 4 ? "gpu work" : "async range";
        d.thread = 1;
        d.start_ns = (int64_t)k * 1000 + 100;
        d.end_ns = (int64_t)k * 1000 + 1100;
        d.device_type = PROF_DEVICE_CUDA;
        d.device_index = k % 2;
        d.device_resource_id = 7 + k % 3;
        d.set = PROF_EVENT_RESOURCE_ID | (k % 4 ? 0 : PROF_EVENT_ASYNC) | (k % 5 ? 0 : PROF_EVENT_USER_ANNOTATION);
        prof_events_add(ev, &d);
        memset(&d, 0, sizeof d);
        d.name = "cpu async";
        d.thread = 2;
        d.start_ns = (int64_t)k * 1000;
        d.end_ns = (int64_t)k * 1000 + 2500;
        d.set = k % 9 ? 0 : PROF_EVENT_ASYNC;
        prof_events_add(ev, &d);
        prof_events_add_memory(ev, 1, (int64_t)k * 1000 + 50, 4096, PROF_DEVICE_CPU, 0);
        prof_events_add_memory(ev, 3, (int64_t)k * 1000 + 60, -4096, k % 2 ? PROF_DEVICE_CUDA : PROF_DEVICE_CPU, k % 2);
    }
    compare("device", ev);
    prof_events_free(ev);
}

/* A recorded session: marks, counters, async ranges, memory, named threads,
   scope stacks, shapes and FLOPs. */
static void *rec_thread(void *arg) {
    int k;
    (void)arg;
    prof_set_thread_name("worker \"two\"\x01");
    for (k = 0; k < 2000; k++) {
        PROF_SCOPE("worker scope");
        { PROF_SCOPE_DYN(k % 2 ? "dyn \xff name" : "dyn name"); PROF_COUNTER("q\"ueue", (double)k * 0.5); }
    }
    return NULL;
}
static void recorded(void) {
    prof_config c;
    prof_events *ev;
    pthread_t th;
    int k;
    memset(&c, 0, sizeof c);
    c.profile_memory = 1;
    c.with_stack = PROF_STACK_SCOPES;
    c.record_shapes = 1;
    c.with_flops = 1;
    if (prof_start(&c) != PROF_OK) { fprintf(stderr, "prof_start: %s\n", prof_last_error()); exit(1); }
    pthread_create(&th, NULL, rec_thread, NULL);
    for (k = 0; k < 3000; k++) {
        PROF_SCOPE("outer");
        if (k % 100 == 0) PROF_ASYNC_BEGIN("async \"a\"", k);
        {
            PROF_SCOPE_FLOPS("mm", (int64_t)k);
            void *p = prof_malloc(64 + (size_t)k);
            PROF_MARK("mark \x01");
            prof_free(p);
        }
        if (k % 100 == 50) PROF_ASYNC_END(k - 50);
        PROF_COUNTER("counter", (double)k);
    }
    pthread_join(th, NULL);
    if (!(ev = prof_stop())) { fprintf(stderr, "prof_stop: %s\n", prof_last_error()); exit(1); }
    prof_events_build_tree(ev);
    compare("recorded", ev);
    prof_events_free(ev);
}

int main(int argc, char **argv) {
    if (argc > 1) g_path = argv[1];
    hostile_init();
    workloads();
    hostile(20, N_NAMES);
    hostile(40000, N_NAMES - 2);
    timing("touch small", 0, 200, 50, -1);
    timing("touch 1e8", 99999000, 200, 50, -1);
    timing("touch 2^46", ((int64_t)1 << 46) - 5000, 200, 50, -1);
    timing("touch 2^50", ((int64_t)1 << 50) - 5000, 200, 50, -1);
    timing("touch 1e16", 10000000000000000 - 5000, 200, 50, -1);
    timing("touch unix", 1764700000000000000, 200, 50, -1);
    timing("touch negative", -15000, 200, 100, -1);
    timing("touch big", 123456789, 300, 9000, -1);
    timing("touch big overlap late", 123456789, 300, 9000, 8500);
    timing("touch big overlap early", 123456789, 300, 9000, 3);
    timing("touch small overlap", 0, 200, 50, 20);
    reversed();
    device();
    recorded();
    printf("same: %d traces, different: %d\n", g_same, g_diff);
    return g_diff ? 1 : 0;
}
