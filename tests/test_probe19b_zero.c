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
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe19b_zero"

/* One case: its list, exported to OUT/file.json, and the viewers' nesting
   written by hand in OUT/file.expect.json (not from prof.h's tree). */
typedef struct { const char *name; int64_t start, end; } span;
typedef struct {
    const char *file;
    span spans[5];        /* ended by a NULL name */
    const char *expect;   /* file.expect.json */
    int speedscope;       /* check_viewers': speedscope too */
} zero_case;

static const zero_case cases[] = {
    {"zero",
     {{"P", 0, 10000},     /* a scope */
      {"Z", 0, 0},         /* an empty scope entered in P's first tick */
      {"C", 2000, 8000},   /* a later child of P */
      {"Q", 20000, 30000}, /* the next root */
      {NULL, 0, 0}},
     "{\"threads\": {\"1\": {\"scopes\": {\"P\": 1, \"Z\": 1, \"C\": 1, \"Q\": 1},\n"
     "  \"parents\": {\"P\": null, \"Z\": \"P\", \"C\": \"P\", \"Q\": null}}},\n"
     " \"exact_threads\": true}\n",
     1},
    /* a 1 ns child at its parent's start, trimmed to dur 0 */
    {"one",
     {{"P", 1000000, 1010000}, {"A", 1000000, 1000001}, {"B", 1000001, 1005000}, {NULL, 0, 0}},
     "{\"threads\": {\"1\": {\"scopes\": {\"P\": 1, \"A\": 1, \"B\": 1},\n"
     "  \"parents\": {\"P\": null, \"A\": \"P\", \"B\": \"P\"}}},\n"
     " \"exact_threads\": true}\n",
     1},
    /* a 1 ns child that ends with its parent, trimmed to dur 0 at the
       parent's written end: DevTools' engine only */
    {"chain",
     {{"R", 0, 100000}, {"E", 60000, 100000}, {"F", 99999, 100000}, {NULL, 0, 0}},
     "{\"threads\": {\"1\": {\"scopes\": {\"R\": 1, \"E\": 1, \"F\": 1},\n"
     "  \"parents\": {\"R\": null, \"E\": \"R\", \"F\": \"E\"}}},\n"
     " \"exact_threads\": true}\n",
     0},
};

int main(void) {
    size_t i;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const zero_case *c = &cases[i];
        prof_events *ev = prof_events_create();
        const span *sp;
        prof_event e;
        char path[256];
        FILE *f;
        for (sp = c->spans; sp->name; sp++) check_add_event(ev, sp->name, 1, sp->start, sp->end);
        if (i == 0) {
            CHECK_EQ_INT(prof_events_count(ev), 4);
            CHECK_EQ_INT(prof_events_get(ev, 1, &e), PROF_OK);
            CHECK_EQ_STR(e.name, "Z");
            CHECK_EQ_INT(e.parent, 0); /* PyTorch's tree: Z is P's child */
        }
        snprintf(path, sizeof path, OUT "/%s.json", c->file);
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        snprintf(path, sizeof path, OUT "/%s.expect.json", c->file);
        f = fopen(path, "w");
        if (CHECK(f != NULL)) {
            fputs(c->expect, f);
            fclose(f);
        }
        prof_events_free(ev);
    }
    if (!check_have_viewers()) {
        printf("test_probe19b_zero: node or tests/js/node_modules missing: skipped\n");
        return check_report();
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) check_viewers(OUT, cases[i].file, cases[i].speedscope);
    return check_report();
}
