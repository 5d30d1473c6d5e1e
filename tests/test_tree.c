/* EventList._build_tree on hand-built events (prof_events_add, times in
   ns): _populate_cpu_children's nesting rules (equal starts, identical and
   zero-length intervals, partial overlaps, async and device events, threads
   and node ids), _remove_dup_nodes (merged chains, lifted grandchildren and
   kernels), self and device times, key_averages' grouping, total_average,
   _set_backward_stacktraces, and a randomized comparison with a direct
   transcription of profiler_util.py's algorithms. */
#define _GNU_SOURCE 1 /* before any system header: the test's own POSIX and GNU calls */
#include "prof.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static prof_event get(prof_events *ev, int64_t i) {
    prof_event e;
    memset(&e, 0, sizeof e);
    if (i < 0 || prof_events_get(ev, (size_t)i, &e) != PROF_OK) e.name = "<no event>";
    return e;
}
/* Index of the nth (0-based) event called name, in list order; -1 if none. */
static int64_t find(prof_events *ev, const char *name, size_t nth) {
    size_t i, n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e = get(ev, (int64_t)i);
        if (strcmp(e.name, name) == 0 && nth-- == 0) return (int64_t)i;
    }
    return -1;
}
static const char *parent_name(prof_events *ev, const char *name) {
    prof_event e = get(ev, find(ev, name, 0));
    return e.parent < 0 ? "<none>" : get(ev, e.parent).name;
}
static const char *child_name(prof_events *ev, const char *name, size_t k) {
    int64_t c = prof_events_child(ev, (size_t)find(ev, name, 0), k);
    return c < 0 ? "<none>" : get(ev, c).name;
}
static prof_event named(prof_events *ev, const char *name) { return get(ev, find(ev, name, 0)); }

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
static int64_t add_flags(prof_events *ev, const char *name, uint64_t thread, int64_t start, int64_t end, unsigned set, int node_id) {
    prof_event_desc d;
    int64_t i;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = thread;
    d.start_ns = start;
    d.end_ns = end;
    d.set = set;
    d.node_id = node_id;
    i = prof_events_add(ev, &d);
    CHECK_MSG(i >= 0, "prof_events_add(%s) failed: %s", name, prof_last_error());
    return i;
}

/* ------------------------------------------------------------------------ */

static void test_basic(void) {
    prof_events *ev = prof_events_create();
    /* the docstring's example, added out of order */
    add(ev, "B", 1, 3000, 4000);
    add(ev, "P", 1, 0, 10000);
    add(ev, "A", 1, 1000, 3000);
    CHECK_EQ_INT(prof_events_count(ev), 3);
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    /* the list keeps its order */
    CHECK_EQ_STR(get(ev, 0).name, "B");
    CHECK_EQ_STR(get(ev, 1).name, "P");
    CHECK_EQ_STR(get(ev, 2).name, "A");
    CHECK_EQ_STR(parent_name(ev, "A"), "P");
    CHECK_EQ_STR(parent_name(ev, "B"), "P");
    CHECK_EQ_STR(parent_name(ev, "P"), "<none>");
    CHECK_EQ_INT(named(ev, "P").n_children, 2);
    CHECK_EQ_STR(child_name(ev, "P", 0), "A"); /* by start time */
    CHECK_EQ_STR(child_name(ev, "P", 1), "B");
    CHECK_EQ_STR(child_name(ev, "P", 2), "<none>");
    CHECK_EQ_INT(named(ev, "P").cpu_time_total_ns, 10000);
    CHECK_EQ_INT(named(ev, "P").self_cpu_time_total_ns, 7000);
    CHECK_EQ_INT(named(ev, "A").self_cpu_time_total_ns, 2000);
    CHECK_EQ_INT(named(ev, "B").self_cpu_time_total_ns, 1000);
    /* out of range */
    {
        prof_event e;
        check_log_reset();
        CHECK_EQ_INT(prof_events_get(ev, 3, &e), PROF_E_ARG);
        CHECK_EQ_INT(check_log_count(PROF_E_ARG), 1);
        CHECK_EQ_INT(prof_events_child(ev, 3, 0), -1);
    }
    prof_events_free(ev);
}

static void test_add_errors(void) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    check_log_reset();
    d.name = NULL;
    CHECK_EQ_INT(prof_events_add(ev, &d), -1);
    CHECK_EQ_INT(check_log_count(PROF_E_ARG), 1);
    d.name = "backwards";
    d.start_ns = 10;
    d.end_ns = 5;
    CHECK_EQ_INT(prof_events_add(ev, &d), -1);
    CHECK_EQ_INT(check_log_count(PROF_E_ARG), 2);
    CHECK(strstr(prof_last_error(), "backwards") != NULL);
    CHECK_EQ_INT(prof_events_add(NULL, &d), -1);
    CHECK_EQ_INT(prof_events_add(ev, NULL), -1);
    CHECK_EQ_INT(prof_events_count(ev), 0);
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK_EQ_INT(prof_events_stats(ev).events, 0);
    prof_events_free(ev);
    CHECK_EQ_INT(prof_events_count(NULL), 0);
    check_log_reset();
    CHECK_EQ_INT(prof_events_build_tree(NULL), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_reserve(NULL, 1), PROF_E_ARG);
    CHECK_EQ_INT(check_log_total(), 2); /* each error with its message, as the manual says */
    prof_events_free(NULL);
}

static void test_equal_and_identical(void) {
    prof_events *ev = prof_events_create();
    /* equal starts: the longer one is the parent, whatever the order */
    add(ev, "short", 1, 0, 500);
    add(ev, "long", 1, 0, 1000);
    /* identical intervals: the later one in the list is the child */
    add(ev, "first", 1, 2000, 3000);
    add(ev, "second", 1, 2000, 3000);
    add(ev, "third", 1, 2000, 3000);
    /* equal ends, later start: child */
    add(ev, "tail_parent", 1, 4000, 5000);
    add(ev, "tail_child", 1, 4500, 5000);
    /* end of one = start of the next: siblings */
    add(ev, "left", 1, 6000, 7000);
    add(ev, "right", 1, 7000, 8000);
    CHECK_EQ_STR(parent_name(ev, "short"), "long");
    CHECK_EQ_STR(parent_name(ev, "long"), "<none>");
    CHECK_EQ_INT(named(ev, "long").self_cpu_time_total_ns, 500);
    CHECK_EQ_STR(parent_name(ev, "first"), "<none>");
    CHECK_EQ_STR(parent_name(ev, "second"), "first");
    CHECK_EQ_STR(parent_name(ev, "third"), "second");
    CHECK_EQ_INT(named(ev, "first").self_cpu_time_total_ns, 0);
    CHECK_EQ_INT(named(ev, "third").self_cpu_time_total_ns, 1000);
    CHECK_EQ_STR(parent_name(ev, "tail_child"), "tail_parent");
    CHECK_EQ_STR(parent_name(ev, "left"), "<none>");
    CHECK_EQ_STR(parent_name(ev, "right"), "<none>");
    prof_events_free(ev);

    /* identical intervals with one name: merged into one event */
    ev = prof_events_create();
    add(ev, "dup", 1, 0, 100);
    add(ev, "dup", 1, 0, 100);
    add(ev, "dup", 1, 0, 100);
    add(ev, "other", 1, 200, 300);
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK_EQ_INT(prof_events_count(ev), 2);
    CHECK_EQ_INT(prof_events_stats(ev).events, 2);
    CHECK_EQ_INT(named(ev, "dup").n_children, 0);
    CHECK_EQ_INT(named(ev, "dup").self_cpu_time_total_ns, 100);
    prof_events_free(ev);
}

static void test_zero_length(void) {
    prof_events *ev = prof_events_create();
    add(ev, "P", 1, 0, 10);
    add(ev, "Zstart", 1, 0, 0);
    add(ev, "C", 1, 2, 4);
    add(ev, "Zc", 1, 3, 3);
    add(ev, "Zmid", 1, 5, 5);
    add(ev, "Zmid2", 1, 5, 5);
    add(ev, "Zend", 1, 10, 10);
    add(ev, "Zalone", 1, 20, 20);
    add(ev, "Zalone2", 1, 20, 20);
    CHECK_EQ_STR(parent_name(ev, "Zstart"), "P");
    CHECK_EQ_STR(parent_name(ev, "C"), "P");
    CHECK_EQ_STR(parent_name(ev, "Zc"), "C");
    CHECK_EQ_STR(parent_name(ev, "Zmid"), "P");
    CHECK_EQ_STR(parent_name(ev, "Zmid2"), "P"); /* not Zmid: [5, 5) holds nothing */
    CHECK_EQ_STR(parent_name(ev, "Zend"), "<none>");
    CHECK_EQ_STR(parent_name(ev, "Zalone2"), "<none>");
    CHECK_EQ_INT(named(ev, "P").n_children, 4);
    CHECK_EQ_STR(child_name(ev, "P", 0), "Zstart");
    CHECK_EQ_STR(child_name(ev, "P", 1), "C");
    CHECK_EQ_STR(child_name(ev, "P", 2), "Zmid");
    CHECK_EQ_STR(child_name(ev, "P", 3), "Zmid2");
    CHECK_EQ_INT(named(ev, "P").self_cpu_time_total_ns, 8);
    CHECK_EQ_INT(named(ev, "C").self_cpu_time_total_ns, 2);
    CHECK_EQ_INT(named(ev, "Zc").self_cpu_time_total_ns, 0);
    prof_events_free(ev);
}

static void test_partial_overlap(void) {
    prof_events *ev = prof_events_create();
    add(ev, "A", 1, 0, 10);
    add(ev, "B", 1, 5, 15);
    add(ev, "C", 1, 6, 8);   /* inside A and B: B, the top of the stack */
    add(ev, "D", 1, 12, 20); /* overlaps B partly */
    add(ev, "E", 1, 13, 14); /* inside B and D: D */
    CHECK_EQ_STR(parent_name(ev, "B"), "<none>");
    CHECK_EQ_STR(parent_name(ev, "C"), "B");
    CHECK_EQ_STR(parent_name(ev, "D"), "<none>");
    CHECK_EQ_STR(parent_name(ev, "E"), "D");
    CHECK_EQ_INT(named(ev, "A").n_children, 0);
    CHECK_EQ_INT(named(ev, "A").self_cpu_time_total_ns, 10);
    CHECK_EQ_INT(named(ev, "B").self_cpu_time_total_ns, 8);
    prof_events_free(ev);
}

static void test_remove_dup_nodes(void) {
    prof_events *ev = prof_events_create();
    int64_t p, c, x, q, a1, a2, a3;
    prof_event e;
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);
    /* op > op > {x, y}: the inner op goes, x and y move up, its kernels replace the outer's */
    p = add(ev, "op", 1, 0, 100);
    c = add(ev, "op", 1, 10, 90);
    x = add(ev, "x", 1, 20, 30);
    add(ev, "y", 1, 40, 50);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)p, "k_outer", 0, 7), PROF_OK);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)c, "k_inner", 0, 20), PROF_OK);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)x, "k_x", 0, 5), PROF_OK);
    /* two same-name children: nothing merges */
    q = add(ev, "op2", 1, 200, 300);
    add(ev, "op2", 1, 210, 220);
    add(ev, "op2", 1, 230, 240);
    /* a single child of another name: nothing merges */
    add(ev, "r", 1, 400, 500);
    add(ev, "s", 1, 410, 420);
    /* s2 > s2 > {s2, v}: one merge, the grandchild s2 stays (two children) */
    add(ev, "s2", 1, 600, 700);
    add(ev, "s2", 1, 610, 690);
    add(ev, "s2", 1, 620, 630);
    add(ev, "v", 1, 640, 650);
    /* a chain of three, added innermost first: one event, the outermost,
       with the innermost's kernels */
    a3 = add(ev, "chain", 1, 1020, 1080);
    a2 = add(ev, "chain", 1, 1010, 1090);
    a1 = add(ev, "chain", 1, 1000, 1100);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)a1, "k1", 0, 1), PROF_OK);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)a2, "k2", 0, 2), PROF_OK);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)a3, "k3a", 0, 3), PROF_OK);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)a3, "k3b", 0, 4), PROF_OK);
    /* bb > bb > cc > cc: two merges */
    add(ev, "bb", 1, 2000, 2100);
    add(ev, "bb", 1, 2010, 2090);
    add(ev, "cc", 1, 2020, 2080);
    add(ev, "cc", 1, 2030, 2070);
    (void)q;
    /* 20 added; the count is the list's after the tree, as prof_events_get
       indexes it (prof_events_count builds the tree first) */
    CHECK_EQ_INT(prof_events_count(ev), 20 - 1 - 1 - 2 - 1 - 1);
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK_EQ_INT(prof_events_count(ev), 20 - 1 - 1 - 2 - 1 - 1);
    CHECK_EQ_INT(prof_events_stats(ev).events, 14);

    e = get(ev, find(ev, "op", 0));
    CHECK_EQ_INT(e.start_ns, 0);
    CHECK_EQ_INT(e.end_ns, 100);
    CHECK_EQ_INT(find(ev, "op", 1), -1);
    CHECK_EQ_INT(e.n_children, 2);
    CHECK_EQ_STR(child_name(ev, "op", 0), "x");
    CHECK_EQ_STR(child_name(ev, "op", 1), "y");
    CHECK_EQ_STR(parent_name(ev, "x"), "op");
    CHECK_EQ_INT(e.self_cpu_time_total_ns, 80);
    CHECK_EQ_INT(e.n_kernels, 1);
    CHECK_EQ_INT(e.device_time_total_ns, 20 + 5);
    CHECK_EQ_INT(e.self_device_time_total_ns, 20);
    CHECK_EQ_INT(named(ev, "x").device_time_total_ns, 5);

    CHECK_EQ_INT(named(ev, "op2").n_children, 2);
    CHECK(find(ev, "op2", 2) >= 0);
    CHECK_EQ_STR(parent_name(ev, "s"), "r");

    CHECK_EQ_INT(named(ev, "s2").start_ns, 600);
    CHECK_EQ_INT(named(ev, "s2").n_children, 2);
    CHECK_EQ_INT(get(ev, find(ev, "s2", 1)).start_ns, 620);
    CHECK_EQ_STR(parent_name(ev, "v"), "s2");
    CHECK_EQ_INT(find(ev, "s2", 2), -1);

    e = named(ev, "chain");
    CHECK_EQ_INT(find(ev, "chain", 1), -1);
    CHECK_EQ_INT(e.start_ns, 1000);
    CHECK_EQ_INT(e.end_ns, 1100);
    CHECK_EQ_INT(e.n_children, 0);
    CHECK_EQ_INT(e.n_kernels, 2);
    CHECK_EQ_INT(e.device_time_total_ns, 7);
    CHECK_EQ_INT(e.self_cpu_time_total_ns, 100);

    CHECK_EQ_INT(named(ev, "bb").start_ns, 2000);
    CHECK_EQ_INT(named(ev, "cc").start_ns, 2020);
    CHECK_EQ_STR(parent_name(ev, "cc"), "bb");
    CHECK_EQ_INT(find(ev, "bb", 1), -1);
    CHECK_EQ_INT(find(ev, "cc", 1), -1);

    /* building again (set_device invalidates the tree) changes nothing */
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK_EQ_INT(prof_events_count(ev), 14);
    CHECK_EQ_INT(named(ev, "op").device_time_total_ns, 25);
    CHECK_EQ_INT(named(ev, "chain").device_time_total_ns, 7);
    /* without a device, device times are 0 */
    CHECK_EQ_INT(prof_events_set_device(ev, NULL), PROF_OK);
    CHECK_EQ_INT(named(ev, "op").device_time_total_ns, 0);
    CHECK_EQ_INT(named(ev, "op").self_device_time_total_ns, 0);
    /* a device name the headers can print upper-cased, or an error and no change */
    CHECK_EQ_INT(prof_events_set_device(ev, "xpu_2"), PROF_OK);
    CHECK_EQ_INT(named(ev, "op").device_time_total_ns, 25);
    CHECK_EQ_INT(prof_events_set_device(ev, "cud\xc3\x9f"), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda:0"), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_set_device(ev, "a_device_name_of_24_char"), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_set_device(NULL, "cuda"), PROF_E_ARG);
    CHECK_EQ_INT(named(ev, "op").device_time_total_ns, 25); /* still xpu_2 */
    CHECK_EQ_INT(prof_events_set_device(ev, ""), PROF_OK);
    CHECK_EQ_INT(named(ev, "op").device_time_total_ns, 0);
    prof_events_free(ev);
}

static void test_async(void) {
    prof_events *ev = prof_events_create();
    int64_t a;
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);
    a = add_flags(ev, "async_op", 1, 0, 100, PROF_EVENT_ASYNC, 0);
    add(ev, "inside_async", 1, 10, 20);
    add(ev, "host", 1, 200, 300);
    add_flags(ev, "async_in_host", 1, 210, 220, PROF_EVENT_ASYNC, 0);
    add_flags(ev, "async_a", 1, 400, 500, PROF_EVENT_ASYNC, 0);
    add_flags(ev, "async_b", 1, 410, 420, PROF_EVENT_ASYNC, 0);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)a, "k", 0, 9), PROF_OK);
    CHECK_EQ_STR(parent_name(ev, "inside_async"), "<none>");
    CHECK_EQ_INT(named(ev, "async_op").n_children, 0);
    CHECK_EQ_INT(named(ev, "async_op").is_async, 1);
    CHECK_EQ_INT(named(ev, "async_op").cpu_time_total_ns, 100);
    CHECK_EQ_INT(named(ev, "async_op").self_cpu_time_total_ns, 0);
    CHECK_EQ_INT(named(ev, "async_op").device_time_total_ns, 0);
    CHECK_EQ_INT(named(ev, "async_op").self_device_time_total_ns, 0);
    CHECK_EQ_INT(named(ev, "inside_async").self_cpu_time_total_ns, 10);
    CHECK_EQ_STR(parent_name(ev, "async_in_host"), "<none>");
    CHECK_EQ_INT(named(ev, "host").n_children, 0);
    CHECK_EQ_INT(named(ev, "host").self_cpu_time_total_ns, 100);
    CHECK_EQ_STR(parent_name(ev, "async_b"), "<none>");
    CHECK_EQ_INT(prof_events_count(ev), 6);
    prof_events_free(ev);
}

static void test_node_ids_and_threads(void) {
    prof_events *ev = prof_events_create();
    const uint64_t big = 0x8000000000000005ull;
    /* thread 7: node runs 0 | 1 | 0: three groups, nothing nests */
    add_flags(ev, "A", 7, 0, 100, PROF_EVENT_NODE_ID, 0);
    /* thread 8: node runs 0 0 | 1 */
    add_flags(ev, "D", 8, 0, 100, PROF_EVENT_NODE_ID, 0);
    add_flags(ev, "B", 7, 10, 20, PROF_EVENT_NODE_ID, 1);
    add_flags(ev, "E", 8, 30, 40, PROF_EVENT_NODE_ID, 0);
    add_flags(ev, "C", 7, 30, 40, PROF_EVENT_NODE_ID, 0);
    add_flags(ev, "F", 8, 10, 20, PROF_EVENT_NODE_ID, 1);
    /* thread 9: no node id (-1) and node 0 are different */
    add(ev, "G", 9, 0, 100);
    add_flags(ev, "H", 9, 10, 20, PROF_EVENT_NODE_ID, 0);
    add(ev, "I", 9, 30, 40);
    /* threads do not nest into each other, however their ids compare */
    add(ev, "T1", 1, 0, 1000);
    add(ev, "T2", 2, 10, 20);
    add(ev, "Tbig", big, 30, 40);
    add(ev, "Tbig_child", big, 32, 38);
    add(ev, "T1_child", 1, 50, 60);

    CHECK_EQ_STR(parent_name(ev, "B"), "<none>");
    CHECK_EQ_STR(parent_name(ev, "C"), "<none>");
    CHECK_EQ_INT(named(ev, "A").n_children, 0);
    CHECK_EQ_INT(named(ev, "A").node_id, 0);
    CHECK_EQ_INT(named(ev, "B").node_id, 1);
    CHECK_EQ_STR(parent_name(ev, "E"), "D");
    CHECK_EQ_STR(parent_name(ev, "F"), "<none>");
    CHECK_EQ_INT(named(ev, "G").node_id, -1);
    CHECK_EQ_STR(parent_name(ev, "H"), "<none>");
    CHECK_EQ_STR(parent_name(ev, "I"), "<none>"); /* the node-0 run cuts G's run */
    CHECK_EQ_STR(parent_name(ev, "T2"), "<none>");
    CHECK_EQ_STR(parent_name(ev, "Tbig"), "<none>");
    CHECK_EQ_STR(parent_name(ev, "Tbig_child"), "Tbig");
    CHECK_EQ_STR(parent_name(ev, "T1_child"), "T1");
    CHECK_EQ_INT(named(ev, "T1").n_children, 1);
    CHECK_EQ_INT(named(ev, "Tbig").thread, big);
    CHECK_EQ_INT(named(ev, "Tbig").device_resource_id, (int64_t)big);
    prof_events_free(ev);
}

static void test_device_events(void) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    int64_t k;
    add(ev, "cpu_op", 1, 0, 100);
    memset(&d, 0, sizeof d);
    d.name = "gemm_kernel";
    d.thread = 1;
    d.start_ns = 10;
    d.end_ns = 30;
    d.device_type = PROF_DEVICE_CUDA;
    d.device_index = 2;
    d.set = PROF_EVENT_RESOURCE_ID;
    d.device_resource_id = 7;
    k = prof_events_add(ev, &d);
    CHECK(k >= 0);
    add(ev, "cpu_child", 1, 40, 50);
    check_log_reset();
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)k, "nope", 0, 1), PROF_E_ARG);
    CHECK_EQ_INT(check_log_count(PROF_E_ARG), 1);
    CHECK_EQ_INT(prof_events_append_kernel(ev, 99, "nope", 0, 1), PROF_E_ARG);

    CHECK_EQ_STR(parent_name(ev, "gemm_kernel"), "<none>");
    CHECK_EQ_INT(named(ev, "cpu_op").n_children, 1);
    CHECK_EQ_STR(child_name(ev, "cpu_op", 0), "cpu_child");
    CHECK_EQ_INT(named(ev, "gemm_kernel").cpu_time_total_ns, 0);
    CHECK_EQ_INT(named(ev, "gemm_kernel").self_cpu_time_total_ns, 0);
    CHECK_EQ_INT(named(ev, "gemm_kernel").device_time_total_ns, 0); /* no use_device */
    CHECK_EQ_INT(named(ev, "gemm_kernel").device_index, 2);
    CHECK_EQ_INT(named(ev, "gemm_kernel").device_resource_id, 7);
    CHECK_EQ_INT(named(ev, "gemm_kernel").device_type, PROF_DEVICE_CUDA);
    CHECK_EQ_INT(named(ev, "cpu_op").self_cpu_time_total_ns, 90);
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);
    CHECK_EQ_INT(named(ev, "gemm_kernel").device_time_total_ns, 20);
    CHECK_EQ_INT(named(ev, "gemm_kernel").self_device_time_total_ns, 20);
    CHECK_EQ_INT(named(ev, "cpu_op").device_time_total_ns, 0);
    prof_events_free(ev);
}

/* ------------------------------------------------------------------------ */

static int64_t add_op(prof_events *ev, const char *name, int64_t start, int64_t end, const int *ndims, int n_inputs, const int64_t *dims,
                      int with_shapes, const char *overload, const char *const *stack, int depth, int64_t flops) {
    prof_event_desc d;
    int64_t i;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = start;
    d.end_ns = end;
    if (with_shapes) {
        d.set |= PROF_EVENT_SHAPES;
        d.input_shapes.n_inputs = n_inputs;
        d.input_shapes.ndims = ndims;
        d.input_shapes.dims = dims;
    }
    d.overload_name = overload;
    d.stack = stack;
    d.stack_depth = depth;
    d.flops = flops;
    i = prof_events_add(ev, &d);
    CHECK(i >= 0);
    return i;
}

static const prof_avg *row(const prof_averages *a, const char *key, const char *shapes, const char *overload, const char *stack0) {
    size_t i;
    for (i = 0; i < prof_averages_count(a); i++) {
        const prof_avg *r = prof_averages_get(a, i);
        if (strcmp(r->key, key) != 0) continue;
        if (shapes && (!r->input_shapes || strcmp(r->input_shapes, shapes) != 0)) continue;
        if (overload && strcmp(r->overload_name, overload) != 0) continue;
        if (stack0 && (r->stack_depth < 1 || strcmp(r->stack[0], stack0) != 0)) continue;
        return r;
    }
    return NULL;
}

static void test_key_averages(void) {
    static const int nd_a[] = {2, 2}, nd_b[] = {2};
    static const int64_t dims_a[] = {2, 3, 3, 4}, dims_b[] = {4, 5};
    static const char *const st1[] = {"a.py(1): f", "main.py(9): <module>"};
    static const char *const st2[] = {"b.py(2): g", "main.py(9): <module>"};
    static const char *const st3[] = {"a.py(1): f", "other.py(3): h"};
    prof_events *ev = prof_events_create();
    prof_averages *a;
    prof_group_options g;
    const prof_avg *r;
    add_op(ev, "mm", 0, 10, nd_a, 2, dims_a, 1, "Tensor", st1, 2, 100);
    add_op(ev, "mm", 20, 40, nd_a, 2, dims_a, 1, "out", st2, 2, 200);
    add_op(ev, "mm", 50, 80, nd_b, 1, dims_b, 1, "Tensor", st3, 2, 400);
    add_op(ev, "add", 100, 101, NULL, 0, NULL, 0, NULL, NULL, 0, 0); /* shapes None */
    add_op(ev, "add", 110, 112, NULL, 0, NULL, 1, NULL, NULL, 0, 0); /* shapes [] */
    CHECK_EQ_STR(get(ev, 0).input_shapes, "[[2, 3], [3, 4]]");
    CHECK_EQ_STR(get(ev, 2).input_shapes, "[[4, 5]]");
    CHECK(get(ev, 3).input_shapes == NULL);
    CHECK_EQ_STR(get(ev, 4).input_shapes, "[]");
    CHECK_EQ_STR(get(ev, 1).overload_name, "out");
    CHECK_EQ_STR(get(ev, 3).overload_name, "");

    /* by name only */
    a = prof_key_averages(ev, NULL);
    if (CHECK(a != NULL)) {
        CHECK_EQ_INT(prof_averages_count(a), 2);
        r = prof_averages_get(a, 0);
        CHECK_EQ_STR(r->key, "mm");
        CHECK_EQ_INT(r->count, 3);
        CHECK_EQ_INT(r->cpu_time_total_ns, 60);
        CHECK_EQ_INT(r->self_cpu_time_total_ns, 60);
        CHECK_EQ_INT(r->flops, 700);
        CHECK_EQ_STR(r->input_shapes, "");
        CHECK_EQ_STR(r->overload_name, "");
        CHECK_EQ_INT(r->stack_depth, 0);
        r = prof_averages_get(a, 1);
        CHECK_EQ_STR(r->key, "add");
        CHECK_EQ_INT(r->count, 2);
        CHECK_EQ_INT(r->cpu_time_total_ns, 3);
        prof_averages_free(a);
    }
    /* by input shapes: None and [] are different keys */
    memset(&g, 0, sizeof g);
    g.group_by_input_shapes = 1;
    a = prof_key_averages(ev, &g);
    if (CHECK(a != NULL)) {
        CHECK_EQ_INT(prof_averages_count(a), 4);
        CHECK_EQ_STR(prof_averages_get(a, 0)->input_shapes, "[[2, 3], [3, 4]]");
        CHECK_EQ_INT(prof_averages_get(a, 0)->count, 2);
        CHECK_EQ_INT(prof_averages_get(a, 0)->cpu_time_total_ns, 30);
        CHECK_EQ_STR(prof_averages_get(a, 1)->input_shapes, "[[4, 5]]");
        CHECK_EQ_INT(prof_averages_get(a, 1)->count, 1);
        CHECK_EQ_STR(prof_averages_get(a, 2)->key, "add");
        CHECK(prof_averages_get(a, 2)->input_shapes == NULL);
        CHECK_EQ_STR(prof_averages_get(a, 3)->input_shapes, "[]");
        CHECK_EQ_INT(prof_averages_get(a, 3)->cpu_time_total_ns, 2);
        prof_averages_free(a);
    }
    /* by the innermost stack entry, then by two */
    memset(&g, 0, sizeof g);
    g.group_by_stack_n = 1;
    a = prof_key_averages(ev, &g);
    if (CHECK(a != NULL)) {
        CHECK_EQ_INT(prof_averages_count(a), 3);
        r = row(a, "mm", NULL, NULL, "a.py(1): f");
        if (CHECK(r != NULL)) {
            CHECK_EQ_INT(r->count, 2);
            CHECK_EQ_INT(r->cpu_time_total_ns, 40);
            CHECK_EQ_INT(r->stack_depth, 1);
        }
        r = row(a, "mm", NULL, NULL, "b.py(2): g");
        if (CHECK(r != NULL)) CHECK_EQ_INT(r->count, 1);
        r = row(a, "add", NULL, NULL, NULL);
        if (CHECK(r != NULL)) {
            CHECK_EQ_INT(r->count, 2);
            CHECK_EQ_INT(r->stack_depth, 0);
        }
        prof_averages_free(a);
    }
    g.group_by_stack_n = 2;
    a = prof_key_averages(ev, &g);
    if (CHECK(a != NULL)) {
        CHECK_EQ_INT(prof_averages_count(a), 4);
        CHECK_EQ_INT(prof_averages_get(a, 0)->stack_depth, 2);
        CHECK_EQ_STR(prof_averages_get(a, 0)->stack[1], "main.py(9): <module>");
        prof_averages_free(a);
    }
    /* by overload name */
    memset(&g, 0, sizeof g);
    g.group_by_overload_name = 1;
    a = prof_key_averages(ev, &g);
    if (CHECK(a != NULL)) {
        CHECK_EQ_INT(prof_averages_count(a), 3);
        r = row(a, "mm", NULL, "Tensor", NULL);
        if (CHECK(r != NULL)) {
            CHECK_EQ_INT(r->count, 2);
            CHECK_EQ_INT(r->cpu_time_total_ns, 40);
            CHECK_EQ_INT(r->flops, 500);
        }
        r = row(a, "mm", NULL, "out", NULL);
        if (CHECK(r != NULL)) CHECK_EQ_INT(r->count, 1);
        CHECK_EQ_STR(prof_averages_get(a, 0)->input_shapes, "");
        prof_averages_free(a);
    }
    /* everything at once */
    g.group_by_input_shapes = 1;
    g.group_by_stack_n = 1;
    a = prof_key_averages(ev, &g);
    if (CHECK(a != NULL)) {
        CHECK_EQ_INT(prof_averages_count(a), 5);
        prof_averages_free(a);
    }
    /* the averages outlive the list */
    a = prof_key_averages(ev, NULL);
    prof_events_free(ev);
    if (CHECK(a != NULL)) {
        CHECK_EQ_STR(prof_averages_get(a, 0)->key, "mm");
        CHECK(prof_averages_get(a, 2) == NULL);
        prof_averages_free(a);
    }
    CHECK(prof_key_averages(NULL, NULL) == NULL);
}

/* Rows split on node id, device type and user annotation too; self times add up. */
static void test_key_averages_keys_and_totals(void) {
    prof_events *ev = prof_events_create();
    prof_averages *a;
    prof_avg t;
    prof_event_desc d;
    add(ev, "step", 1, 0, 100);
    add(ev, "mm", 1, 10, 30);
    add(ev, "mm", 1, 40, 50);
    add(ev, "step", 1, 200, 300);
    add(ev, "mm", 1, 210, 220);
    add_flags(ev, "mm", 2, 0, 5, PROF_EVENT_USER_ANNOTATION, 0);
    add_flags(ev, "mm", 3, 0, 7, PROF_EVENT_NODE_ID, 4);
    memset(&d, 0, sizeof d);
    d.name = "mm";
    d.thread = 1;
    d.start_ns = 500;
    d.end_ns = 510;
    d.device_type = PROF_DEVICE_CUDA;
    CHECK(prof_events_add(ev, &d) >= 0);
    add_flags(ev, "last", 5, 0, 10, PROF_EVENT_NODE_ID, 5);
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);
    a = prof_key_averages(ev, NULL);
    if (CHECK(a != NULL)) {
        const prof_avg *r;
        CHECK_EQ_INT(prof_averages_count(a), 6);
        r = prof_averages_get(a, 0);
        CHECK_EQ_STR(r->key, "step");
        CHECK_EQ_INT(r->count, 2);
        CHECK_EQ_INT(r->cpu_time_total_ns, 200);
        CHECK_EQ_INT(r->self_cpu_time_total_ns, 160);
        CHECK_EQ_INT(r->has_cpu_parent, 0);
        r = prof_averages_get(a, 1);
        CHECK_EQ_STR(r->key, "mm");
        CHECK_EQ_INT(r->count, 3);
        CHECK_EQ_INT(r->cpu_time_total_ns, 40);
        CHECK_EQ_INT(r->self_cpu_time_total_ns, 40);
        CHECK_EQ_INT(r->has_cpu_parent, 1);
        CHECK_EQ_INT(r->node_id, -1);
        r = prof_averages_get(a, 2);
        CHECK_EQ_INT(r->is_user_annotation, 1);
        CHECK_EQ_INT(r->count, 1);
        r = prof_averages_get(a, 3);
        CHECK_EQ_INT(r->node_id, 4);
        CHECK_EQ_INT(r->cpu_time_total_ns, 7);
        r = prof_averages_get(a, 4);
        CHECK_EQ_INT(r->device_type, PROF_DEVICE_CUDA);
        CHECK_EQ_INT(r->cpu_time_total_ns, 0);
        CHECK_EQ_INT(r->device_time_total_ns, 10);
        CHECK_EQ_INT(r->self_device_time_total_ns, 10);
        CHECK_EQ_STR(prof_averages_get(a, 5)->key, "last");

        t = prof_averages_total_average(a);
        CHECK_EQ_STR(t.key, "Total");
        CHECK_EQ_INT(t.count, 9);
        CHECK_EQ_INT(t.cpu_time_total_ns, 200 + 40 + 5 + 7 + 10);
        CHECK_EQ_INT(t.self_cpu_time_total_ns, 160 + 40 + 5 + 7 + 10);
        CHECK_EQ_INT(t.device_time_total_ns, 10);
        CHECK_EQ_INT(t.node_id, 5); /* fields other than sums: the last row's */
        prof_averages_free(a);
    }
    t = prof_events_total_average(ev);
    CHECK_EQ_STR(t.key, "Total");
    CHECK_EQ_INT(t.count, 9);
    CHECK_EQ_INT(t.cpu_time_total_ns, 262);
    CHECK_EQ_INT(t.self_cpu_time_total_ns, 222);
    CHECK_EQ_INT(t.device_time_total_ns, 10);
    CHECK_EQ_INT(t.node_id, 5);
    prof_events_free(ev);
    t = prof_events_total_average(NULL);
    CHECK_EQ_INT(t.count, 0);
    CHECK_EQ_STR(t.key, "Total");
}

/* ------------------------------------------------------------------------ */

static int64_t add_ag(prof_events *ev, const char *name, uint64_t thread, int64_t s, int64_t e, int scope, int64_t seq, int has_fwd,
                      uint64_t fwd, const char *const *stack, int depth) {
    prof_event_desc d;
    int64_t i;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = thread;
    d.start_ns = s;
    d.end_ns = e;
    d.scope = scope;
    if (seq >= 0) {
        d.set |= PROF_EVENT_SEQUENCE_NR;
        d.sequence_nr = seq;
    }
    if (has_fwd) {
        d.set |= PROF_EVENT_FWD_THREAD;
        d.fwd_thread = fwd;
    }
    d.stack = stack;
    d.stack_depth = depth;
    i = prof_events_add(ev, &d);
    CHECK(i >= 0);
    return i;
}
static int stack_is(prof_events *ev, const char *name, const char *const *want, int depth) {
    prof_event e = named(ev, name);
    int i;
    if (e.stack_depth != depth) {
        fprintf(stderr, "  %s: stack depth %d, want %d\n", name, e.stack_depth, depth);
        return 0;
    }
    for (i = 0; i < depth; i++)
        if (strcmp(e.stack[i], want[i]) != 0) {
            fprintf(stderr, "  %s: stack[%d] = '%s', want '%s'\n", name, i, e.stack[i], want[i]);
            return 0;
        }
    return 1;
}

static void test_backward_stacks(void) {
    static const char *const f1[] = {"model.py(10): forward", "train.py(3): <module>"};
    static const char *const f2[] = {"model.py(11): forward"};
    static const char *const other[] = {"other.py(1): view"};
    static const char *const own[] = {"own.py(5): backward"};
    static const char *const n[] = {"n.py(1): n"};
    prof_events *ev = prof_events_create();
    prof_event e;
    /* forward, thread 1 */
    add_ag(ev, "aten::mul", 1, 0, 10, 0, 5, 0, 0, f1, 2);
    add_ag(ev, "aten::add", 1, 20, 30, 0, 6, 0, 0, f2, 1);
    add_ag(ev, "aten::view", 1, 40, 50, 0, 5, 0, 0, other, 1); /* same key: the first stack wins */
    /* backward, thread 2 */
    add_ag(ev, "MulBackward0", 2, 100, 200, 1, 5, 1, 1, own, 1);
    add_ag(ev, "bw_mul", 2, 110, 120, 0, -1, 0, 0, own, 1);
    add_ag(ev, "bw_neg", 2, 130, 140, 0, -1, 0, 0, NULL, 0);
    add_ag(ev, "bw_empty", 2, 131, 132, 0, -1, 0, 0, own, 1);
    add_ag(ev, "AddBackward0", 2, 300, 400, 1, 6, 1, 1, NULL, 0);
    add_ag(ev, "bw_add", 2, 310, 320, 0, 6, 0, 0, own, 1);
    add_ag(ev, "Orphan", 2, 500, 600, 1, 99, 1, 1, own, 1);
    add_ag(ev, "orphan_child", 2, 510, 520, 0, -1, 0, 0, own, 1);
    add_ag(ev, "normal", 2, 900, 910, 0, -1, 0, 0, n, 1);
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK(stack_is(ev, "MulBackward0", f1, 2));
    CHECK(stack_is(ev, "bw_mul", f1, 2));
    CHECK(stack_is(ev, "bw_neg", f1, 2));
    CHECK(stack_is(ev, "bw_empty", f1, 2));
    CHECK(stack_is(ev, "AddBackward0", f2, 1));
    CHECK(stack_is(ev, "bw_add", f2, 1));
    CHECK(stack_is(ev, "Orphan", NULL, 0));
    CHECK(stack_is(ev, "orphan_child", NULL, 0));
    CHECK(stack_is(ev, "normal", n, 1));
    CHECK(stack_is(ev, "aten::mul", f1, 2));
    CHECK(stack_is(ev, "aten::view", other, 1));
    e = named(ev, "MulBackward0");
    CHECK_EQ_INT(e.scope, 1);
    CHECK_EQ_INT(e.sequence_nr, 5);
    CHECK_EQ_INT(e.has_fwd_thread, 1);
    CHECK_EQ_INT(e.fwd_thread, 1);
    CHECK_EQ_INT(named(ev, "normal").has_fwd_thread, 0);
    CHECK_EQ_INT(named(ev, "normal").sequence_nr, -1);
    /* grouping by stack sees the forward stacks */
    {
        prof_group_options g;
        prof_averages *a;
        memset(&g, 0, sizeof g);
        g.group_by_stack_n = 1;
        a = prof_key_averages(ev, &g);
        if (CHECK(a != NULL)) {
            const prof_avg *r = row(a, "bw_mul", NULL, NULL, NULL);
            if (CHECK(r != NULL) && CHECK_EQ_INT(r->stack_depth, 1)) CHECK_EQ_STR(r->stack[0], f1[0]);
            prof_averages_free(a);
        }
    }
    prof_events_free(ev);
}

/* The fwd_stacks lookup must compare (sequence_nr, thread) itself, not a
   hash of it: two forward ops whose keys hash alike keep their own stacks. */
static uint64_t mix64(uint64_t x) { /* the 64-bit finalizer prof.h hashes with */
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}
static void test_backward_stack_key_collision(void) {
    static const char *const sa[] = {"stack_a"};
    static const char *const sb[] = {"stack_b"};
    prof_events *ev = prof_events_create();
    uint64_t tb = mix64(1) ^ 1u ^ mix64(2); /* (2, tb) hashes like (1, 1) */
    add_ag(ev, "fwd_a", 1, 0, 10, 0, 1, 0, 0, sa, 1);
    add_ag(ev, "fwd_b", tb, 0, 10, 0, 2, 0, 0, sb, 1);
    add_ag(ev, "bwd_b", 3, 100, 200, 1, 2, 1, tb, NULL, 0);
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK(stack_is(ev, "bwd_b", sb, 1));
    prof_events_free(ev);
}

/* ------------------------------------------------------------------------
   Randomized: a direct transcription of _populate_cpu_children,
   _remove_dup_nodes and the time properties, against prof.h. */
typedef struct gev {
    int name, node, async, dev, nk;
    uint64_t thread;
    int64_t s, e;
    int64_t kdur[3];
} gev;

static uint64_t rng_state;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int rnd_n(int n) { return (int)(rnd() % (uint64_t)n); }

typedef struct ref {
    int n;
    const gev *g;
    int *parent, *deleted, *kl, *nch, *capch;
    int **ch;
} ref;

static const gev *sort_g;
static int *sort_pos;
static int cmp_thread(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (sort_g[x].thread != sort_g[y].thread) return sort_g[x].thread < sort_g[y].thread ? -1 : 1;
    return sort_pos[x] - sort_pos[y]; /* stable */
}
static int cmp_time(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (sort_g[x].s != sort_g[y].s) return sort_g[x].s < sort_g[y].s ? -1 : 1;
    if (sort_g[x].e != sort_g[y].e) return sort_g[x].e > sort_g[y].e ? -1 : 1;
    return sort_pos[x] - sort_pos[y]; /* stable */
}
static void ref_push_child(ref *r, int p, int c) {
    if (r->nch[p] == r->capch[p]) {
        r->capch[p] = r->capch[p] ? r->capch[p] * 2 : 4;
        r->ch[p] = (int *)realloc(r->ch[p], sizeof(int) * (size_t)r->capch[p]);
    }
    r->ch[p][r->nch[p]++] = c;
}

/* g[0..n) in list order */
static void ref_build(ref *r, const gev *g, int n) {
    int *idx = (int *)malloc(sizeof(int) * (size_t)(n + 1)), *stack = (int *)malloc(sizeof(int) * (size_t)(n + 1));
    int m = 0, i, run, any;
    r->n = n;
    r->g = g;
    r->parent = (int *)malloc(sizeof(int) * (size_t)n);
    r->deleted = (int *)calloc((size_t)n, sizeof(int));
    r->kl = (int *)malloc(sizeof(int) * (size_t)n);
    r->nch = (int *)calloc((size_t)n, sizeof(int));
    r->capch = (int *)calloc((size_t)n, sizeof(int));
    r->ch = (int **)calloc((size_t)n, sizeof(int *));
    sort_pos = (int *)malloc(sizeof(int) * (size_t)n);
    for (i = 0; i < n; i++) {
        r->parent[i] = -1;
        r->kl[i] = i;
        if (!g[i].async && !g[i].dev) idx[m++] = i;
    }
    sort_g = g;
    for (i = 0; i < m; i++) sort_pos[idx[i]] = i;
    qsort(idx, (size_t)m, sizeof(int), cmp_thread);
    for (run = 0; run < m;) {
        int end = run + 1, k, top = 0;
        while (end < m && g[idx[end]].thread == g[idx[run]].thread && g[idx[end]].node == g[idx[run]].node) end++;
        for (k = run; k < end; k++) sort_pos[idx[k]] = k;
        qsort(idx + run, (size_t)(end - run), sizeof(int), cmp_time);
        for (k = run; k < end; k++) {
            int cur = idx[k];
            while (top > 0) {
                int p = stack[top - 1];
                if (g[cur].s >= g[p].e || g[cur].e > g[p].e) { top--; continue; }
                ref_push_child(r, p, cur);
                r->parent[cur] = p;
                break;
            }
            stack[top++] = cur;
        }
        run = end;
    }
    /* _remove_dup_nodes */
    do {
        any = 0;
        for (i = 0; i < n; i++) {
            int p = r->parent[i], k;
            if (r->deleted[i] || p < 0 || g[p].name != g[i].name || r->nch[p] != 1) continue;
            r->nch[p] = 0;
            for (k = 0; k < r->nch[i]; k++) ref_push_child(r, p, r->ch[i][k]);
            r->kl[p] = r->kl[i];
            for (k = 0; k < r->nch[i]; k++) r->parent[r->ch[i][k]] = p;
            r->deleted[i] = 1;
            any = 1;
        }
    } while (any);
    free(idx);
    free(stack);
    free(sort_pos);
    sort_pos = NULL;
}
static void ref_free(ref *r) {
    int i;
    for (i = 0; i < r->n; i++) free(r->ch[i]);
    free(r->parent); free(r->deleted); free(r->kl); free(r->nch); free(r->capch); free(r->ch);
}
static int64_t ref_dev_total(const ref *r, int i) {
    const gev *v = &r->g[i];
    int64_t s = 0;
    int k;
    if (v->async) return 0;
    if (v->dev) return v->e - v->s;
    for (k = 0; k < r->g[r->kl[i]].nk; k++) s += r->g[r->kl[i]].kdur[k];
    for (k = 0; k < r->nch[i]; k++) s += ref_dev_total(r, r->ch[i][k]);
    return s;
}
static int64_t ref_self_cpu(const ref *r, int i) {
    const gev *v = &r->g[i];
    int64_t s;
    int k;
    if (v->async || v->dev) return 0;
    s = v->e - v->s;
    for (k = 0; k < r->nch[i]; k++) s -= r->g[r->ch[i][k]].e - r->g[r->ch[i][k]].s;
    return s;
}
static int64_t ref_self_dev(const ref *r, int i) {
    int64_t s;
    int k;
    if (r->g[i].async) return 0;
    s = ref_dev_total(r, i);
    if (!r->g[i].dev)
        for (k = 0; k < r->nch[i]; k++) s -= ref_dev_total(r, r->ch[i][k]);
    return s;
}

static const char *const rnames[] = {"a", "b", "c"};
static const uint64_t rthreads[] = {3, 1, 0x8000000000000001ull};

/* (start, -end), then the index: a list as recorded, each thread's events in order */
static int cmp_gev_time(const void *a, const void *b) {
    const gev *x = (const gev *)a, *y = (const gev *)b;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    if (x->e != y->e) return x->e > y->e ? -1 : 1;
    return 0;
}
static int random_round(int n, int span, int in_order) {
    gev *g = (gev *)calloc((size_t)n, sizeof *g);
    ref r;
    prof_events *ev = prof_events_create();
    int i, bad = 0, survivors = 0;
    size_t k, m;
    int *line_to_pos;
    for (i = 0; i < n; i++) {
        gev *v = &g[i];
        int64_t len;
        int kk;
        v->name = rnd_n(3);
        v->thread = rthreads[rnd_n(10) < 7 ? 0 : 1 + rnd_n(2)];
        v->node = rnd_n(8) == 0 ? 0 : -1;
        v->async = rnd_n(20) == 0;
        v->dev = !v->async && rnd_n(20) == 0;
        v->s = rnd_n(span);
        switch (rnd_n(4)) {
        case 0: len = 0; break;
        case 1: len = rnd_n(4); break;
        case 2: len = rnd_n(span / 8 + 1); break;
        default: len = rnd_n(span / 2 + 1); break;
        }
        v->e = v->s + len;
        if (!v->dev) {
            v->nk = rnd_n(3);
            for (kk = 0; kk < v->nk; kk++) v->kdur[kk] = 1 + rnd_n(50);
        }
    }
    /* in time order, prof.h links each thread's events in one pass; in any
       other order it sorts them first: both must give PyTorch's tree */
    if (in_order) qsort(g, (size_t)n, sizeof *g, cmp_gev_time);
    ref_build(&r, g, n);
    for (i = 0; i < n; i++) {
        prof_event_desc d;
        int64_t at;
        int kk;
        memset(&d, 0, sizeof d);
        d.name = rnames[g[i].name];
        d.file = "random";
        d.line = i + 1; /* identifies the event */
        d.thread = g[i].thread;
        d.start_ns = g[i].s;
        d.end_ns = g[i].e;
        if (g[i].node >= 0) { d.set |= PROF_EVENT_NODE_ID; d.node_id = g[i].node; }
        if (g[i].async) d.set |= PROF_EVENT_ASYNC;
        if (g[i].dev) d.device_type = PROF_DEVICE_CUDA;
        at = prof_events_add(ev, &d);
        if (at != i) bad++;
        for (kk = 0; kk < g[i].nk; kk++)
            if (prof_events_append_kernel(ev, (size_t)i, "k", 0, g[i].kdur[kk]) != PROF_OK) bad++;
    }
    prof_events_set_device(ev, "cuda");
    if (prof_events_build_tree(ev) != PROF_OK) bad++;
    m = prof_events_count(ev);
    line_to_pos = (int *)malloc(sizeof(int) * (size_t)(n + 1));
    for (i = 0; i <= n; i++) line_to_pos[i] = -1;
    for (k = 0; k < m; k++) {
        prof_event e = get(ev, (int64_t)k);
        if (e.line >= 1 && e.line <= n) line_to_pos[e.line] = (int)k;
    }
    /* the survivors, in list order */
    k = 0;
    for (i = 0; i < n; i++) {
        prof_event e;
        int64_t want_parent, c;
        int j, nk = 0;
        if (r.deleted[i]) {
            if (line_to_pos[i + 1] >= 0) { if (bad < 3) fprintf(stderr, "  event %d should be merged away\n", i); bad++; }
            continue;
        }
        survivors++;
        if (line_to_pos[i + 1] != (int)k) { if (bad < 3) fprintf(stderr, "  event %d at %d, want %zu\n", i, line_to_pos[i + 1], k); bad++; k++; continue; }
        e = get(ev, (int64_t)k);
        want_parent = r.parent[i] < 0 ? -1 : line_to_pos[r.parent[i] + 1];
        if (e.parent != want_parent) { if (bad < 3) fprintf(stderr, "  event %d: parent %lld, want %lld\n", i, (long long)e.parent, (long long)want_parent); bad++; }
        if ((int)e.n_children != r.nch[i]) { if (bad < 3) fprintf(stderr, "  event %d: %zu children, want %d\n", i, e.n_children, r.nch[i]); bad++; }
        for (j = 0; j < r.nch[i]; j++) {
            c = prof_events_child(ev, k, (size_t)j);
            if (c != line_to_pos[r.ch[i][j] + 1]) { if (bad < 3) fprintf(stderr, "  event %d: child %d is %lld\n", i, j, (long long)c); bad++; }
        }
        if (e.self_cpu_time_total_ns != ref_self_cpu(&r, i)) { if (bad < 3) fprintf(stderr, "  event %d: self cpu %lld, want %lld\n", i, (long long)e.self_cpu_time_total_ns, (long long)ref_self_cpu(&r, i)); bad++; }
        if (e.device_time_total_ns != ref_dev_total(&r, i)) { if (bad < 3) fprintf(stderr, "  event %d: device total %lld, want %lld\n", i, (long long)e.device_time_total_ns, (long long)ref_dev_total(&r, i)); bad++; }
        if (e.self_device_time_total_ns != ref_self_dev(&r, i)) { if (bad < 3) fprintf(stderr, "  event %d: self device %lld, want %lld\n", i, (long long)e.self_device_time_total_ns, (long long)ref_self_dev(&r, i)); bad++; }
        if (!g[i].dev) nk = g[r.kl[i]].nk;
        if ((int)e.n_kernels != nk) { if (bad < 3) fprintf(stderr, "  event %d: %zu kernels, want %d\n", i, e.n_kernels, nk); bad++; }
        k++;
    }
    if ((size_t)survivors != m) { if (bad < 3) fprintf(stderr, "  %zu events, want %d\n", m, survivors); bad++; }
    if (prof_events_stats(ev).events != m) bad++;

    /* key_averages by name (node id and device type in the key), and total_average */
    {
        prof_averages *a = prof_key_averages(ev, NULL);
        int64_t key_name[64], key_node[64], key_dev[64], cnt[64], cpu[64], self[64], dev[64], sdev[64];
        int64_t tc = 0, tcpu = 0, tself = 0, tdev = 0;
        int nrows = 0, rr;
        for (i = 0; i < n; i++) {
            int64_t cput = g[i].dev ? 0 : g[i].e - g[i].s;
            if (r.deleted[i]) continue;
            for (rr = 0; rr < nrows; rr++)
                if (key_name[rr] == g[i].name && key_node[rr] == g[i].node && key_dev[rr] == g[i].dev) break;
            if (rr == nrows) {
                if (nrows == 64) break;
                key_name[rr] = g[i].name; key_node[rr] = g[i].node; key_dev[rr] = g[i].dev;
                cnt[rr] = cpu[rr] = self[rr] = dev[rr] = sdev[rr] = 0;
                nrows++;
            }
            cnt[rr]++;
            cpu[rr] += cput;
            self[rr] += ref_self_cpu(&r, i);
            dev[rr] += ref_dev_total(&r, i);
            sdev[rr] += ref_self_dev(&r, i);
            tc++; tcpu += cput; tself += ref_self_cpu(&r, i); tdev += ref_dev_total(&r, i);
        }
        if (!a || prof_averages_count(a) != (size_t)nrows) { if (bad < 3) fprintf(stderr, "  %zu rows, want %d\n", prof_averages_count(a), nrows); bad++; }
        else {
            for (rr = 0; rr < nrows; rr++) {
                const prof_avg *x = prof_averages_get(a, (size_t)rr);
                if (strcmp(x->key, rnames[key_name[rr]]) != 0 || x->node_id != key_node[rr] || (x->device_type == PROF_DEVICE_CUDA) != key_dev[rr] ||
                    x->count != cnt[rr] || x->cpu_time_total_ns != cpu[rr] || x->self_cpu_time_total_ns != self[rr] ||
                    x->device_time_total_ns != dev[rr] || x->self_device_time_total_ns != sdev[rr]) {
                    if (bad < 3) fprintf(stderr, "  row %d (%s) differs\n", rr, x->key);
                    bad++;
                }
            }
        }
        {
            prof_avg t = prof_events_total_average(ev);
            if (t.count != tc || t.cpu_time_total_ns != tcpu || t.self_cpu_time_total_ns != tself || t.device_time_total_ns != tdev) {
                if (bad < 3) fprintf(stderr, "  total_average differs\n");
                bad++;
            }
        }
        prof_averages_free(a);
    }
    free(line_to_pos);
    ref_free(&r);
    prof_events_free(ev);
    free(g);
    return bad;
}

static void test_random(void) {
    int rounds = (int)check_scale(60, 4), i;
    for (i = 0; i < rounds; i++) {
        int bad;
        rng_state = 0x9E3779B97F4A7C15ull ^ (uint64_t)(i + 1) * 0x100000001B3ull;
        bad = random_round(i % 3 == 0 ? 40 : 400, i % 2 ? 60 : 2000, i % 4 >= 2);
        CHECK_MSG(bad == 0, "random round %d (%s): %d differences", i, i % 4 >= 2 ? "in time order" : "any order", bad);
    }
}

/* group_by_stack_n on random stacks: a row per (name, first n frames),
   counted against a brute-force grouping; stacks that differ only past
   their first n frames share a row, and a stack shorter than n is its own
   key (a shorter tuple). Events of one name alternate between stacks, so
   rows are found through the map, not only the last row of their site. */
static void test_group_by_stack_random(void) {
    static const char *const frames[] = { "f.py(1): a", "f.py(2): b", "g.py(3): c" };
    static const char *const names[] = { "mm", "add" };
    enum { N = 600, MAXD = 5 };
    int depth[N], fr[N][MAXD], nm[N], i, j, n;
    prof_events *ev = prof_events_create();
    rng_state = 0x5EED5EEDull;
    for (i = 0; i < N; i++) {
        prof_event_desc d;
        const char *st[MAXD];
        nm[i] = rnd_n(2);
        depth[i] = rnd_n(MAXD + 1);
        for (j = 0; j < depth[i]; j++) { fr[i][j] = rnd_n(3); st[j] = frames[fr[i][j]]; }
        memset(&d, 0, sizeof d);
        d.name = names[nm[i]];
        d.thread = 1;
        d.start_ns = 10 * i;
        d.end_ns = 10 * i + 1 + i % 7;
        d.stack = st;
        d.stack_depth = depth[i];
        CHECK(prof_events_add(ev, &d) == i);
    }
    for (n = 1; n <= MAXD + 1; n++) {
        prof_group_options g;
        prof_averages *a;
        int first[N], nrows = 0, bad = 0;
        int64_t count[N], cpu[N];
        memset(&g, 0, sizeof g);
        g.group_by_stack_n = n;
        /* the reference: rows in first-seen order */
        for (i = 0; i < N; i++) {
            int r, di = depth[i] < n ? depth[i] : n;
            for (r = 0; r < nrows; r++) {
                int f = first[r], df = depth[f] < n ? depth[f] : n;
                if (nm[f] != nm[i] || df != di) continue;
                for (j = 0; j < di && fr[f][j] == fr[i][j]; j++) {}
                if (j == di) break;
            }
            if (r == nrows) { first[r] = i; count[r] = cpu[r] = 0; nrows++; }
            count[r]++;
            cpu[r] += 1 + i % 7;
        }
        a = prof_key_averages(ev, &g);
        if (!CHECK(a != NULL)) continue;
        CHECK_MSG(prof_averages_count(a) == (size_t)nrows, "group_by_stack_n %d: %zu rows, want %d", n, prof_averages_count(a), nrows);
        for (i = 0; i < nrows && (size_t)i < prof_averages_count(a); i++) {
            const prof_avg *x = prof_averages_get(a, (size_t)i);
            int f = first[i], df = depth[f] < n ? depth[f] : n;
            if (strcmp(x->key, names[nm[f]]) != 0 || x->count != count[i] || x->cpu_time_total_ns != cpu[i] || x->stack_depth != df) bad++;
            for (j = 0; j < df && j < x->stack_depth; j++)
                if (strcmp(x->stack[j], frames[fr[f][j]]) != 0) bad++;
        }
        CHECK_MSG(bad == 0, "group_by_stack_n %d: %d rows differ from the reference", n, bad);
        prof_averages_free(a);
    }
    prof_events_free(ev);
}

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
/* CHECK_TIMING=1 prints how long each test took */
#define TIMED(call) do { int64_t t0_ = mono_ns(); call; if (getenv("CHECK_TIMING")) fprintf(stderr, "%-32s %8.1f ms\n", #call, (mono_ns() - t0_) / 1e6); } while (0)
int main(void) {
    prof_set_log(check_log, NULL);
    TIMED(test_basic());
    TIMED(test_add_errors());
    TIMED(test_equal_and_identical());
    TIMED(test_zero_length());
    TIMED(test_partial_overlap());
    TIMED(test_remove_dup_nodes());
    TIMED(test_async());
    TIMED(test_node_ids_and_threads());
    TIMED(test_device_events());
    TIMED(test_key_averages());
    TIMED(test_key_averages_keys_and_totals());
    TIMED(test_backward_stacks());
    TIMED(test_backward_stack_key_collision());
    TIMED(test_random());
    TIMED(test_group_by_stack_random());
    return check_report();
}
