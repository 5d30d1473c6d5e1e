/* Sums of memory sizes past int64, kept exact in 128 bits: with __int128
   where the compiler has it, else (i386; test_wide_sums_halves builds this
   file with PROF__NO_INT128 on any target) in two 64-bit halves.
   - The memory charged to an event is the difference of two prefix sums
     over the records of all threads (sorted by thread, then time). Where
     one thread's records pass 2^63 in all, the sums once saturated there
     on i386, so a later thread's event read 0 for its own 1000 bytes.
   - The memory timeline writes its live totals whole: one 19-digit part,
     two parts past 10^19, and negative ones (exact decimal strings).
   test_probe19e_timeline_i128 pins the values around 2^63. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdlib.h>
#include <sys/stat.h>

#define DIR_ "build/wide_sums"

static const char *cpu_mem_of(prof_events *ev, const char *name, int64_t *mem) {
    size_t i;
    prof_event e;
    for (i = 0; i < prof_events_count(ev); i++)
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) { *mem = e.cpu_memory_usage; return name; }
    return NULL;
}

static void charges(void) {
    prof_events *ev = prof_events_create();
    int64_t m = 0;
    check_add_event(ev, "big", 1, 0, 1000);
    check_add_event(ev, "small", 2, 0, 1000);
    check_add_event(ev, "after", 3, 0, 1000);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 100, INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 200, INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 300, 5, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 2, 500, 1000, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 3, 500, -7, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 3, 600, INT64_MIN, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 3, 700, INT64_MIN, PROF_DEVICE_CPU, 0), PROF_OK);
    /* 2^64 + 3 bytes in all stops at the int64 limit, as every sum does */
    if (CHECK(cpu_mem_of(ev, "big", &m) != NULL)) CHECK_EQ_INT(m, INT64_MAX);
    /* exact although the sums before it passed 2^64 */
    if (CHECK(cpu_mem_of(ev, "small", &m) != NULL)) CHECK_EQ_INT(m, 1000);
    if (CHECK(cpu_mem_of(ev, "after", &m) != NULL)) CHECK_EQ_INT(m, INT64_MIN);
    prof_events_free(ev);
}

static void timeline(void) {
    prof_events *ev = prof_events_create();
    char *text;
    int k;
    for (k = 0; k < 3; k++) CHECK_EQ_INT(prof_events_add_memory(ev, 1, 1000 * (k + 1), INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    for (k = 0; k < 4; k++) CHECK_EQ_INT(prof_events_add_memory(ev, 1, 4000, INT64_MIN, PROF_DEVICE_CPU, 0), PROF_OK);
    for (k = 0; k < 2; k++) CHECK_EQ_INT(prof_events_add_memory(ev, 1, 5000, INT64_MIN, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 6000, INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 6000, INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 7000, INT64_MAX, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, DIR_ "/timeline.json", PROF_DEVICE_CPU, 0), PROF_OK);
    text = check_read_file(DIR_ "/timeline.json");
    /* live (Python's integers): 2^63-1, 2^64-2, 3*2^63-3 (two parts past
       10^19), 3*2^63-3 - 2^65 (below INT64_MIN), then 2^64 less (two
       parts, negative), then 2^64-2 more, then 2^63-1 more */
    CHECK_EQ_STR(text, "[[1.000, 2.000, 3.000, 4.000, 5.000, 6.000, 7.000], "
                       "[[9223372036854775807], [18446744073709551614], [27670116110564327421], [-9223372036854775811], "
                       "[-27670116110564327427], [-9223372036854775813], [-6]]]\n");
    CHECK(text && prof_json_valid(text));
    free(text);
    prof_events_free(ev);
}

int main(void) {
    mkdir("build", 0777);
    mkdir(DIR_, 0777);
    prof_set_log(check_log, NULL);
    charges();
    timeline();
    return check_report();
}
