/* Device events in the JSON trace must nest strictly on their lane, as
   CPU events do (manual, TIMES IN THE JSON TRACE: "so that ts + dur, added
   as doubles by viewers (DevTools, speedscope, Perfetto), nests strictly";
   a CPU event that overlaps its thread's without nesting is written as a
   pair "so DevTools keeps it"). On a device stream (pid = device, tid =
   stream) prof_export_chrome_trace writes every event as an "X" as it is,
   so DevTools' trace engine (tests/js/check_trace.mjs) leaves kernels out
   of its tree, and speedscope warns and ends the wrong frame:

   1. Two kernels of one stream that overlap without nesting, [100, 200]
      and [150, 300] ns. Real with Hopper's programmatic dependent launch,
      where a kernel begins before the one before it on its stream has
      ended, and any hand-built list. DevTools: '"k2" ts=0.15 dur=0.15'
      left out of the call tree. prof_export_perfetto already puts the
      second on a lane of its own under the stream (prof__pft_lane_event,
      "stream 7 (2)"); the JSON has no such treatment: prof__trace_overlaps
      skips every event with device_type != CPU, so none is written as a
      pair or moved.
   2. A kernel inside another on the stream ([100, 300] holding
      [150, 200]), then one that begins where the outer one ends ([300,
      400]). The 1 ns trim at a touching follower is decided per lane by
      prof__touch_scan, which compares each top-level event only with the
      lane's LAST one ([150, 200]), never with the still-open [100, 300]:
      that is written untrimmed, "ts": 0.100, "dur": 0.200, whose sum as
      doubles (0.30000000000000004) is past the next one's ts 0.300, and
      DevTools drops '"k4" ts=0.3 dur=0.1'. (The same shape on a CPU
      thread is trimmed right: there the inner one is a child and the
      outer one's next sibling is the follower.)
   The check here needs no viewer: it reads the JSON's "X" events per (pid,
   tid) as doubles, as a viewer does, and asks that every two on one lane
   either nest (the later ends no later than the earlier) or follow it
   (the later begins at or after the earlier's end, ts + dur in doubles);
   and that every kernel is in the file (as an "X" or a "b").
   With node and tests/js/node_modules, check_trace.mjs also runs (it
   fails on any complete event the engine left out of its tree).

   Fixed (>>x_chrome): prof__trace_overlaps walks each device stream as it
   walks a thread, so an event that overlaps its stream's without nesting
   is written as a pair; prof__touch_scan keeps each stream's open events,
   so an event that touches its follower is trimmed whatever it encloses. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe21c_device_nesting"

static void run(const char *name, prof_events *ev, const char *const *names, int nnames) {
    char path[256];
    snprintf(path, sizeof path, OUT "/%s.json", name);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    check_json_lanes(path, names, nnames);
    check_viewers_any(OUT, name);
}

int main(void) {
    static const char *const k12[] = {"k1", "k2"};
    static const char *const k124[] = {"k1", "k2", "k4"};
    prof_events *ev;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);

    /* 1. overlapping kernels on one stream */
    ev = prof_events_create();
    check_add_kernel(ev, "k1", 0, 7, 100, 200);
    check_add_kernel(ev, "k2", 0, 7, 150, 300);
    run("overlap", ev, k12, 2);
    prof_events_free(ev);

    /* 2. a kernel inside another, then one at the outer one's end */
    ev = prof_events_create();
    check_add_kernel(ev, "k1", 0, 7, 100, 300);
    check_add_kernel(ev, "k2", 0, 7, 150, 200);
    check_add_kernel(ev, "k4", 0, 7, 300, 400);
    run("nest_touch", ev, k124, 3);
    prof_events_free(ev);

    /* (Streams past 2^53, which a JSON reader reads as one number, are
       written as they are: a known limit, in the manual's TRACE FILES;
       Perfetto's native trace keeps them apart.) */
    return check_report();
}
