/* The summary table and the averages at their edges, each against what
   PyTorch's profiler_util (reference 001; torch 1.13 prints the same
   tables but for its "b"/"Kb" memory units) gives for the same events:
   - key_averages' Self CPU Mem of a parent that allocated nothing over a
     child that allocated 4096 B is -4096 (cpu_memory_usage less the
     children's), in the row and in the table ("-4.00 KB");
   - prof_events_total_average takes every field but the sums from the
     LAST event (total_average resets key to None after each add, so each
     add copies the event's fields): its stack is the last event's;
   - the FLOPs unit: auto_scale_flops(min flops) takes floor(log10(x) / 3)
     in doubles, and log10(999999999999998) is exactly 15.0: "Total
     PFLOPs" and 1.000, while 999999999999997 is still "Total TFLOPs" and
     1000.000;
   - the Node ID column is shown when any row's node_id != -1, node 0
     included;
   - trim_path: a path cut to max_src_column_width 3 keeps its last 3
     characters (":12"; "..." only when more than 3 are left: width 4
     gives "...2");
   - _format_time_share prints NaN only for a total of 0: a negative
     Self CUDA total (a legacy op whose own kernel is shorter than its
     child's) gives percentages (100.00%, -200.00%);
   - the "Incomplete profile" line of a capped session counts async ranges
     the cap dropped (prof_stats.dropped: everything lost to the cap), and
     says "0 scopes" and "1 scope" as English does. */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

static void add(prof_events *e, const char *name, int64_t start, int64_t end, int64_t cpu_mem) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = start;
    d.end_ns = end;
    d.cpu_memory_usage = cpu_mem;
    CHECK(prof_events_add(e, &d) >= 0);
}

static void check_table(prof_events *e, const prof_table_options *o, const char *expect) {
    char *t = prof_events_table(e, o);
    CHECK_EQ_STR(t, expect);
    prof_free_string(t);
}

/* A parent without memory of its own over a child with 4096 B. */
static void self_memory_of_parent(void) {
    prof_events *e = prof_events_create();
    prof_averages *a;
    prof_table_options o;
    char *t;
    memset(&o, 0, sizeof o);
    prof_events_set_flags(e, 1, 0);
    add(e, "outer", 0, 10000, 0);
    add(e, "inner", 1000, 2000, 4096);
    a = prof_key_averages(e, NULL);
    if (CHECK(a != NULL) && CHECK_EQ_INT(prof_averages_count(a), 2)) {
        const prof_avg *outer = prof_averages_get(a, 0), *inner = prof_averages_get(a, 1);
        CHECK_EQ_STR(outer->key, "outer");
        CHECK_EQ_INT(outer->cpu_memory_usage, 0);
        CHECK_EQ_INT(outer->self_cpu_memory_usage, -4096);
        CHECK_EQ_STR(inner->key, "inner");
        CHECK_EQ_INT(inner->cpu_memory_usage, 4096);
        CHECK_EQ_INT(inner->self_cpu_memory_usage, 4096);
        t = prof_averages_table(a, &o);
        CHECK_EQ_STR(t,
                     "---------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                     "     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg       CPU Mem  Self CPU Mem    # of Calls  \n"
                     "---------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                     "    outer        90.00%       9.000us       100.00%      10.000us      10.000us           0 B      -4.00 KB             1  \n"
                     "    inner        10.00%       1.000us        10.00%       1.000us       1.000us       4.00 KB       4.00 KB             1  \n"
                     "---------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                     "Self CPU time total: 10.000us\n");
        prof_free_string(t);
        {
            prof_avg tot = prof_averages_total_average(a);
            CHECK_EQ_INT(tot.self_cpu_memory_usage, 0);
        }
    }
    prof_averages_free(a);
    prof_events_free(e);
}

/* total_average: the stack (and the other copied fields) of the last event. */
static void total_average_takes_last(void) {
    static const char *const s1[] = { "first (a.c:1)" }, *const s2[] = { "last (b.c:2)", "caller (b.c:9)" };
    prof_events *e = prof_events_create();
    prof_event_desc d;
    prof_avg t;
    memset(&d, 0, sizeof d);
    d.thread = 1;
    d.name = "a"; d.start_ns = 0; d.end_ns = 1000; d.stack = s1; d.stack_depth = 1;
    CHECK(prof_events_add(e, &d) >= 0);
    d.name = "b"; d.start_ns = 2000; d.end_ns = 3000; d.stack = s2; d.stack_depth = 2;
    CHECK(prof_events_add(e, &d) >= 0);
    t = prof_events_total_average(e);
    CHECK_EQ_STR(t.key, "Total");
    CHECK_EQ_INT(t.count, 2);
    CHECK_EQ_INT(t.cpu_time_total_ns, 2000);
    if (CHECK_EQ_INT(t.stack_depth, 2)) {
        CHECK_EQ_STR(t.stack[0], "last (b.c:2)");
        CHECK_EQ_STR(t.stack[1], "caller (b.c:9)");
    }
    prof_events_free(e);
}

/* The smallest FLOP count decides the unit, at the PFLOPs edge. */
static void flops_unit_edge(void) {
    static const struct { int64_t flops; const char *header, *value; } c[2] = {
        { 999999999999998LL, "Total PFLOPs", "       1.000" },
        { 999999999999997LL, "Total TFLOPs", "    1000.000" },
    };
    int i;
    for (i = 0; i < 2; i++) {
        prof_events *e = prof_events_create();
        prof_event_desc d;
        prof_table_options o;
        char expect[2048];
        memset(&o, 0, sizeof o);
        memset(&d, 0, sizeof d);
        prof_events_set_flags(e, 0, 1);
        d.name = "peta_edge"; d.thread = 1; d.start_ns = 0; d.end_ns = 1000; d.flops = c[i].flops;
        CHECK(prof_events_add(e, &d) >= 0);
        snprintf(expect, sizeof expect,
                 "-------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                 "         Name    Self CPU %%      Self CPU   CPU total %%     CPU total  CPU time avg    # of Calls  %s  \n"
                 "-------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                 "    peta_edge       100.00%%       1.000us       100.00%%       1.000us       1.000us             1  %s  \n"
                 "-------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                 "Self CPU time total: 1.000us\n",
                 c[i].header, c[i].value);
        check_table(e, &o, expect);
        prof_events_free(e);
    }
}

/* node_id 0 on every row: still a Node ID column (PyTorch: any != -1). */
static void node_id_zero(void) {
    prof_events *e = prof_events_create();
    prof_event_desc d;
    prof_table_options o;
    memset(&o, 0, sizeof o);
    memset(&d, 0, sizeof d);
    d.name = "op"; d.thread = 1; d.start_ns = 0; d.end_ns = 10000; d.node_id = 0; d.set = PROF_EVENT_NODE_ID;
    CHECK(prof_events_add(e, &d) >= 0);
    check_table(e, &o,
                "------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                "  Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls       Node ID  \n"
                "------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                "    op       100.00%      10.000us       100.00%      10.000us      10.000us             1             0  \n"
                "------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                "Self CPU time total: 10.000us\n");
    prof_events_free(e);
}

/* A source path cut to a 3- and a 4-character column. */
static void source_column_3_and_4(void) {
    static const char *const stk[] = { "/very/long/path/file.c:12" };
    prof_events *e = prof_events_create();
    prof_event_desc d;
    prof_table_options o;
    memset(&o, 0, sizeof o);
    memset(&d, 0, sizeof d);
    d.name = "op"; d.thread = 1; d.start_ns = 0; d.end_ns = 10000; d.stack = stk; d.stack_depth = 1;
    CHECK(prof_events_add(e, &d) >= 0);
    o.max_src_column_width = 3;
    check_table(e, &o,
                "------  ------------  ------------  ------------  ------------  ------------  ------------  ---  \n"
                "  Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  Source Location  \n"
                "------  ------------  ------------  ------------  ------------  ------------  ------------  ---  \n"
                "    op       100.00%      10.000us       100.00%      10.000us      10.000us             1  :12  \n"
                "                                                                                                 \n"
                "------  ------------  ------------  ------------  ------------  ------------  ------------  ---  \n"
                "Self CPU time total: 10.000us\n");
    o.max_src_column_width = 4;
    check_table(e, &o,
                "------  ------------  ------------  ------------  ------------  ------------  ------------  ----  \n"
                "  Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  Source Location  \n"
                "------  ------------  ------------  ------------  ------------  ------------  ------------  ----  \n"
                "    op       100.00%      10.000us       100.00%      10.000us      10.000us             1  ...2  \n"
                "                                                                                                  \n"
                "------  ------------  ------------  ------------  ------------  ------------  ------------  ----  \n"
                "Self CPU time total: 10.000us\n");
    prof_events_free(e);
}

/* A negative Self CUDA total: shares against it, not NaN. legacy_op's own
   kernel is 5 us and its child's 10 us, so its self device time is -5 us
   (legacy: its kernels only, less its children's device time), and only
   legacy CPU events sum into the total. */
static void negative_device_total(void) {
    prof_events *e = prof_events_create();
    prof_event_desc d;
    prof_table_options o;
    memset(&o, 0, sizeof o);
    CHECK_EQ_INT(prof_events_set_device(e, "cuda"), PROF_OK);
    memset(&d, 0, sizeof d);
    d.thread = 1;
    d.name = "legacy_op"; d.start_ns = 0; d.end_ns = 10000; d.set = PROF_EVENT_LEGACY;
    CHECK(prof_events_add(e, &d) >= 0);
    d.name = "child"; d.start_ns = 1000; d.end_ns = 2000; d.set = 0;
    CHECK(prof_events_add(e, &d) >= 0);
    CHECK_EQ_INT(prof_events_append_kernel(e, 0, "k_small", 0, 5000), PROF_OK);
    CHECK_EQ_INT(prof_events_append_kernel(e, 1, "k_big", 0, 10000), PROF_OK);
    check_table(e, &o,
                "-------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                "         Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total  CUDA time avg    # of Calls  \n"
                "-------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                "    legacy_op        90.00%       9.000us       100.00%      10.000us      10.000us      -5.000us       100.00%       5.000us       5.000us             1  \n"
                "        child        10.00%       1.000us        10.00%       1.000us       1.000us      10.000us      -200.00%      10.000us      10.000us             1  \n"
                "-------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
                "Self CPU time total: 10.000us\n"
                "Self CUDA time total: -5.000us\n");
    prof_events_free(e);
}

/* The table's last line, or "" when it has none. */
static const char *last_line(const char *t) {
    size_t n = strlen(t);
    if (n && t[n - 1] == '\n') n--;
    while (n && t[n - 1] != '\n') n--;
    return t + n;
}

/* Async ranges past the cap: one scope and 20 ranges (41 records) with
   max_events 4 keep 4 and drop 37, all of them async records. */
static void capped_async(void) {
    prof_config cfg;
    prof_events *e;
    prof_stats st;
    prof_table_options o;
    char *t;
    int i;
    memset(&cfg, 0, sizeof cfg);
    memset(&o, 0, sizeof o);
    cfg.max_events = 4;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    { PROF_SCOPE("a"); }
    for (i = 0; i < 20; i++) {
        PROF_ASYNC_BEGIN("req", (uint64_t)i + 1);
        PROF_ASYNC_END((uint64_t)i + 1);
    }
    e = prof_stop();
    if (!CHECK(e != NULL)) return;
    st = prof_events_stats(e);
    CHECK_EQ_INT(st.scopes_dropped, 0);
    CHECK_EQ_INT(st.async_dropped, 37);
    CHECK_EQ_INT(st.marks_dropped + st.counters_dropped + st.allocs_dropped, 0);
    CHECK_EQ_INT(st.dropped, 37);
    t = prof_events_table(e, &o);
    if (CHECK(t != NULL))
        CHECK_EQ_STR(last_line(t), "Incomplete profile: 0 scopes dropped (each with all it encloses) and 37 other records (prof_events_stats)\n");
    prof_free_string(t);
    prof_events_free(e);
}

/* One scope past a cap of 1: "1 scope", and "0 other records". */
static void capped_one_scope(void) {
    prof_config cfg;
    prof_events *e;
    prof_stats st;
    prof_table_options o;
    char *t;
    memset(&cfg, 0, sizeof cfg);
    memset(&o, 0, sizeof o);
    cfg.max_events = 1;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    { PROF_SCOPE("kept"); }
    { PROF_SCOPE("dropped"); }
    e = prof_stop();
    if (!CHECK(e != NULL)) return;
    st = prof_events_stats(e);
    CHECK_EQ_INT(st.scopes_dropped, 1);
    CHECK_EQ_INT(st.dropped, 1);
    t = prof_events_table(e, &o);
    if (CHECK(t != NULL))
        CHECK_EQ_STR(last_line(t), "Incomplete profile: 1 scope dropped (each with all it encloses) and 0 other records (prof_events_stats)\n");
    prof_free_string(t);
    prof_events_free(e);
}

int main(void) {
    prof_set_log(check_log, NULL);
    self_memory_of_parent();
    total_average_takes_last();
    flops_unit_edge();
    node_id_zero();
    source_column_3_and_4();
    negative_device_total();
    capped_async();
    capped_one_scope();
    prof_shutdown();
    return check_report();
}
