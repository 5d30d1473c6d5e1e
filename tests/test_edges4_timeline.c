/* prof_memory_categories and the memory timeline at their edges:
   - the CPU is one device: a CPU block recorded with device index 3 is in
     the CPU's (index 0) categories and timeline, as it is in the tables;
   - names NULL only counts the categories, whatever max says (nothing is
     written through the NULL);
   - names holds at most max entries: with max 1 and three categories,
     only names[0] is written (the count is still 3).
   Found by mutation testing (fourth pass): each of these, changed alone,
   left every other test passing. */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/test_edges4_timeline.json"

int main(void) {
    static char b1[16], b2[16], b3[16], b4[16];
    static const char sentinel[] = "untouched";
    const char *names[4];
    prof_config cfg;
    prof_events *e;
    char *t;
    size_t i;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    prof_alloc_ex(b1, 100, PROF_DEVICE_CPU, 0, "act");
    prof_alloc_ex(b2, 200, PROF_DEVICE_CPU, 0, "unknown");
    prof_alloc_ex(b3, 400, PROF_DEVICE_CPU, 0, "");
    prof_alloc_ex(b4, 800, PROF_DEVICE_CPU, 3, "cpu3");
    prof_dealloc(b1);
    e = prof_stop();
    if (!CHECK(e != NULL)) return check_report();

    /* counted only (names NULL: nothing written, max or not; a write
       through it crashes the test here) */
    CHECK_EQ_INT(prof_memory_categories(e, PROF_DEVICE_CPU, 0, NULL, 5), 3);
    CHECK_EQ_INT(prof_memory_categories(e, PROF_DEVICE_CPU, 0, NULL, 0), 3);
    /* max 1: names[0] only */
    for (i = 0; i < 4; i++) names[i] = sentinel;
    CHECK_EQ_INT(prof_memory_categories(e, PROF_DEVICE_CPU, 0, names, 1), 3);
    CHECK_EQ_STR(names[0], "unknown");
    for (i = 1; i < 4; i++) CHECK_MSG(names[i] == sentinel, "names[%zu] written with max 1: %s", i, names[i] ? names[i] : "NULL");
    /* all of them: the CPU's index-3 block among them */
    for (i = 0; i < 4; i++) names[i] = sentinel;
    CHECK_EQ_INT(prof_memory_categories(e, PROF_DEVICE_CPU, 0, names, 4), 3);
    CHECK_EQ_STR(names[0], "unknown");
    CHECK_EQ_STR(names[1], "act");
    CHECK_EQ_STR(names[2], "cpu3");
    CHECK(names[3] == sentinel);
    /* the timeline, three columns: after the last record (the last point,
       whatever records shared a tick) unknown 600, act 0, cpu3 800 */
    if (CHECK_EQ_INT(prof_export_memory_timeline(e, OUT, PROF_DEVICE_CPU, 0), PROF_OK) && CHECK((t = check_read_file(OUT)) != NULL)) {
        const char *sizes = strstr(t, "], [");
        CHECK(sizes != NULL);
        CHECK_MSG(strstr(t, "[600, 0, 800]]]") != NULL, "timeline: %s", t);
        free(t);
    }
    prof_events_free(e);
    unlink(OUT);
    return check_report();
}
