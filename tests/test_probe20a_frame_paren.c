/* A source path with " (" in it ("/home/me/proj (2)/src/a.c": a copied
   directory, a desktop folder) must be cut and split like any other.

   With with_stack = PROF_STACK_SCOPES each frame is "name (file:line)".
   prof__pp_split (>>x_pprof) finds the file by scanning BACK from ":line)"
   to the nearest " (", which for such a path is the one inside the path.
   So today:
     - pprof: function name "outer (/tmp/proj" and file "2)/lib/b.c";
     - the default source prefix (the longest common directory of the
       recorded files, "/tmp/proj (2)/") is not cut from the frames of the
       JSON trace's "Call stack", the folded stacks or Perfetto's frames
       (its source_locations, made from the sites, are cut: "lib/b.c"),
       so the same export shows the path two ways.
   Correct (as for a path without " ("): function "outer", file "lib/b.c"
   in pprof; "inner (src/a.c:10);outer (lib/b.c:20);" in the Call stack;
   "outer_(lib/b.c:20);inner_(src/a.c:10)" in the folded stacks. A name
   with " (" of its own ("get (cached)") keeps it: its file is still the
   one after the last " (" whose parentheses are whole. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define OUT "build/probe20a_frame_paren"

static int has(const char *p, size_t n, const char *s, size_t k) {
    size_t i;
    for (i = 0; i + k <= n; i++) if (memcmp(p + i, s, k) == 0) return 1;
    return 0;
}

#line 10 "/tmp/proj (2)/src/a.c"
static void inner(void) { PROF_SCOPE("inner"); struct timespec ts = { 0, 3000000 }; nanosleep(&ts, NULL); }
#line 30 "/tmp/proj (2)/lib/c.c"
static void cached(void) { PROF_SCOPE("get (cached)"); } /* a name with " (" of its own */
#line 20 "/tmp/proj (2)/lib/b.c"
static void outer(void) { PROF_SCOPE("outer"); inner(); cached(); }
#line 57 "tests/test_probe20a_frame_paren.c"

int main(void) {
    prof_config c;
    prof_events *ev;
    char *p;
    size_t n;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    memset(&c, 0, sizeof c);
    c.with_stack = PROF_STACK_SCOPES;
    c.log = check_log;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    outer();
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_count(ev), 3);

    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/t.json"), PROF_OK);
    p = check_read_file_n(OUT "/t.json", &n);
    if (CHECK(p != NULL)) {
        CHECK_MSG(strstr(p, "\"Call stack\": \"inner (src/a.c:10);outer (lib/b.c:20);\"") != NULL,
                  "the common directory \"/tmp/proj (2)/\" must be cut from the Call stack as from any path");
        free(p);
    }

    CHECK_EQ_INT(prof_export_stacks_merged(ev, OUT "/s.folded", NULL), PROF_OK);
    p = check_read_file_n(OUT "/s.folded", &n);
    if (CHECK(p != NULL)) {
        CHECK_MSG(strstr(p, "outer_(lib/b.c:20);inner_(src/a.c:10) ") != NULL, "folded stacks: got '%s'", p);
        free(p);
    }

    CHECK_EQ_INT(prof_export_pprof(ev, OUT "/p.pb", NULL), PROF_OK);
    p = check_read_file_n(OUT "/p.pb", &n);
    if (CHECK(p != NULL)) {
        /* string_table entries: field 6, wire type 2 (0x32), length, bytes */
        CHECK_MSG(has(p, n, "\x32\x05outer", 7), "pprof: no function name \"outer\"");
        CHECK_MSG(has(p, n, "\x32\x07lib/b.c", 9), "pprof: no file name \"lib/b.c\"");
        CHECK_MSG(!has(p, n, "outer (/tmp/proj", 16), "pprof: the function name took part of the path");
        CHECK_MSG(!has(p, n, "2)/lib/b.c", 10), "pprof: the file name lost its start");
        CHECK_MSG(has(p, n, "\x32\x0cget (cached)", 14), "pprof: no function name \"get (cached)\"");
        CHECK_MSG(has(p, n, "\x32\x07lib/c.c", 9), "pprof: no file name \"lib/c.c\"");
        free(p);
    }

    CHECK_EQ_INT(prof_export_perfetto(ev, OUT "/t.pftrace"), PROF_OK);
    p = check_read_file_n(OUT "/t.pftrace", &n);
    if (CHECK(p != NULL)) {
        CHECK_MSG(has(p, n, "outer (lib/b.c:20)", 18), "perfetto: the frame must show the cut path, as its source location does");
        CHECK_MSG(!has(p, n, "outer (/tmp/proj (2)/lib/b.c:20)", 32), "perfetto: the frame kept the whole path");
        free(p);
    }
    prof_events_free(ev);
    return check_report();
}
