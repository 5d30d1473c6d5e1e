/* Scopes open when prof_stop begins are no events (PyTorch's table has no
   row for an op that had not ended), but the JSON trace says how many
   there were, in its "prof_open_at_stop" key, as it says what the cap
   dropped in "prof_dropped": an interpreter whose exceptions longjmp over
   its scopes (MicroPython: 1147 of 9299 calls) read as a whole profile
   before. A profile without open scopes has no such key, and user
   metadata may not take its name. */
#include "prof.h"
#include "check.h"

#include <setjmp.h>
#include <stdlib.h>
#include <sys/stat.h>

#define OUT "build/test_open_at_stop_trace"

static jmp_buf g_jump;

static void raises(void) {
    PROF_SCOPE("raises"); /* its cleanup never runs: open at the stop */
    longjmp(g_jump, 1);
}

static int json_ok(const char *path) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s", path);
    return system(cmd) == 0;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    char *text;
    int k;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    memset(&cfg, 0, sizeof cfg);

    /* three raising calls and a scope around the stop */
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (k = 0; k < 3; k++) {
        if (setjmp(g_jump) == 0) raises();
    }
    { PROF_SCOPE("done"); }
    {
        PROF_SCOPE("around the stop");
        ev = prof_stop();
    }
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT((long)st.open_at_stop, 4);
    CHECK_EQ_INT((long)st.scopes_entered, 5);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/open.json"), PROF_OK);
    text = check_read_file(OUT "/open.json");
    if (CHECK(text != NULL)) {
        CHECK_MSG(strstr(text, "\"prof_open_at_stop\": {\"scopes\": 4, \"scopes_entered\": 5}") != NULL, "no prof_open_at_stop key of 4 of 5");
        CHECK(strstr(text, "\"prof_dropped\"") == NULL); /* nothing dropped */
        free(text);
    }
    CHECK(json_ok(OUT "/open.json"));
    prof_events_free(ev);

    /* a whole profile: no key; the key is no user metadata */
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    { PROF_SCOPE("whole"); }
    check_log_reset();
    CHECK_EQ_INT(prof_add_metadata("prof_open_at_stop", "x"), PROF_E_ARG);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT((long)prof_events_stats(ev).open_at_stop, 0);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/whole.json"), PROF_OK);
    text = check_read_file(OUT "/whole.json");
    if (CHECK(text != NULL)) {
        CHECK(strstr(text, "prof_open_at_stop") == NULL);
        free(text);
    }
    CHECK(json_ok(OUT "/whole.json"));
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
