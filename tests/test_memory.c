/* test_memory.c - memory records charged to events, with the clock under
   the test's control (prof_events_add_memory puts a record at an exact
   nanosecond):

   - PyTorch's interval includes both ends: a record at an event's start
     or end is the event's; one a nanosecond outside is not;
   - a record that no CPU event of any thread holds is a "[memory]" event
     of its own (top level, no duration, its bytes), as PyTorch shows it;
     a record another thread's event holds is charged to no event and
     makes no row (prof.h charges by thread, PyTorch by time);
   - the rows are remade with the tree: an event added later that holds a
     record takes it from its row;
   - recorded: prof_alloc outside every scope gives [memory] rows;
   - as PyTorch 1.13 (compared with its classes fed the same events): a
     device event holds no record, so a record in its time on its thread
     is a [memory] row, not the device event's memory counted twice; a
     [memory] row is an event of the list for _set_backward_stacktraces
     (sequence_nr -1, stack []), so a backward function with sequence_nr
     -1 whose forward thread has a row first gets []; and the first
     prof_events_get reads the rows the tree makes. */
#include "prof.h"
#include "check.h"

static int64_t add(prof_events *ev, const char *name, uint64_t thread, int64_t start, int64_t end) {
    prof_event_desc d;
    int64_t i;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = thread;
    d.start_ns = start;
    d.end_ns = end;
    i = prof_events_add(ev, &d);
    CHECK_MSG(i >= 0, "prof_events_add(%s) failed: %s", name, prof_last_error());
    return i;
}
static prof_event get(prof_events *ev, size_t i) {
    prof_event e;
    memset(&e, 0, sizeof e);
    CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK);
    return e;
}
static int64_t find(prof_events *ev, const char *name) {
    size_t i;
    for (i = 0; i < prof_events_count(ev); i++)
        if (strcmp(get(ev, i).name, name) == 0) return (int64_t)i;
    return -1;
}
static void mem(prof_events *ev, uint64_t thread, int64_t ts, int64_t bytes) {
    CHECK_EQ_INT(prof_events_add_memory(ev, thread, ts, bytes, PROF_DEVICE_CPU, 0), PROF_OK);
}

/* Bytes are powers of two, so each sum names the records in it. */
static void test_interval_ends(void) {
    prof_events *ev = prof_events_create();
    prof_event a, b;
    if (!CHECK(ev != NULL)) return;
    add(ev, "A", 1, 1000, 2000);
    add(ev, "B", 1, 1200, 1500);
    mem(ev, 1, 1000, 1);    /* A's start: A's */
    mem(ev, 1, 2000, 2);    /* A's end: A's */
    mem(ev, 1, 1200, 4);    /* B's start: B's and A's */
    mem(ev, 1, 1500, 8);    /* B's end: B's and A's */
    mem(ev, 1, 1199, 16);   /* just before B: A's only */
    mem(ev, 1, 1501, 32);   /* just after B: A's only */
    mem(ev, 1, 999, 64);    /* before A: nobody's */
    mem(ev, 1, 2001, 128);  /* after A: nobody's */
    a = get(ev, (size_t)find(ev, "A"));
    b = get(ev, (size_t)find(ev, "B"));
    CHECK_EQ_INT(a.cpu_memory_usage, 1 + 2 + 4 + 8 + 16 + 32);
    CHECK_EQ_INT(a.self_cpu_memory_usage, 1 + 2 + 16 + 32);
    CHECK_EQ_INT(b.cpu_memory_usage, 4 + 8);
    CHECK_EQ_INT(b.self_cpu_memory_usage, 4 + 8);
    CHECK_EQ_INT(a.device_memory_usage, 0);
    prof_events_free(ev);
}

/* A zero-length event holds a record at its one instant. */
static void test_zero_length_event(void) {
    prof_events *ev = prof_events_create();
    if (!CHECK(ev != NULL)) return;
    add(ev, "Z", 1, 500, 500);
    mem(ev, 1, 500, 7);
    mem(ev, 1, 501, 1);
    CHECK_EQ_INT(get(ev, (size_t)find(ev, "Z")).cpu_memory_usage, 7);
    CHECK_EQ_INT(prof_events_count(ev), 2); /* Z and the row of 501 */
    prof_events_free(ev);
}

static void test_memory_rows(void) {
    prof_events *ev = prof_events_create();
    prof_event r;
    prof_stats st;
    if (!CHECK(ev != NULL)) return;
    add(ev, "A", 1, 1000, 2000);
    add(ev, "C", 1, 3000, 4000);
    add(ev, "T2", 2, 5000, 6000);
    mem(ev, 1, 999, 64);     /* before everything: row 0 */
    mem(ev, 1, 2001, 128);   /* between A and C */
    mem(ev, 2, 2500, -32);   /* a free, on thread 2, between A and C */
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 2600, 4096, PROF_DEVICE_CUDA, 1), PROF_OK); /* device memory */
    mem(ev, 1, 5500, 9);     /* T2 (thread 2) is open: charged to nobody, no row */
    mem(ev, 3, 7000, 5);     /* after everything, a new thread */
    CHECK_EQ_INT(prof_events_count(ev), 3 + 5); /* the rows come with the tree, which the count builds */
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK_EQ_INT(prof_events_count(ev), 3 + 5);
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.events, 3); /* rows are not recorded events */
    {
        static const char *const order[] = { "[memory]", "A", "[memory]", "[memory]", "[memory]", "C", "T2", "[memory]" };
        static const int64_t at[] = { 999, 1000, 2001, 2500, 2600, 3000, 5000, 7000 };
        size_t i;
        for (i = 0; i < 8; i++) {
            r = get(ev, i);
            CHECK_EQ_STR(r.name, order[i]);
            CHECK_EQ_INT(r.start_ns, at[i]);
        }
    }
    r = get(ev, 0);
    CHECK_EQ_INT(r.end_ns, 999);
    CHECK_EQ_INT(r.thread, 1);
    CHECK_EQ_INT(r.cpu_memory_usage, 64);
    CHECK_EQ_INT(r.self_cpu_memory_usage, 64);
    CHECK_EQ_INT(r.parent, -1);
    CHECK_EQ_INT(r.n_children, 0);
    CHECK_EQ_INT(r.cpu_time_total_ns, 0);
    CHECK_EQ_INT(r.stack_depth, 0);
    r = get(ev, 3);
    CHECK_EQ_INT(r.thread, 2);
    CHECK_EQ_INT(r.cpu_memory_usage, -32);
    r = get(ev, 4);
    CHECK_EQ_INT(r.cpu_memory_usage, 0);
    CHECK_EQ_INT(r.device_memory_usage, 4096);
    CHECK_EQ_INT(r.device_type, PROF_DEVICE_CPU); /* the row is a CPU event, as PyTorch's */
    r = get(ev, 7);
    CHECK_EQ_INT(r.thread, 3);
    CHECK_EQ_INT(r.cpu_memory_usage, 5);
    CHECK_EQ_INT(get(ev, 6).cpu_memory_usage, 0); /* T2: thread 1's record is not its */
    /* key_averages: one [memory] row of 5 calls, in first-seen order */
    {
        prof_averages *av = prof_key_averages(ev, NULL);
        if (CHECK(av != NULL) && CHECK_EQ_INT(prof_averages_count(av), 4)) {
            const prof_avg *m = prof_averages_get(av, 0);
            CHECK_EQ_STR(m->key, "[memory]");
            CHECK_EQ_INT(m->count, 5);
            CHECK_EQ_INT(m->cpu_memory_usage, 64 + 128 - 32 + 5);
            CHECK_EQ_INT(m->device_memory_usage, 4096);
            CHECK_EQ_STR(prof_averages_get(av, 1)->key, "A");
        }
        prof_averages_free(av);
    }
    /* an event added later that holds 2001 and 2500 (thread 1 only: the
       free on thread 2 is held by no event of its thread, yet a CPU event
       holds its time, so it is nobody's) */
    add(ev, "late", 1, 2001, 2700);
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK_EQ_INT(prof_events_count(ev), 4 + 2);
    CHECK_EQ_INT(prof_events_stats(ev).events, 4);
    r = get(ev, (size_t)find(ev, "late"));
    CHECK_EQ_INT(r.cpu_memory_usage, 128);
    CHECK_EQ_INT(r.device_memory_usage, 4096);
    CHECK_EQ_STR(get(ev, 0).name, "[memory]");
    CHECK_EQ_STR(get(ev, 5).name, "[memory]");
    CHECK_EQ_INT(get(ev, 5).start_ns, 7000);
    prof_events_free(ev);
}

/* What PyTorch 1.13's classes give for the same events (its
   _parse_kineto_results charges memory to CPU events only and sorts the
   [memory] rows into the list before _build_tree). */
static void test_torch_parity(void) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    prof_event r;
    prof_avg tot;
    const char *fs[] = { "a.py(1): f" }, *bs[] = { "b.py(2): g" };
    if (!CHECK(ev != NULL)) return;
    /* a kernel on thread 1 holds no record: two rows, charged once */
    memset(&d, 0, sizeof d);
    d.name = "k";
    d.thread = 1;
    d.start_ns = 20000;
    d.end_ns = 30000;
    d.device_type = PROF_DEVICE_CUDA;
    CHECK(prof_events_add(ev, &d) >= 0);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 25000, 7, PROF_DEVICE_CUDA, 0), PROF_OK);
    mem(ev, 1, 26000, 5);
    r = get(ev, 1); /* the first read: the rows are events already */
    CHECK_EQ_STR(r.name, "[memory]");
    CHECK_EQ_INT(prof_events_count(ev), 3);
    r = get(ev, (size_t)find(ev, "k"));
    CHECK_EQ_INT(r.cpu_memory_usage, 0);
    CHECK_EQ_INT(r.device_memory_usage, 0);
    tot = prof_events_total_average(ev);
    CHECK_EQ_INT(tot.cpu_memory_usage, 5);
    CHECK_EQ_INT(tot.device_memory_usage, 7);
    prof_events_free(ev);
    /* a row before the forward op of key (-1, thread 1) */
    if (!CHECK((ev = prof_events_create()) != NULL)) return;
    mem(ev, 1, 0, 100);
    memset(&d, 0, sizeof d);
    d.name = "fwd";
    d.thread = 1;
    d.start_ns = 1000;
    d.end_ns = 2000;
    d.stack = fs;
    d.stack_depth = 1;
    CHECK(prof_events_add(ev, &d) >= 0);
    memset(&d, 0, sizeof d);
    d.name = "bw";
    d.thread = 2;
    d.start_ns = 3000;
    d.end_ns = 4000;
    d.stack = bs;
    d.stack_depth = 1;
    d.scope = 1;
    d.set = PROF_EVENT_SEQUENCE_NR | PROF_EVENT_FWD_THREAD;
    d.sequence_nr = -1;
    d.fwd_thread = 1;
    CHECK(prof_events_add(ev, &d) >= 0);
    CHECK_EQ_INT(get(ev, (size_t)find(ev, "bw")).stack_depth, 0); /* the row's [] */
    CHECK_EQ_INT(get(ev, (size_t)find(ev, "fwd")).stack_depth, 1);
    /* the row after the forward op: the op's stack; the list rebuilt with
       an event added, the row moved (its own stack back first) */
    mem(ev, 1, 1500, 8); /* held by fwd: no row */
    d.name = "early";
    d.thread = 3;
    d.start_ns = -10;
    d.end_ns = 10; /* holds t=0's time on another thread: that record is no row now */
    d.scope = 0;
    d.set = 0;
    d.stack = NULL;
    d.stack_depth = 0;
    CHECK(prof_events_add(ev, &d) >= 0);
    r = get(ev, (size_t)find(ev, "bw"));
    if (CHECK_EQ_INT(r.stack_depth, 1)) CHECK_EQ_STR(r.stack[0], "a.py(1): f");
    CHECK_EQ_INT(find(ev, "[memory]"), -1);
    prof_events_free(ev);
}

/* Memory given in an event's description adds to the records charged. */
static void test_given_plus_records(void) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    if (!CHECK(ev != NULL)) return;
    memset(&d, 0, sizeof d);
    d.name = "G";
    d.thread = 1;
    d.start_ns = 0;
    d.end_ns = 100;
    d.cpu_memory_usage = 1000;
    CHECK(prof_events_add(ev, &d) == 0);
    mem(ev, 1, 50, 24);
    CHECK_EQ_INT(get(ev, 0).cpu_memory_usage, 1024);
    add(ev, "other", 1, 200, 300); /* the tree is rebuilt: still charged once */
    CHECK_EQ_INT(get(ev, 0).cpu_memory_usage, 1024);
    prof_events_free(ev);
}

static void test_add_memory_errors(void) {
    prof_events *ev = prof_events_create();
    if (!CHECK(ev != NULL)) return;
    check_log_reset();
    CHECK_EQ_INT(prof_events_add_memory(NULL, 1, 0, 1, PROF_DEVICE_CPU, 0), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 0, 1, PROF_DEVICE_CPU, -1), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 0, 1, PROF_DEVICE_CPU, 64), PROF_E_ARG);
    CHECK(check_log_has(PROF_E_ARG, "prof_events_add_memory"));
    CHECK_EQ_INT(prof_events_count(ev), 0);
    /* the timeline refuses the same devices (the CPU's index is any: all
       of them), and writes nothing */
    remove("build/test_memory_bad_device.json");
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/test_memory_bad_device.json", PROF_DEVICE_CUDA, -1), PROF_E_ARG);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/test_memory_bad_device.json", (prof_device_type)32, 0), PROF_E_ARG);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/test_memory_bad_device.json", PROF_DEVICE_CUDA, 64), PROF_E_ARG);
    CHECK(check_log_has(PROF_E_ARG, "device 32:0"));
    CHECK(access("build/test_memory_bad_device.json", F_OK) != 0);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/test_memory_bad_device.json", PROF_DEVICE_CUDA, 63), PROF_OK);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, "build/test_memory_bad_device.json", PROF_DEVICE_CPU, -1), PROF_OK);
    prof_events_free(ev);
}

/* Recorded: allocations while no scope is open are [memory] rows. */
static void test_recorded(int with_stack) {
    prof_config cfg;
    prof_events *ev;
    prof_averages *av;
    size_t i, rows = 0;
    int64_t row_bytes = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    cfg.with_stack = with_stack;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    prof_alloc((const void *)0x1000, 100); /* outside */
    {
        PROF_SCOPE("inside");
        prof_alloc((const void *)0x2000, 10);
    }
    prof_dealloc((const void *)0x1000); /* outside */
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e = get(ev, i);
        if (strcmp(e.name, "[memory]") == 0) {
            rows++;
            row_bytes += e.cpu_memory_usage;
            CHECK_EQ_INT(e.start_ns, e.end_ns);
            CHECK_EQ_INT(e.parent, -1);
            CHECK_EQ_INT(e.stack_depth, 0); /* PyTorch: stack=[] */
        } else {
            CHECK_EQ_STR(e.name, "inside");
            CHECK_EQ_INT(e.cpu_memory_usage, 10);
            CHECK_EQ_INT(e.stack_depth, with_stack ? 1 : 0);
        }
    }
    CHECK_EQ_INT(rows, 2);
    CHECK_EQ_INT(row_bytes, 0);
    CHECK_EQ_STR(get(ev, 0).name, "[memory]");
    CHECK_EQ_STR(get(ev, 1).name, "inside");
    CHECK_EQ_STR(get(ev, 2).name, "[memory]");
    CHECK_EQ_INT(get(ev, 0).cpu_memory_usage, 100);
    CHECK_EQ_INT(get(ev, 2).cpu_memory_usage, -100);
    CHECK_EQ_INT(prof_events_stats(ev).events, 1);
    av = prof_key_averages(ev, NULL);
    if (CHECK(av != NULL) && CHECK_EQ_INT(prof_averages_count(av), 2)) {
        CHECK_EQ_STR(prof_averages_get(av, 0)->key, "[memory]");
        CHECK_EQ_INT(prof_averages_get(av, 0)->count, 2);
    }
    prof_averages_free(av);
    /* the trace leaves the rows out (PyTorch: trace_name None) and keeps
       the records as [memory] instants */
    if (CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/test_memory_trace.json"), PROF_OK)) {
        char *text = check_read_file("build/test_memory_trace.json"), *buf = text ? text : (char *)"";
        CHECK(text != NULL);
        CHECK(strstr(buf, "\"name\": \"inside\"") != NULL);
        CHECK(strstr(buf, "\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"[memory]\"") == NULL);
        CHECK(strstr(buf, "\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\"") != NULL);
        free(text);
        remove("build/test_memory_trace.json");
    }
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    test_interval_ends();
    test_zero_length_event();
    test_memory_rows();
    test_torch_parity();
    test_given_plus_records();
    test_add_memory_errors();
    test_recorded(0);
    test_recorded(PROF_STACK_SCOPES);
    return check_report();
}
