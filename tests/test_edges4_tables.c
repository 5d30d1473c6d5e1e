/* The aggregation and the summary table at their edges (hand-built lists):
   - max_name_column_width < 0 means no maximum: a name is never cut
     (only a width > 0 cuts; -1 is not "keep all but the last 4");
   - total_average's FLOPs sum saturates at INT64_MAX, in
     prof_events_total_average and prof_averages_total_average alike;
   - total_average's has_cpu_parent is the last event's (the last row's),
     as every field but the sums;
   - key_averages grouped by stack (the per-stack memo path): an async
     event has no self CPU time (as the event itself has none);
   - an event's self CPU time saturates at INT64_MIN when its children's
     CPU times sum past it (overlapping children of a whole-range parent),
     it does not wrap to a small positive number.
   Found by mutation testing (fourth pass): each of these, changed alone,
   left every other test passing. */
#include "prof.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>


/* max_name_column_width -1: the whole name, no "..." */
static void name_width_unbounded(void) {
    static const char long_name[] = "aten::addmm_with_a_name_longer_than_the_default_column_of_fifty_five";
    prof_events *e = prof_events_create();
    prof_averages *a;
    prof_table_options o;
    char *t;
    if (!CHECK(e != NULL)) return;
    check_add_event(e, "aten::addmm", 1, 0, 5000);
    check_add_event(e, long_name, 1, 6000, 9000);
    memset(&o, 0, sizeof o);
    o.max_name_column_width = -1;
    a = prof_key_averages(e, NULL);
    if (CHECK(a != NULL) && CHECK((t = prof_averages_table(a, &o)) != NULL)) {
        const char *p = strstr(t, "aten::addmm ");
        CHECK(p != NULL);
        CHECK(strstr(t, long_name) != NULL);
        CHECK(strstr(t, "...") == NULL);
        if (p) { /* the short name's cell: the name and then spaces */
            char cell[64];
            snprintf(cell, sizeof cell, "%.*s", (int)strcspn(p, " "), p);
            CHECK_EQ_STR(cell, "aten::addmm");
        }
        prof_free_string(t);
    }
    /* the default (0 = 55) cuts the long one: 52 characters and "..." */
    memset(&o, 0, sizeof o);
    if (a && CHECK((t = prof_averages_table(a, &o)) != NULL)) {
        CHECK(strstr(t, long_name) == NULL);
        CHECK(strstr(t, "aten::addmm_with_a_name_longer_than_the_default_colu...") != NULL);
        prof_free_string(t);
    }
    prof_averages_free(a);
    prof_events_free(e);
}

/* FLOPs of two events whose sum is past INT64_MAX */
static void total_flops_saturate(void) {
    prof_events *e = prof_events_create();
    prof_event_desc d;
    prof_averages *a;
    prof_avg t;
    if (!CHECK(e != NULL)) return;
    memset(&d, 0, sizeof d);
    d.thread = 1;
    d.flops = INT64_MAX / 2 + 1;
    d.name = "a"; d.start_ns = 0; d.end_ns = 1000;
    CHECK(prof_events_add(e, &d) >= 0);
    d.name = "b"; d.start_ns = 2000; d.end_ns = 3000;
    CHECK(prof_events_add(e, &d) >= 0);
    t = prof_events_total_average(e);
    CHECK_EQ_INT(t.flops, INT64_MAX);
    CHECK_EQ_INT(t.count, 2);
    a = prof_key_averages(e, NULL);
    if (CHECK(a != NULL)) {
        t = prof_averages_total_average(a);
        CHECK_EQ_INT(t.flops, INT64_MAX);
        CHECK_EQ_INT(t.count, 2);
    }
    prof_averages_free(a);
    prof_events_free(e);
}

/* outer [0, 10 us] holding inner [1, 2 us]: the last event, inner, has a parent */
static void total_has_cpu_parent(void) {
    prof_events *e = prof_events_create();
    prof_averages *a;
    prof_avg t;
    if (!CHECK(e != NULL)) return;
    check_add_event(e, "outer", 1, 0, 10000);
    check_add_event(e, "inner", 1, 1000, 2000);
    t = prof_events_total_average(e);
    CHECK_EQ_INT(t.has_cpu_parent, 1);
    a = prof_key_averages(e, NULL);
    if (CHECK(a != NULL) && CHECK_EQ_INT(prof_averages_count(a), 2)) {
        CHECK_EQ_STR(prof_averages_get(a, 1)->key, "inner");
        CHECK_EQ_INT(prof_averages_get(a, 1)->has_cpu_parent, 1);
        t = prof_averages_total_average(a);
        CHECK_EQ_INT(t.has_cpu_parent, 1);
    }
    prof_averages_free(a);
    /* and the other way round: the last event has none */
    prof_events_free(e);
    e = prof_events_create();
    if (!CHECK(e != NULL)) return;
    check_add_event(e, "outer", 1, 0, 10000);
    check_add_event(e, "inner", 1, 1000, 2000);
    check_add_event(e, "after", 1, 20000, 21000);
    t = prof_events_total_average(e);
    CHECK_EQ_INT(t.has_cpu_parent, 0);
    prof_events_free(e);
}

/* grouped by stack: async "a" (7 us) has self CPU 0, the others their time */
static void stack_group_async_self(void) {
    static const char *const s1[] = { "f1" }, *const s2[] = { "f2", "f1" }, *const s3[] = { "f3", "f1" };
    prof_events *e = prof_events_create();
    prof_event_desc d;
    prof_group_options g;
    prof_averages *a;
    prof_event ev;
    size_t i, seen = 0;
    if (!CHECK(e != NULL)) return;
    memset(&d, 0, sizeof d);
    d.thread = 1;
    d.name = "a"; d.start_ns = 0; d.end_ns = 7000; d.set = PROF_EVENT_ASYNC; d.stack = s1; d.stack_depth = 1;
    CHECK(prof_events_add(e, &d) >= 0);
    d.set = 0;
    d.name = "b"; d.start_ns = 8000; d.end_ns = 9000; d.stack = s2; d.stack_depth = 2;
    CHECK(prof_events_add(e, &d) >= 0);
    d.name = "b"; d.start_ns = 10000; d.end_ns = 11000; d.stack = s3; d.stack_depth = 2;
    CHECK(prof_events_add(e, &d) >= 0);
    memset(&g, 0, sizeof g);
    g.group_by_stack_n = 1;
    a = prof_key_averages(e, &g);
    if (CHECK(a != NULL)) {
        CHECK_EQ_INT(prof_averages_count(a), 3);
        for (i = 0; i < prof_averages_count(a); i++) {
            const prof_avg *r = prof_averages_get(a, i);
            CHECK_EQ_INT(r->count, 1);
            if (strcmp(r->key, "a") == 0) {
                seen++;
                CHECK_EQ_INT(r->cpu_time_total_ns, 7000);
                CHECK_EQ_INT(r->self_cpu_time_total_ns, 0);
            } else {
                CHECK_EQ_INT(r->cpu_time_total_ns, 1000);
                CHECK_EQ_INT(r->self_cpu_time_total_ns, 1000);
            }
        }
        CHECK_EQ_INT(seen, 1);
    }
    if (CHECK_EQ_INT(prof_events_get(e, 0, &ev), PROF_OK)) CHECK_EQ_INT(ev.self_cpu_time_total_ns, 0);
    prof_averages_free(a);
    prof_events_free(e);
}

/* p [0, MAX] with three children of nearly its length: self = INT64_MIN */
static void self_cpu_saturates(void) {
    prof_events *e = prof_events_create();
    prof_event ev;
    if (!CHECK(e != NULL)) return;
    check_add_event(e, "p", 1, 0, INT64_MAX);
    check_add_event(e, "c1", 1, 0, INT64_MAX - 2);
    check_add_event(e, "c2", 1, 1, INT64_MAX - 1);
    check_add_event(e, "c3", 1, 2, INT64_MAX);
    if (CHECK_EQ_INT(prof_events_get(e, 0, &ev), PROF_OK)) {
        CHECK_EQ_STR(ev.name, "p");
        CHECK_EQ_INT(ev.n_children, 3);
        CHECK_EQ_INT(ev.self_cpu_time_total_ns, INT64_MIN);
    }
    prof_events_free(e);
}

/* The Node ID column shows where any event's node_id is not -1, a
   negative one too (PyTorch: any(evt.node_id != -1)); a test of >= 0 hid
   it (a seeded mutation the suite missed). */
static void node_id_negative(void) {
    prof_events *e = prof_events_create();
    prof_event_desc d;
    char *t;
    if (!CHECK(e != NULL)) return;
    memset(&d, 0, sizeof d);
    d.name = "op"; d.thread = 1; d.start_ns = 0; d.end_ns = 5000; d.set = PROF_EVENT_NODE_ID; d.node_id = -2;
    CHECK(prof_events_add(e, &d) >= 0);
    t = prof_events_table(e, NULL);
    if (CHECK(t != NULL)) {
        CHECK_MSG(strstr(t, "# of Calls       Node ID  \n") != NULL, "no Node ID column for node_id -2:\n%s", t);
        CHECK(strstr(t, "             1            -2  \n") != NULL);
    }
    prof_free_string(t);
    prof_events_free(e);
}
/* MTIA's device time is device time (PyTorch sums CUDA's, MTIA's and
   PrivateUse1's): the footer's total and the Self MTIA % column (a seeded
   mutation that dropped MTIA from the rule gave 0.000us and NaN). */
static void mtia_device_total(void) {
    prof_events *e = prof_events_create();
    prof_event_desc d;
    char *t;
    if (!CHECK(e != NULL)) return;
    CHECK_EQ_INT(prof_events_set_device(e, "mtia"), PROF_OK);
    memset(&d, 0, sizeof d);
    d.name = "op"; d.thread = 1; d.start_ns = 0; d.end_ns = 5000;
    CHECK(prof_events_add(e, &d) >= 0);
    d.name = "mtia_kernel"; d.start_ns = 1000; d.end_ns = 3000; d.device_type = PROF_DEVICE_MTIA;
    CHECK(prof_events_add(e, &d) >= 0);
    t = prof_events_table(e, NULL);
    if (CHECK(t != NULL)) {
        CHECK_MSG(strstr(t, "Self MTIA time total: 2.000us\n") != NULL, "%s", t);
        CHECK(strstr(t, "    mtia_kernel         0.00%       0.000us         0.00%       0.000us       0.000us       2.000us       100.00%       2.000us       2.000us             1  \n") != NULL);
        CHECK(strstr(t, "NaN") == NULL);
    }
    prof_free_string(t);
    prof_events_free(e);
}

int main(void) {
    prof_set_log(check_log, NULL);
    node_id_negative();
    mtia_device_total();
    name_width_unbounded();
    total_flops_saturate();
    total_has_cpu_parent();
    stack_group_async_self();
    self_cpu_saturates();
    return check_report();
}
