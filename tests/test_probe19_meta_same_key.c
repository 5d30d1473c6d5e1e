/* prof_add_metadata / prof_add_metadata_json with a key set again (a
   training loop that records its current loss or step each iteration)
   keep every earlier value in the session's list until prof_stop, though
   the trace writes only the last (the export dedups, last wins, as
   Kineto's map). Memory grows with every call of a session, without
   bound, and each call walks the whole list under prof__g_lock (the lock
   recording threads take to start), so n calls cost n^2/2 steps: 40000
   calls took 3 s here. Wanted: a key set again replaces its value; what
   prof.h holds stays the size of the distinct keys. Measured with
   allocator hooks that count the live bytes prof.h holds (10000 calls on
   2 keys: 439157 bytes grown).

   Files go to build/probe19/ (cwd = repo root). */
#define _GNU_SOURCE 1
#define FAIL_ALLOC_COUNT_LIVE /* g_live: the bytes prof.h holds */
#include "fail_alloc.h"
#include <stdlib.h>
#include <string.h>

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#define DIR_ "build/probe19"

static void test_same_key(void) {
    prof_config cfg;
    prof_events *ev;
    long base, grown;
    int i;
    char v[64], *text;
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    CHECK_EQ_INT(prof_add_metadata("loss", "0.000000"), PROF_OK);
    CHECK_EQ_INT(prof_add_metadata_json("step", "0"), PROF_OK);
    base = __atomic_load_n(&g_live, __ATOMIC_RELAXED);
    for (i = 1; i <= 5000; i++) {
        PROF_SCOPE("iteration");
        snprintf(v, sizeof v, "%.6f", 1.0 / i);
        prof_add_metadata("loss", v);
        snprintf(v, sizeof v, "%d", i);
        prof_add_metadata_json("step", v);
    }
    grown = __atomic_load_n(&g_live, __ATOMIC_RELAXED) - base;
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    printf("10000 prof_add_metadata calls on 2 keys: prof.h's live heap grew %ld bytes during the session\n", grown);
    /* the records of 5000 scopes are mmap'ed, not counted here; allow
       some slack for the recorder's own bookkeeping */
    CHECK(grown < 16 * 1024);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, DIR_ "/same_key.json"), PROF_OK);
    text = check_read_file(DIR_ "/same_key.json");
    CHECK(text && strstr(text, "\"loss\": \"0.000200\"") != NULL); /* the last value */
    CHECK(text && strstr(text, "\"step\": 5000") != NULL);
    free(text);
    prof_events_free(ev);
}

int main(void) {
    if (system("mkdir -p " DIR_) != 0) return 1;
    prof_set_log(check_log, NULL);
    test_same_key();
    prof_shutdown(); /* prof.h's blocks go back through the hooks (valgrind: none left behind) */
    return check_report();
}
