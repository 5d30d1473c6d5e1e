/* A zero-length event that begins at the same nanosecond as its parent
   (an empty scope entered in the same clock tick as the scope around it:
   common with a coarse counter, e.g. aarch64's 24-54 MHz virtual counter,
   or a TSC that moves in 10 ns steps; and in hand-built lists) must load
   in speedscope as it loads in DevTools, without importer warnings: the
   manual and README promise that every viewer nests the JSON trace's
   events ("speedscope warns of nothing").

   speedscope's trace importer turns each "X" into a begin and an end and,
   at equal ts, takes an end before a begin unless both are the same frame
   (name + args). For P [0, 10 us] with Z [0, 0] inside it, written as
   {"name": "P", "ts": 0.0, "dur": 10.0} and {"name": "Z", "ts": 0.0,
   "dur": 0.0}, it ends Z before anything began ("Tried to end frame Z ...
   but the stack was empty"), then begins P and Z and never ends Z, so Z
   covers the rest of the thread ("Tried to end P when Z was on the top of
   the stack", "Frame Z was still open at end of profile"): the flame chart
   is wrong from there on. DevTools' engine nests the same file correctly.
   The same happens to a 1 ns event that begins with its parent and is
   followed at once by a sibling (P [1000, 1010 us], A [1000 us, +1 ns],
   B [+1 ns, 1005 us]): the touching rule trims A to "dur": 0.000
   (one.json). And a 1 ns event that ends with its parent, which ends with
   its own parent (R [0, 100 us], E [60 us, 100 us], F [100 us - 1 ns,
   100 us]): E is written to end at 99.999, F at ts 99.999 with "dur":
   0.000, so DevTools' engine puts F under R, not E (chain.json).

   Writes build/probe19b_zero/zero.json and its expectations; runs
   tests/js/check_trace.mjs and check_speedscope.mjs when node and
   tests/js/node_modules are there (cwd = repo root), else skips. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe19b_zero"

static void add(prof_events *ev, const char *n, int64_t s, int64_t e) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = n; d.thread = 1; d.start_ns = s; d.end_ns = e;
    CHECK(prof_events_add(ev, &d) >= 0);
}

int main(void) {
    prof_events *ev = prof_events_create();
    prof_event e;
    FILE *f;
    struct stat st;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    add(ev, "P", 0, 10000);      /* a scope */
    add(ev, "Z", 0, 0);          /* an empty scope entered in P's first tick */
    add(ev, "C", 2000, 8000);    /* a later child of P */
    add(ev, "Q", 20000, 30000);  /* the next root */
    CHECK_EQ_INT(prof_events_count(ev), 4);
    CHECK_EQ_INT(prof_events_get(ev, 1, &e), PROF_OK);
    CHECK_EQ_STR(e.name, "Z");
    CHECK_EQ_INT(e.parent, 0); /* PyTorch's tree: Z is P's child */
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/zero.json"), PROF_OK);
    f = fopen(OUT "/zero.expect.json", "w");
    if (CHECK(f != NULL)) {
        fprintf(f, "{\"threads\": {\"1\": {\"scopes\": {\"P\": 1, \"Z\": 1, \"C\": 1, \"Q\": 1},\n"
                   "  \"parents\": {\"P\": null, \"Z\": \"P\", \"C\": \"P\", \"Q\": null}}},\n"
                   " \"exact_threads\": true}\n");
        fclose(f);
    }
    prof_events_free(ev);
    ev = prof_events_create();
    add(ev, "P", 1000000, 1010000);
    add(ev, "A", 1000000, 1000001);
    add(ev, "B", 1000001, 1005000);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/one.json"), PROF_OK);
    f = fopen(OUT "/one.expect.json", "w");
    if (CHECK(f != NULL)) {
        fprintf(f, "{\"threads\": {\"1\": {\"scopes\": {\"P\": 1, \"A\": 1, \"B\": 1},\n"
                   "  \"parents\": {\"P\": null, \"A\": \"P\", \"B\": \"P\"}}},\n"
                   " \"exact_threads\": true}\n");
        fclose(f);
    }
    prof_events_free(ev);
    ev = prof_events_create();
    add(ev, "R", 0, 100000);
    add(ev, "E", 60000, 100000);
    add(ev, "F", 99999, 100000);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/chain.json"), PROF_OK);
    f = fopen(OUT "/chain.expect.json", "w");
    if (CHECK(f != NULL)) {
        fprintf(f, "{\"threads\": {\"1\": {\"scopes\": {\"R\": 1, \"E\": 1, \"F\": 1},\n"
                   "  \"parents\": {\"R\": null, \"E\": \"R\", \"F\": \"E\"}}},\n"
                   " \"exact_threads\": true}\n");
        fclose(f);
    }
    prof_events_free(ev);
    if (system("node --version >/dev/null 2>&1") == 0 && stat("tests/js/node_modules/speedscope", &st) == 0) {
        fflush(stdout);
        CHECK_MSG(system("cd tests/js && node check_trace.mjs ../../" OUT "/zero.json ../../" OUT "/zero.expect.json") == 0,
                  "DevTools' trace engine: " OUT "/zero.json");
        CHECK_MSG(system("cd tests/js && node check_speedscope.mjs ../../" OUT "/zero.json ../../" OUT "/zero.expect.json") == 0,
                  "speedscope: " OUT "/zero.json (a zero-length child at its parent's start)");
        CHECK_MSG(system("cd tests/js && node check_trace.mjs ../../" OUT "/one.json ../../" OUT "/one.expect.json") == 0,
                  "DevTools' trace engine: " OUT "/one.json");
        CHECK_MSG(system("cd tests/js && node check_speedscope.mjs ../../" OUT "/one.json ../../" OUT "/one.expect.json") == 0,
                  "speedscope: " OUT "/one.json (a 1 ns child at its parent's start, trimmed to dur 0)");
        CHECK_MSG(system("cd tests/js && node check_trace.mjs ../../" OUT "/chain.json ../../" OUT "/chain.expect.json") == 0,
                  "DevTools' trace engine: " OUT "/chain.json (a 1 ns child that ends with its parent, trimmed to dur 0 at the parent's written end)");
    } else {
        printf("test_probe19b_zero: node or tests/js/node_modules missing: skipped\n");
    }
    return check_report();
}
