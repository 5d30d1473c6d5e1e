/* prof_add_metadata / prof_add_metadata_json called with no session
   recording (before prof_start, after prof_stop) return PROF_OK, log
   nothing, and the key is thrown away by the next prof_start
   (prof__meta_clear_locked): it is in no trace. The caller was told it
   worked and lost the data. (PyTorch's _add_metadata_json, as recalled,
   logs a warning when Kineto is not initialized; not checked here.)
   Wanted: an error (PROF_E_STATE, logged), or the key kept for the next
   session's trace; not PROF_OK and silence.

   Files go to build/probe19/ (cwd = repo root). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#define DIR_ "build/probe19"

static void test_outside(void) {
    prof_config cfg;
    prof_events *ev;
    prof_result r1, r2;
    char *text;
    memset(&cfg, 0, sizeof cfg);
    check_log_reset();
    r1 = prof_add_metadata("before_start", "v1");
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    { PROF_SCOPE("work"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    r2 = prof_add_metadata_json("after_stop", "2");
    CHECK_EQ_INT(prof_export_chrome_trace(ev, DIR_ "/outside1.json"), PROF_OK);
    prof_events_free(ev);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    { PROF_SCOPE("work"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, DIR_ "/outside2.json"), PROF_OK);
    prof_events_free(ev);
    text = check_read_file(DIR_ "/outside1.json");
    /* refused with a logged error, or kept for the session that follows */
    if (r1 == PROF_OK) {
        CHECK(text && strstr(text, "\"before_start\": \"v1\"") != NULL);
    } else {
        CHECK_EQ_INT(r1, PROF_E_STATE);
        CHECK(check_log_count(PROF_E_STATE) >= 1);
    }
    free(text);
    text = check_read_file(DIR_ "/outside2.json");
    if (r2 == PROF_OK) {
        CHECK(text && strstr(text, "\"after_stop\": 2") != NULL);
    } else {
        CHECK_EQ_INT(r2, PROF_E_STATE);
    }
    printf("outside a session: prof_add_metadata returned %d and %d\n", (int)r1, (int)r2);
    free(text);
}

int main(void) {
    if (system("mkdir -p " DIR_) != 0) return 1;
    prof_set_log(check_log, NULL);
    test_outside();
    return check_report();
}
