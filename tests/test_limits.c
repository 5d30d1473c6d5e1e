/* test_limits.c - arithmetic at the limits: every growth and size
   computation refuses a size it cannot represent (the list stays whole),
   and the FLOP helpers count exactly, stop at INT64_MAX and give 0 for a
   negative dimension.

   Once, prof_events_reserve(ev, SIZE_MAX) never returned (the capacity
   doubled until it wrapped to 0), a count from 2^61 made the doubled size
   wrap to 0 bytes, so realloc(p, 0) freed the array that was then used and
   freed again, and the FLOP helpers overflowed int64 (UBSan aborts). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <sys/stat.h>
#include <limits.h>

static int64_t add(prof_events *ev, const char *name, int64_t start, int64_t end) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = start;
    d.end_ns = end;
    return prof_events_add(ev, &d);
}

/* The list after a refused request is the list before it. */
static void check_list_whole(prof_events *ev) {
    prof_event e;
    CHECK_EQ_INT(prof_events_count(ev), 2);
    if (CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK)) {
        CHECK_EQ_STR(e.name, "outer");
        CHECK_EQ_INT(e.self_cpu_time_total_ns, 700);
    }
    if (CHECK_EQ_INT(prof_events_get(ev, 1, &e), PROF_OK)) CHECK_EQ_STR(e.name, "inner");
}

static void test_reserve_huge(void) {
    static const size_t huge[] = { SIZE_MAX, SIZE_MAX / 2 + 1, (size_t)1 << 61, (size_t)1 << 60, (size_t)INT32_MAX + 1 };
    prof_events *ev = prof_events_create();
    size_t i;
    if (!CHECK(ev != NULL)) return;
    CHECK(add(ev, "outer", 0, 1000) == 0);
    CHECK(add(ev, "inner", 100, 400) == 1);
    check_list_whole(ev);
    for (i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        prof_result r;
        check_log_reset();
        r = prof_events_reserve(ev, huge[i]); /* returns at once */
        CHECK_MSG(r == PROF_E_ARG, "reserve(%zu) gave %d", huge[i], (int)r);
        CHECK(check_log_has(PROF_E_ARG, "prof_events_reserve"));
        check_list_whole(ev);
    }
    CHECK_EQ_INT(prof_events_reserve(ev, 1000), PROF_OK);
    CHECK(add(ev, "later", 2000, 2500) == 2);
    CHECK_EQ_INT(prof_events_count(ev), 3);
    prof_events_free(ev);
}

/* The shared machinery, called directly with sizes no caller can reach
   today, so a new caller cannot bring the wrap back. */
static void test_grow_refuses(void) {
    static const size_t need[] = { SIZE_MAX, (size_t)1 << 61, (size_t)1 << 60, (size_t)PTRDIFF_MAX / 56 + 1 };
    size_t i, cap = 0;
    char *p = NULL;
    CHECK(prof__grow((void **)&p, &cap, 10, 56));
    if (!CHECK(p != NULL)) return;
    CHECK_EQ_INT(cap, 16);
    memset(p, 'x', 16 * 56);
    for (i = 0; i < sizeof need / sizeof need[0]; i++) {
        char *before = p;
        CHECK_MSG(!prof__grow((void **)&p, &cap, need[i], 56), "grow to %zu x 56 bytes succeeded", need[i]);
        CHECK(p == before); /* not freed, not moved */
        CHECK_EQ_INT(cap, 16);
    }
    CHECK(p[16 * 56 - 1] == 'x');
    free(p);

    /* element counts whose byte size wraps: (SIZE_MAX / 8 + 2) * 8 is 8 */
    CHECK(prof__malloc_n(SIZE_MAX / 8 + 2, 8) == NULL);
    CHECK(PROF__ALLOC(uint64_t, SIZE_MAX / 8 + 2) == NULL);
    CHECK(PROF__ALLOC(int64_t, -1) == NULL);
    {
        prof__arena a;
        void *q;
        memset(&a, 0, sizeof a);
        CHECK(prof__arena_alloc(&a, SIZE_MAX) == NULL); /* rounded up to 8, it was 0 */
        CHECK(prof__arena_alloc(&a, SIZE_MAX - 6) == NULL);
        CHECK(a.head == NULL);
        q = prof__arena_alloc(&a, 24);
        CHECK(q != NULL);
        prof__arena_free(&a);
    }
    {
        prof__buf b;
        memset(&b, 0, sizeof b);
        prof__buf_str(&b, "ab");
        prof__buf_put(&b, "c", SIZE_MAX - 1); /* n + len + 1 wrapped to 2 bytes */
        CHECK(b.oom);
        CHECK_EQ_INT(b.n, 2);
        CHECK_EQ_STR(b.p, "ab");
        free(b.p);
    }
}

/* An allocation of more than INT64_MAX bytes (a size_t the caller passes)
   counts as INT64_MAX, not as a free of 1 byte; sums stop at the limit. */
static void test_alloc_huge(void) {
    prof_config cfg;
    prof_events *ev;
    int64_t i;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    {
        PROF_SCOPE("one");
        prof_alloc((const void *)0x1000, SIZE_MAX);
    }
    {
        PROF_SCOPE("two");
        prof_alloc((const void *)0x2000, (size_t)INT64_MAX);
        prof_alloc((const void *)0x3000, 5);
    }
    prof_dealloc((const void *)0x1000);
    prof_dealloc((const void *)0x2000);
    prof_dealloc((const void *)0x3000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    for (i = 0; i < (int64_t)prof_events_count(ev); i++) {
        prof_event e;
        if (!CHECK_EQ_INT(prof_events_get(ev, (size_t)i, &e), PROF_OK)) continue;
        if (strcmp(e.name, "one") == 0) CHECK_EQ_INT(e.cpu_memory_usage, INT64_MAX);
        if (strcmp(e.name, "two") == 0) CHECK_EQ_INT(e.cpu_memory_usage, INT64_MAX);
    }
    prof_events_free(ev);
}

/* A thread's name is copied whole, whatever its length (it was cut to 63
   bytes): prof_event.thread_name shows it byte for byte. */
static const char *name_seen(const char *name) {
    static char got[256];
    prof_config cfg;
    prof_events *ev;
    prof_event e;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    got[0] = 0;
    prof_set_thread_name(name);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return got;
    { PROF_SCOPE("named"); }
    ev = prof_stop();
    if (CHECK(ev != NULL) && CHECK_EQ_INT(prof_events_count(ev), 1) && CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK) && CHECK(e.thread_name != NULL))
        snprintf(got, sizeof got, "%s", e.thread_name);
    prof_events_free(ev);
    return got;
}
static void test_thread_name_whole(void) {
    char name[201];
    size_t len;
    for (len = 62; len <= 200; len = len < 66 ? len + 1 : len + 67) {
        size_t i;
        for (i = 0; i < len; i++) name[i] = (char)('a' + (i * 7 + len) % 26);
        name[len] = 0;
        CHECK_EQ_STR(name_seen(name), name);
    }
    prof_set_thread_name(NULL);
}

/* ------------------------------------------------------------------ FLOPs */
static void test_flops_exact(void) {
    /* values from PyTorch 1.13's profiler (with_flops=True) on the same
       shapes: aten::mm [3,4]x[4,5] 120, aten::addmm 120, aten::bmm
       [6,3,4]x[6,4,5] 720, aten::conv2d [2,8,5,7] * [16,2,3,3] with
       groups=4 and padding=1 (output 5x7) 40320, and without padding
       (output 3x5) 17280 */
    static const int64_t x[4] = { 2, 8, 5, 7 }, w[4] = { 16, 2, 3, 3 }, x_out[4] = { 2, 8, 3, 5 };
    static const int64_t w1[4] = { 16, 8, 3, 3 }; /* groups=1: C_in whole */
    CHECK_EQ_INT(prof_flops_matmul(3, 4, 5), 120);
    CHECK_EQ_INT(prof_flops_addmm(3, 4, 5), 120);
    CHECK_EQ_INT(prof_flops_bmm(6, 3, 4, 5), 720);
    CHECK_EQ_INT(prof_flops_conv2d(x, w), 40320);
    CHECK_EQ_INT(prof_flops_conv2d(x_out, w), 17280);
    CHECK_EQ_INT(prof_flops_conv2d(x, w1), 161280); /* 4x the grouped count */
    CHECK_EQ_INT(prof_flops_matmul(1, 1, 1), 2);
    CHECK_EQ_INT(prof_flops_matmul(7, 11, 13), 2002);
    CHECK_EQ_INT(prof_flops_bmm(2, 7, 11, 13), 4004);
    CHECK_EQ_INT(prof_flops_matmul(0, 4, 5), 0);
    CHECK_EQ_INT(prof_flops_bmm(0, (int64_t)1 << 40, (int64_t)1 << 40, 1), 0); /* a zero wins over an overflow */
}

static void test_flops_saturate(void) {
    static const int64_t big[4] = { (int64_t)1 << 20, (int64_t)1 << 20, (int64_t)1 << 20, (int64_t)1 << 20 };
    static const int64_t one[4] = { 1, 1, 1, 1 }, exact_w[4] = { (int64_t)1 << 61, 1, 1, 1 }, edge_w[4] = { (int64_t)1 << 61, 1, 1, 2 };
    /* the largest exact count, 2 * (2^62 - 1) = 2^63 - 2 (2^62 - 1 =
       3 * 715827883 * 2147483647), and the first products past INT64_MAX */
    CHECK_EQ_INT(prof_flops_matmul(3, 715827883, 2147483647), INT64_MAX - 1);
    CHECK_EQ_INT(prof_flops_bmm(1, 3, 715827883, 2147483647), INT64_MAX - 1);
    CHECK_EQ_INT(prof_flops_matmul((int64_t)1 << 31, (int64_t)1 << 31, 1), INT64_MAX); /* 2^63 */
    CHECK_EQ_INT(prof_flops_matmul(INT64_MAX, INT64_MAX, INT64_MAX), INT64_MAX);
    CHECK_EQ_INT(prof_flops_addmm(INT64_MAX, 2, 1), INT64_MAX);
    CHECK_EQ_INT(prof_flops_bmm((int64_t)1 << 16, (int64_t)1 << 16, (int64_t)1 << 16, (int64_t)1 << 16), INT64_MAX);
    CHECK_EQ_INT(prof_flops_bmm(3, (int64_t)1 << 20, (int64_t)1 << 20, (int64_t)1 << 20), (int64_t)3 << 61);
    CHECK_EQ_INT(prof_flops_conv2d(big, big), INT64_MAX);
    CHECK_EQ_INT(prof_flops_conv2d(one, exact_w), (int64_t)1 << 62);
    CHECK_EQ_INT(prof_flops_conv2d(one, edge_w), INT64_MAX); /* 2 * 2^61 * 2 = 2^63 */
}

static void test_flops_invalid(void) {
    static const int64_t x[4] = { 2, 8, 5, 7 }, w[4] = { 16, 2, 3, 3 }, neg[4] = { 16, 2, -3, 3 };
    CHECK_EQ_INT(prof_flops_matmul(-3, 4, 5), 0);
    CHECK_EQ_INT(prof_flops_matmul(-3, -4, 5), 0); /* two negatives are not a positive count */
    CHECK_EQ_INT(prof_flops_matmul(INT64_MIN, -1, 1), 0);
    CHECK_EQ_INT(prof_flops_addmm(3, 4, -5), 0);
    CHECK_EQ_INT(prof_flops_bmm(-1, 3, 4, 5), 0);
    CHECK_EQ_INT(prof_flops_bmm(6, 3, -4, -5), 0);
    CHECK_EQ_INT(prof_flops_conv2d(x, neg), 0);
    { /* x's C_in does not enter the count (w's C_in/groups does), but a
         negative one is still no shape: it gave 9216 */
        static const int64_t neg_cin[4] = { 1, -4, 8, 8 }, w3[4] = { 16, 2, 3, 3 };
        CHECK_EQ_INT(prof_flops_conv2d(neg_cin, w3), 0);
    }
    CHECK_EQ_INT(prof_flops_conv2d(NULL, w), 0);
    CHECK_EQ_INT(prof_flops_conv2d(x, NULL), 0);
}

/* The keyed lookup every interning caller uses: keys whose hashes are all
   equal (the worst case) are still told apart by their content, across the
   map's growth; a miss is a miss. */
static const char *const *map_words;
static int word_same(const void *key, uint32_t v) { return strcmp(map_words[v], (const char *)key) == 0; }
static void test_keyed_map_collisions(void) {
    enum { N = 300 };
    static char words[N][16];
    static const char *ptrs[N];
    prof__map m;
    uint32_t i;
    memset(&m, 0, sizeof m);
    map_words = ptrs;
    for (i = 0; i < N; i++) {
        snprintf(words[i], sizeof words[i], "w%u", (unsigned)i);
        ptrs[i] = words[i];
        CHECK(prof__map_find(&m, 42, word_same, words[i]) == UINT32_MAX);
        CHECK(prof__map_add(&m, i % 3 ? 42 : 7, i));
    }
    CHECK_EQ_INT(m.n, N);
    for (i = 0; i < N; i++) CHECK_EQ_INT(prof__map_find(&m, i % 3 ? 42 : 7, word_same, words[i]), i);
    CHECK(prof__map_find(&m, 42, word_same, "w0") == UINT32_MAX); /* its hash is 7 */
    CHECK(prof__map_find(&m, 42, word_same, "absent") == UINT32_MAX);
    prof__map_free(&m);
    CHECK(prof__map_find(&m, 42, word_same, "w1") == UINT32_MAX); /* an empty map */
}

/* Interned strings are equal by content and length, whatever their bytes:
   a string and the same one with a NUL and more after it are two strings. */
static void test_intern_exact(void) {
    prof__arena arena;
    prof__strtab t;
    const char *a, *b, *c, *d;
    memset(&arena, 0, sizeof arena);
    memset(&t, 0, sizeof t);
    t.arena = &arena;
    a = prof__intern_n(&t, "ab\0cd", 5);
    b = prof__intern_n(&t, "ab\0ce", 5);
    c = prof__intern_n(&t, "ab", 2);
    d = prof__intern_n(&t, "ab\0cd", 5);
    CHECK(a && b && c && d);
    CHECK(a != b && a != c && b != c);
    CHECK(a == d);
    CHECK_EQ_INT(t.n, 3);
    prof__strtab_free(&t);
    prof__arena_free(&arena);
}

/* A NULL metric is the default one, self_cpu_time_total, as the manual
   says for prof_report's stacks_metric and PyTorch's export_stacks (it was
   PROF_E_UNKNOWN_KEY for prof_export_pprof and the stacks): the files equal
   those of the named metric. */
static void test_null_metric(void) {
    static const char *const st_outer[] = { "outer (a.c:3)" };
    static const char *const st_inner[] = { "inner (a.c:4)", "outer (a.c:3)" };
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    int k;
    if (!CHECK(ev != NULL)) return;
    memset(&d, 0, sizeof d);
    d.name = "outer"; d.thread = 1; d.start_ns = 0; d.end_ns = 9000;
    d.file = "a.c"; d.line = 3;
    d.stack = st_outer; d.stack_depth = 1;
    CHECK(prof_events_add(ev, &d) >= 0);
    d.name = "inner"; d.start_ns = 1000; d.end_ns = 3000; d.line = 4;
    d.stack = st_inner; d.stack_depth = 2;
    CHECK(prof_events_add(ev, &d) >= 0);
    prof_events_set_flags(ev, 0, 0);
    (void)mkdir("build", 0755);
    for (k = 0; k < 3; k++) {
        static const char *const named[3] = { "build/limits_metric.pb", "build/limits_metric.stacks", "build/limits_metric.merged" };
        static const char *const dflt[3] = { "build/limits_null.pb", "build/limits_null.stacks", "build/limits_null.merged" };
        prof_result r1 = k == 0 ? prof_export_pprof(ev, named[k], "self_cpu_time_total")
                       : k == 1 ? prof_export_stacks(ev, named[k], "self_cpu_time_total")
                                : prof_export_stacks_merged(ev, named[k], "self_cpu_time_total");
        prof_result r2 = k == 0 ? prof_export_pprof(ev, dflt[k], NULL)
                       : k == 1 ? prof_export_stacks(ev, dflt[k], NULL)
                                : prof_export_stacks_merged(ev, dflt[k], NULL);
        size_t na = 0, nb = 0;
        char *a, *b;
        CHECK_EQ_INT(r1, PROF_OK);
        CHECK_MSG(r2 == PROF_OK, "export %d with a NULL metric: %s", k, prof_result_string(r2));
        a = check_read_file_n(named[k], &na);
        b = check_read_file_n(dflt[k], &nb);
        CHECK(a != NULL && b != NULL && na > 0);
        CHECK_MSG(a && b && na == nb && memcmp(a, b, na) == 0, "export %d: NULL metric wrote another file", k);
        free(a);
        free(b);
    }
    prof_events_free(ev);
}

/* A kernel of negative duration is refused (PROF_E_ARG) and the event keeps
   its device time: it was accepted and subtracted from it. */
static void test_kernel_negative(void) {
    prof_events *ev = prof_events_create();
    prof_event e;
    int64_t i;
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);
    i = add(ev, "op", 0, 100);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)i, "k", 0, 40), PROF_OK);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)i, "neg", 0, -5), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)i, "min", 0, INT64_MIN), PROF_E_ARG);
    /* a device index 0-63, as for memory records (any int was taken, a
       negative one written as a pid); a NULL list said as such */
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)i, "dev", -1, 40), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)i, "dev", 64, 40), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)i, "dev", INT_MIN, 40), PROF_E_ARG);
    CHECK(check_log_has(PROF_E_ARG, "device 64 is not a device index 0-63"));
    CHECK_EQ_INT(prof_events_append_kernel(NULL, 0, "k", 0, 40), PROF_E_ARG);
    CHECK(check_log_has(PROF_E_ARG, "prof_events_append_kernel: the event list is NULL"));
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)i, "k63", 63, 1), PROF_OK);
    if (CHECK_EQ_INT(prof_events_get(ev, (size_t)i, &e), PROF_OK)) {
        CHECK_EQ_INT(e.n_kernels, 2);
        CHECK_EQ_INT(e.device_time_total_ns, 41);
    }
    prof_events_free(ev);
}

/* The memory timeline's live bytes are exact sums (Python's, PyTorch's
   are unbounded): past INT64_MAX they are written whole, and the frees
   after bring them back down to exactly 0 (they stopped at INT64_MAX, so
   the same frees ended at -INT64_MAX, negative memory). */
static void test_timeline_exact(void) {
    char *got;
    prof_events *ev = prof_events_create();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 1000, INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 2000, INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 3000, INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 4000, -INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 5000, -INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 6000, -INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 7000, INT64_MIN, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 8000, INT64_MIN, PROF_DEVICE_CPU, 0), PROF_OK);
    (void)mkdir("build", 0755);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/limits_timeline.json", PROF_DEVICE_CPU, 0), PROF_OK);
    if (CHECK((got = check_read_file("build/limits_timeline.json")) != NULL))
        CHECK_EQ_STR(got, "[[1.000, 2.000, 3.000, 4.000, 5.000, 6.000, 7.000, 8.000], "
                          "[[9223372036854775807], [18446744073709551614], [27670116110564327421], "
                          "[18446744073709551614], [9223372036854775807], [0], "
                          "[-9223372036854775808], [-18446744073709551616]]]\n");
    free(got);
    prof_events_free(ev);
}

/* prof_events_add refuses a description it would read past the end of, or
   change silently, with PROF_E_ARG and a message that names the field; the
   list is as before. Once, stack NULL with stack_depth 3 was taken as no
   stack, ndims NULL with n_inputs 2 printed "[[], []]", dims NULL with
   ndims {2} crashed, device type 300 became 44 (uint8) and -1 became 255,
   and scope 257 became 1 (a backward function). A NULL frame in a stack
   is accepted as an empty frame. */
static void test_add_refuses(void) {
    static const char *const frames[] = { "inner.c(1): f", NULL };
    static const int ndims2[] = { 2 }, ndims_neg[] = { -1 }, ndims0[] = { 0 };
    static const int64_t dims2[] = { 3, 4 };
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    int k;
    if (!CHECK(ev != NULL)) return;
    CHECK(add(ev, "outer", 0, 1000) == 0);
    CHECK(add(ev, "inner", 100, 400) == 1);
    for (k = 0; k < 10; k++) {
        const char *what = "";
        memset(&d, 0, sizeof d);
        d.name = "bad";
        d.thread = 77;
        d.start_ns = 2000;
        d.end_ns = 3000;
        switch (k) {
        case 0: d.stack = NULL; d.stack_depth = 3; what = "NULL stack"; break;
        case 1: d.stack = frames; d.stack_depth = -1; what = "stack_depth -1"; break;
        case 2: d.set = PROF_EVENT_SHAPES; d.input_shapes.n_inputs = 2; what = "ndims NULL"; break;
        case 3: d.set = PROF_EVENT_SHAPES; d.input_shapes.n_inputs = 1; d.input_shapes.ndims = ndims2; what = "dims is NULL"; break;
        case 4: d.set = PROF_EVENT_SHAPES; d.input_shapes.n_inputs = -1; d.input_shapes.ndims = ndims2; d.input_shapes.dims = dims2; what = "cannot be negative"; break;
        case 5: d.set = PROF_EVENT_SHAPES; d.input_shapes.n_inputs = 1; d.input_shapes.ndims = ndims_neg; d.input_shapes.dims = dims2; what = "has -1 dims"; break;
        case 6: d.device_type = (prof_device_type)32; what = "device type 32"; break;
        case 7: d.device_type = (prof_device_type)-1; what = "device type -1"; break;
        case 8: d.scope = 257; what = "scope 257"; break;
        default: d.scope = -1; what = "scope -1"; break;
        }
        check_log_reset();
        CHECK_MSG(prof_events_add(ev, &d) == -1, "case %d (%s) was accepted", k, what);
        CHECK_MSG(check_log_count(PROF_E_ARG) == 1 && check_log_has(PROF_E_ARG, what) && check_log_has(PROF_E_ARG, "'bad'"), "case %d: no PROF_E_ARG message with '%s'", k, what);
        check_list_whole(ev);
    }
    /* the limits themselves are accepted: another backend's device type,
       depth 0 with a NULL stack, shapes of 0 inputs with NULL arrays, an
       input of 0 dims with dims NULL */
    memset(&d, 0, sizeof d);
    d.name = "ok";
    d.thread = 1;
    d.start_ns = 2000;
    d.end_ns = 2500;
    d.device_type = (prof_device_type)31;
    d.scope = 255;
    CHECK(prof_events_add(ev, &d) == 2);
    d.device_type = PROF_DEVICE_CPU;
    d.set = PROF_EVENT_SHAPES;
    d.thread = 3; /* one thread each: nested events of one name would merge */
    CHECK(prof_events_add(ev, &d) == 3);
    d.thread = 4;
    d.input_shapes.n_inputs = 1;
    d.input_shapes.ndims = ndims0;
    CHECK(prof_events_add(ev, &d) == 4);
    d.input_shapes.ndims = ndims2;
    d.input_shapes.dims = dims2;
    d.thread = 5;
    d.stack = frames;
    d.stack_depth = 1;
    if (CHECK(prof_events_add(ev, &d) == 5)) {
        prof_event e;
        if (CHECK_EQ_INT(prof_events_get(ev, 5, &e), PROF_OK)) {
            CHECK_EQ_STR(e.input_shapes, "[[3, 4]]");
            CHECK_EQ_INT(e.stack_depth, 1);
        }
        if (CHECK_EQ_INT(prof_events_get(ev, 4, &e), PROF_OK)) CHECK_EQ_STR(e.input_shapes, "[[]]");
        if (CHECK_EQ_INT(prof_events_get(ev, 3, &e), PROF_OK)) CHECK_EQ_STR(e.input_shapes, "[]");
        if (CHECK_EQ_INT(prof_events_get(ev, 2, &e), PROF_OK)) CHECK_EQ_INT((int)e.device_type, 31);
    }
    /* a NULL frame is an empty one (test_export's "empty frames") */
    d.set = 0;
    d.thread = 6;
    d.stack_depth = 2;
    if (CHECK(prof_events_add(ev, &d) == 6)) {
        prof_event e;
        if (CHECK_EQ_INT(prof_events_get(ev, 6, &e), PROF_OK) && CHECK_EQ_INT(e.stack_depth, 2)) CHECK_EQ_STR(e.stack[1], "");
    }
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    test_keyed_map_collisions();
    test_intern_exact();
    test_reserve_huge();
    test_grow_refuses();
    test_alloc_huge();
    test_thread_name_whole();
    test_flops_exact();
    test_flops_saturate();
    test_flops_invalid();
    test_null_metric();
    test_kernel_negative();
    test_timeline_exact();
    test_add_refuses();
    return check_report();
}
