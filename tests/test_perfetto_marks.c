/* Marks in the Perfetto trace where trace_processor's importer keeps them.
   A track holds 512 open slices and the importer drops the 513th; a mark
   is an instant on its thread's track, which stays on the track's stack
   until an event at a later time pops it, so marks at one timestamp stack
   on each other (slice_tracker.cc: "instants stack on top of each other").
   prof_export_perfetto moved a mark off its thread's track only when 512
   slices were open there, and then always to the track of levels
   512-1023. So it lost (check_perfetto.py, which replays the file the
   importer's way, reports each drop):
     - a mark with 1024 or more scopes open (the levels 512-1023 track was
       as full);
     - the second of two marks in one clock tick with 511 scopes open, and
       the marks past the 512th in one tick at top level (a clock that
       moves in steps: 10 ns on one VM here, coarser on some ARM boards).
   Expected: every mark kept, on the track for its level: its thread's
   scopes open at its time plus the marks of its thread before it at that
   time. A scope that ends at a mark's time is not open there; one that
   begins at it is.

   Time is virtual (fake_tsc.h: it moves only when the test sets vc), so
   that marks share a tick; x86-64 only, elsewhere the test is skipped. */
#define _GNU_SOURCE
#include "fake_tsc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "fake_tsc.h"
#include "check.h"

#if defined(PROBE_FAKE_TSC)
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#define OUT "build/perfetto_marks"
static uint64_t test_rdtsc(void) { return (uint64_t)__atomic_load_n(&vc, __ATOMIC_SEQ_CST) * 3u; } /* 3 GHz */

/* n scopes nested (two names: _remove_dup_nodes folds a child named as its
   parent), time moving 10 ns at each begin and end; at the innermost, leaf(). */
static void nest(int n, void (*leaf)(void)) {
    vc += 10;
    if (n <= 0) {
        leaf();
        vc += 10;
        return;
    }
    if (n & 1) {
        PROF_SCOPE("odd");
        nest(n - 1, leaf);
        vc += 10;
    } else {
        PROF_SCOPE("even");
        nest(n - 1, leaf);
        vc += 10;
    }
}
static void two_marks(void) { PROF_MARK("tick pair"); PROF_MARK("tick pair"); } /* one tick: levels 511 and 512 */
static void many_marks(void) { int k; for (k = 0; k < 600; k++) PROF_MARK("tick many"); }
static void deep_marks(void) { PROF_MARK("deep"); PROF_MARK("deep"); } /* 1024 open: levels 1024 and 1025 */
/* At the tick where a scope ends (not open at the mark) and where one
   begins (open at it), with 511 scopes around. */
static void edge_marks(void) {
    {
        PROF_SCOPE("ends at the mark"); /* the 512th */
        vc += 10;
    }
    PROF_MARK("edge end"); /* level 511: the thread's track */
    PROF_MARK("edge end"); /* 512: the next */
    vc += 10;
    {
        PROF_SCOPE("begins at the mark"); /* the 512th */
        PROF_MARK("edge begin"); /* level 512 */
        vc += 10;
    }
}
static void *worker(void *arg) {
    (void)arg;
    prof_set_thread_name("worker");
    nest(511, two_marks); /* its own marks' levels: cursors per thread */
    return NULL;
}

/* The number of marks named `name` on the track described with `label`
   ("-": a thread's own track), from tests/export/perfetto_marks.py. */
static char marks_tab[8192];
static void marks_load(const char *pf) {
    char cmd[512];
    FILE *p;
    size_t n;
    snprintf(cmd, sizeof cmd, "python3 tests/export/perfetto_marks.py %s", pf);
    fflush(stdout);
    marks_tab[0] = 0;
    if (!CHECK((p = popen(cmd, "r")) != NULL)) return;
    n = fread(marks_tab, 1, sizeof marks_tab - 1, p);
    marks_tab[n] = 0;
    CHECK(pclose(p) == 0);
    printf("%s", marks_tab);
}
static int marks_on(const char *name, const char *label) {
    char want[256];
    const char *at;
    snprintf(want, sizeof want, "\t%s\t%s\n", label, name);
    if (!(at = strstr(marks_tab, want))) return 0;
    while (at > marks_tab && at[-1] != '\n') at--; /* the line's count */
    return atoi(at);
}

int main(void) {
    prof_config c;
    prof_events *ev;
    pthread_t th;
    const char *js = OUT "/marks.json", *pf = OUT "/marks.pftrace";
    char cmd[512];
    CHECK(mkdir("build", 0755) == 0 || errno == EEXIST);
    CHECK(mkdir(OUT, 0755) == 0 || errno == EEXIST);
    memset(&c, 0, sizeof c);
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    prof_set_thread_name("main");
    vc += 1000;
    nest(511, two_marks);
    vc += 1000;
    many_marks(); /* top level, one tick */
    vc += 1000;
    nest(1024, deep_marks);
    vc += 1000;
    nest(511, edge_marks);
    vc += 1000;
    if (CHECK(pthread_create(&th, NULL, worker, NULL) == 0)) pthread_join(th, NULL);
    vc += 1000;
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_export_chrome_trace(ev, js), PROF_OK);
    CHECK_MSG(prof_export_perfetto(ev, pf) == PROF_OK, "prof_export_perfetto: %s", prof_last_error());
    snprintf(cmd, sizeof cmd, "python3 tests/export/check_perfetto.py %s %s", js, pf);
    fflush(stdout);
    CHECK_MSG(system(cmd) == 0, "%s failed (a mark dropped?)", cmd);
    /* each mark on its level's track, no deeper */
    marks_load(pf);
    CHECK_EQ_INT(marks_on("tick pair", "-"), 2);            /* main's and the worker's first */
    CHECK_EQ_INT(marks_on("tick pair", "depth 512-1023"), 2);
    CHECK_EQ_INT(marks_on("tick many", "-"), 512);
    CHECK_EQ_INT(marks_on("tick many", "depth 512-1023"), 88);
    CHECK_EQ_INT(marks_on("deep", "depth 1024-1535"), 2);
    CHECK_EQ_INT(marks_on("edge end", "-"), 1);
    CHECK_EQ_INT(marks_on("edge end", "depth 512-1023"), 1);
    CHECK_EQ_INT(marks_on("edge begin", "depth 512-1023"), 1);
    prof_events_free(ev);
    return check_report();
}
#else
int main(void) {
    printf("test_perfetto_marks: skipped (no fake TSC here)\n");
    return 0;
}
#endif
