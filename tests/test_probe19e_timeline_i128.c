/* prof_export_memory_timeline writes a live total between 2^63 and 10^19
   - 1 (or its negative) with a leading zero: prof__w_i128 writes the
   high part u / 10^19 with prof__w_u64 even when it is 0, then the low
   part padded to 19 digits. For 2^63 bytes live it writes
   [[1.000, 2.000, ...], [[9223372036854775807], [09223372036854775808], ...
   "09223372036854775808" is not a JSON number (leading zero) and not
   Python's int repr. Sums of 10^19 and more (test_limits) come out right.
   Files go to build/probe19e/ (cwd = repo root). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <sys/stat.h>

#define DIR_ "build/probe19e"

int main(void) {
    prof_events *ev;
    char *text;
    mkdir("build", 0777);
    mkdir(DIR_, 0777);
    prof_set_log(check_log, NULL);
    ev = prof_events_create();
    prof_events_set_flags(ev, 1, 0);
    CHECK(prof_events_add_memory(ev, 1, 1000, INT64_MAX, PROF_DEVICE_CPU, 0) == PROF_OK);
    CHECK(prof_events_add_memory(ev, 1, 2000, 1, PROF_DEVICE_CPU, 0) == PROF_OK);
    CHECK(prof_events_add_memory(ev, 1, 3000, INT64_MIN, PROF_DEVICE_CPU, 0) == PROF_OK);
    CHECK(prof_events_add_memory(ev, 1, 4000, INT64_MIN, PROF_DEVICE_CPU, 0) == PROF_OK);
    CHECK(prof_events_add_memory(ev, 1, 5000, 10, PROF_DEVICE_CPU, 0) == PROF_OK);
    CHECK(prof_export_memory_timeline(ev, DIR_ "/timeline_i128.json", PROF_DEVICE_CPU, 0) == PROF_OK);
    text = check_read_file(DIR_ "/timeline_i128.json");
    /* live: 2^63-1, 2^63, 0, -2^63, -2^63+10 */
    CHECK_EQ_STR(text, "[[1.000, 2.000, 3.000, 4.000, 5.000], [[9223372036854775807], [9223372036854775808], [0], "
                       "[-9223372036854775808], [-9223372036854775798]]]\n");
    CHECK(text && prof_json_valid(text));
    free(text);
    prof_events_free(ev);
    return check_report();
}
