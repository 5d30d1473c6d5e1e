/* "[memory]" rows (allocations outside every scope) are made each time
   the tree is built, each with an extra record for its bytes. A list read
   after each of many adds rebuilt its rows each time and kept the old
   rows' extras: memory grew with rows x rebuilds (100 rows and 50 reads:
   5000 extras of 128 bytes for 100 rows). The rows' extras are given back
   when the rows are dropped for the rebuild. And a kernel appended to a
   row was accepted and then gone at the next build (the row is remade
   from its record): refused with PROF_E_ARG. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

enum { ROWS = 100, READS = 50 };

int main(void) {
    prof_events *ev = prof_events_create();
    prof_event row;
    size_t i, ex_after_first = 0;
    prof_set_log(check_log, NULL);
    /* allocations at 0..99 ns, before the first scope: a row each */
    for (i = 0; i < ROWS; i++) CHECK_EQ_INT(prof_events_add_memory(ev, 1, (int64_t)i, 64, PROF_DEVICE_CPU, 0), PROF_OK);
    for (i = 0; i < READS; i++) {
        check_add_event(ev, "op", 1, 1000 + 100 * (int64_t)i, 1050 + 100 * (int64_t)i);
        CHECK_EQ_INT(prof_events_count(ev), ROWS + i + 1); /* a read: the rows made again */
        if (i == 0) ex_after_first = ev->nex;
    }
    CHECK_MSG(ev->nex <= ex_after_first + READS, "%zu extra records after %d reads, %zu after the first", ev->nex, READS, ex_after_first);
    /* the rows are right: each one's 64 bytes */
    CHECK_EQ_INT(prof_events_get(ev, 0, &row), PROF_OK);
    CHECK_EQ_STR(row.name, "[memory]");
    CHECK_EQ_INT(row.cpu_memory_usage, 64);
    CHECK_EQ_INT(prof_events_get(ev, ROWS - 1, &row), PROF_OK);
    CHECK_EQ_STR(row.name, "[memory]");
    CHECK_EQ_INT(row.cpu_memory_usage, 64);
    /* no kernel on a row */
    CHECK_EQ_INT(prof_events_append_kernel(ev, 0, "k", 0, 10), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_get(ev, 0, &row), PROF_OK);
    CHECK_EQ_INT(row.n_kernels, 0);
    prof_events_free(ev);
    return check_report();
}
