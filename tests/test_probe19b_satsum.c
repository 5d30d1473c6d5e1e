/* Memory sums whose exact value fits int64 must come out exact, as
   PyTorch's Python integers give them; prof.h saturates each partial sum,
   so the order of the terms changes the result when one partial sum
   leaves int64 and a later term brings it back:

   - an event's cpu_memory_usage = its own value + the records charged to
     it (prof__memory_usage sums the records into rec_cpu_mem, saturated,
     then prof__mem_of adds the event's own): 1275285 + (-1536) + 484 +
     (-(2^63-1)) is -9223372036853501574, prof.h gives
     -9223372036853500523 (the records' -2^63-1051 stopped at INT64_MIN).
     tests/tables/fuzz.py --extreme --seed 19191 case 86 found it
     (total_average's cpu_memory_usage).
   - self_cpu_memory_usage = cpu_memory_usage - sum(children's)
     (prof__self_mem): parent 2^63-1 with children -(2^63-1) then 2^63-1
     is 2^63-1 in PyTorch (M - (-M) - M), 0 in prof.h (the first
     subtraction stopped at INT64_MAX); total_average's
     self_cpu_memory_usage likewise (M + (-M) + M = M). */
#define PROF_IMPLEMENTATION
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
    CHECK_EQ_INT(e.cpu_memory_usage, -9223372036853501574LL);
    CHECK_EQ_INT(e.self_cpu_memory_usage, -9223372036853501574LL);
    t = prof_events_total_average(ev);
    CHECK_EQ_INT(t.cpu_memory_usage, -9223372036853501574LL);
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
    CHECK_EQ_INT(e.self_cpu_memory_usage, INT64_MAX);
    t = prof_events_total_average(ev);
    CHECK_EQ_INT(t.cpu_memory_usage, INT64_MAX);
    CHECK_EQ_INT(t.self_cpu_memory_usage, INT64_MAX);
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    records_then_own_value();
    self_memory_order();
    return check_report();
}
