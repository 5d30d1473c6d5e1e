/* Found: a hand-built list need not be in start order (prof_events_add keeps the
   order it is given; the exporters sort where they need to:
   prof__trace_overlaps sorts a list that is not e->in_order). The JSON
   trace's 1 ns trim of a top-level event whose follower on its lane
   begins where it ends (manual, TIMES IN THE JSON TRACE: "dur is exact
   too, except where ... the next event of its thread begins: then it ends
   1 ns earlier ... so that ts + dur, added as doubles by viewers, nests
   strictly") is decided by prof__root_touch / prof__touch_scan, which walk
   the list in index order ("Events come in start order") and compare each
   top-level event with the lane's previous one in the list. Added as
   B [300, 400] then A [100, 300], A's follower B comes before it, so A is
   not trimmed: "ts": 0.100, "dur": 0.200, whose sum as doubles is
   0.30000000000000004, past B's ts 0.300. DevTools' trace engine leaves B
   out of its call tree ('"B" ts=0.3 dur=0.1'), speedscope warns 'Tried to
   end "A" when "B" was on the top of the stack' and leaves A open to the
   end. The same two events added in start order are written right (A's
   dur 0.199). The same holds on a device stream (the lane map of
   prof__touch_scan, same walk).

   The check reads the JSON's "X" events per (pid, tid) as doubles, as a
   viewer does, and asks that every two on one lane nest or follow (the
   later begins at or after the earlier's ts + dur); with node and tests/js/node_modules check_trace.mjs runs too.

   Fixed (>>x_chrome, prof__touch_whole): a list that is not in start
   order (!e->in_order, or device events out of order) is read in
   (start, -end) order, so that "the next top-level event of its lane" is
   the next in time. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe21c_unordered_touch"

static void add(prof_events *ev, const char *name, int device, int64_t start, int64_t end) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = start;
    d.end_ns = end;
    if (device) {
        d.device_type = PROF_DEVICE_CUDA;
        d.set = PROF_EVENT_RESOURCE_ID;
        d.device_resource_id = 7;
    }
    CHECK(prof_events_add(ev, &d) >= 0);
}

static void run(const char *name, prof_events *ev) {
    static const char *const ab[] = {"A", "B"};
    char path[256];
    snprintf(path, sizeof path, OUT "/%s.json", name);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    check_json_lanes(path, ab, 2);
    check_viewers_any(OUT, name);
}

int main(void) {
    prof_events *ev;
    int device;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    for (device = 0; device < 2; device++) {
        /* in start order: right today */
        ev = prof_events_create();
        add(ev, "A", device, 100, 300);
        add(ev, "B", device, 300, 400);
        run(device ? "dev_in_order" : "cpu_in_order", ev);
        prof_events_free(ev);
        /* the follower first */
        ev = prof_events_create();
        add(ev, "B", device, 300, 400);
        add(ev, "A", device, 100, 300);
        run(device ? "dev_reversed" : "cpu_reversed", ev);
        prof_events_free(ev);
    }
    return check_report();
}
