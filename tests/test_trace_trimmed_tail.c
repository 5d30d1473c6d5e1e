/* A 10 ms event written with "dur": 0.000, its subtree with it. root
   [0, 10 ms] touches its follower and has 5000 children: 4999 leaves, then
   a [10 us, 10 ms] holding b [10.01 us, 10 ms] holding c [10 ms - 1 ns,
   10 ms]. The JSON trace's walk down root's chain of last children stops
   past 4096 siblings, so root is trimmed by a whole ns; a's walk then took
   in c, which begins at that bound, and the room left for the chain was
   none: a and b were written with dur 0. A chain member that begins at or
   past the bound is now left out of the walk (it cannot be placed there,
   and takes no room from the levels above it): a and b keep their ns but
   the last, nested. The same list with an overlapping event on the thread
   takes the lanes' walk (prof__lane_durs), where every level nests. */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T 10000000 /* ns */

/* An "X" event's ts and dur as written, in us, read as a viewer reads them. */
static int x_event(const char *text, const char *name, double *ts, double *dur) {
    char key[64];
    const char *p;
    snprintf(key, sizeof key, "\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"%s\"", name);
    if (!(p = strstr(text, key)) || !(p = strstr(p, "\"ts\": "))) return 0;
    return sscanf(p, "\"ts\": %lf, \"dur\": %lf", ts, dur) == 2;
}

static void run(int with_overlap) {
    prof_events *ev = prof_events_create();
    double ts[4], dur[4];
    const char *names[4] = { "root", "a", "b", "c" };
    char *text;
    int k;
    check_add_event(ev, "root", 1, 0, T);
    check_add_event(ev, "next", 1, T, T + 100);
    for (k = 0; k < 4999; k++) check_add_event(ev, "leaf", 1, 1 + 2 * k, 2 + 2 * k);
    check_add_event(ev, "a", 1, 10000, T);
    check_add_event(ev, "b", 1, 10010, T);
    check_add_event(ev, "c", 1, T - 1, T);
    if (with_overlap) check_add_event(ev, "across", 1, T - 500, T + 50); /* overlaps root and next: a pair */
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "test_trace_trimmed_tail.json"), PROF_OK);
    text = check_read_file("test_trace_trimmed_tail.json");
    if (!CHECK(text != NULL)) return;
    for (k = 0; k < 4; k++) CHECK_MSG(x_event(text, names[k], &ts[k], &dur[k]), "%s not found", names[k]);
    CHECK(ts[1] == 10.0);
    CHECK_MSG(dur[1] >= (T - 10000 - 3) / 1e3, "a: dur %.4f us (%s)", dur[1], with_overlap ? "lanes" : "tree");
    CHECK_MSG(dur[2] >= (T - 10010 - 4) / 1e3, "b: dur %.4f us", dur[2]);
    for (k = 1; k < (with_overlap ? 4 : 3); k++) /* a in root, b in a (and c in b on the lanes: no sibling budget there), strictly */
        CHECK_MSG(ts[k] >= ts[k - 1] && ts[k] + dur[k] < ts[k - 1] + dur[k - 1], "%s [%.4f, %.4f] not in %s [%.4f, %.4f]", names[k], ts[k], ts[k] + dur[k],
                  names[k - 1], ts[k - 1], ts[k - 1] + dur[k - 1]);
    CHECK(ts[0] + dur[0] < T / 1e3); /* root before next */
    free(text);
    unlink("test_trace_trimmed_tail.json");
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    run(0);
    run(1);
    return check_report();
}
