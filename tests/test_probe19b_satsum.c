/* Memory sums near the int64 limits. PyTorch's Python integers are exact;
   prof.h's sums stop at the int64 limits at each step (the manual's
   NUMBERS and the README say so), so where a partial sum leaves int64 and
   a later term brings it back, the result is the limit or off by what was
   cut. This test pins down what prof.h gives there (no wrap, no undefined
   behaviour, the same in the event, its self value and the total average):

   - an event's cpu_memory_usage = the records charged to it, then its own
     value: 1275285 + (-1536) + 484 + (-(2^63-1)) is -9223372036853501574
     in Python; the records' -2^63-1051 stops at INT64_MIN, so prof.h gives
     INT64_MIN + 1275285 = -9223372036853500523 (tests/tables/fuzz.py
     --extreme --seed 19191 case 86).
   - self_cpu_memory_usage = cpu_memory_usage - each child's: parent 2^63-1
     with children -(2^63-1) then 2^63-1 is 2^63-1 in PyTorch, 0 here (the
     first subtraction stops at INT64_MAX). */
#include "prof.h"
#include "check.h"

#include <string.h>

static int64_t add(prof_events *ev, const char *n, int64_t s, int64_t e, int64_t mem) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = n; d.thread = 5; d.start_ns = s; d.end_ns = e; d.cpu_memory_usage = mem;
    return prof_events_add(ev, &d);
}

static void records_then_own_value(void) {
    prof_events *ev = prof_events_create();
    prof_event e;
    prof_avg t;
    add(ev, "op", 1000, 4000, 1275285);
    prof_events_set_flags(ev, 1, 0);
    CHECK_EQ_INT(prof_events_add_memory(ev, 5, 1000, -1536, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 5, 4000, 484, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 5, 1000, -INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
    CHECK_EQ_INT(e.cpu_memory_usage, -9223372036853500523LL); /* Python: -9223372036853501574 */
    CHECK_EQ_INT(e.self_cpu_memory_usage, -9223372036853500523LL);
    t = prof_events_total_average(ev);
    CHECK_EQ_INT(t.cpu_memory_usage, -9223372036853500523LL);
    prof_events_free(ev);
}

static void self_memory_order(void) {
    prof_events *ev = prof_events_create();
    prof_event e;
    prof_avg t;
    add(ev, "P", 0, 10000, INT64_MAX);
    add(ev, "A", 1000, 2000, -INT64_MAX);
    add(ev, "B", 3000, 4000, INT64_MAX);
    prof_events_set_flags(ev, 1, 0);
    CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
    CHECK_EQ_STR(e.name, "P");
    CHECK_EQ_INT(e.n_children, 2);
    CHECK_EQ_INT(e.self_cpu_memory_usage, 0); /* PyTorch: INT64_MAX */
    t = prof_events_total_average(ev);
    CHECK_EQ_INT(t.cpu_memory_usage, INT64_MAX);
    CHECK_EQ_INT(t.self_cpu_memory_usage, 0);
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    records_then_own_value();
    self_memory_order();
    return check_report();
}
