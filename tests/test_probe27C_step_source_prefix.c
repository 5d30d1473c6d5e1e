/* A schedule changed every source path in the exports. The manual says the
   default export option (source_prefix NULL) "cuts the longest common
   directory of the list's recorded files", so a program whose scopes all
   live in one directory shows "work (a.c:9)" in the trace's "Call stack",
   the folded stacks, pprof and Perfetto. Run the same program with a
   schedule (prof_step) and the prefix is no longer cut: "work
   (/home/me/proj/src/a.c:9)". The ProfilerStep#N scopes prof.h makes
   carry a site of its own whose file is "prof.h" (prof__step_scope_close's
   step_site), with no directory, and prof__xp_prefix takes it as one of
   the recorded files, so the common directory shrinks to nothing. (Found
   profiling ggml's CPU graph compute with a schedule: every op's frame
   turned into a full path once prof_step was called.)
   Wanted: the user's frames are cut the same with and without a schedule
   (prof.h's own step site does not count toward the common directory). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <unistd.h>

/* The base name of this file, as the cut frames should show it. */
static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void run(const char *dir, int sched) {
    prof_config c;
    prof_events *ev;
    char json[512], stacks[512], want_json[256], want_stacks[256];
    char *text;
    int i;
    memset(&c, 0, sizeof c);
    c.with_stack = PROF_STACK_SCOPES;
    c.log = check_log;
    if (sched) c.schedule.active = 10; /* one window, the one at prof_stop */
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    for (i = 0; i < 3; i++) {
        {
            PROF_SCOPE("work");
            usleep(2000); /* at least 1 us of self time: the folded stacks keep it */
        }
        if (sched) CHECK_EQ_INT(prof_step(), PROF_OK);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    snprintf(json, sizeof json, "%s/trace%d.json", dir, sched);
    snprintf(stacks, sizeof stacks, "%s/stacks%d.txt", dir, sched);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, json), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks(ev, stacks, NULL), PROF_OK);
    snprintf(want_json, sizeof want_json, "\"Call stack\": \"work (%s:", base_name(__FILE__));
    snprintf(want_stacks, sizeof want_stacks, "work_(%s:", base_name(__FILE__));
    text = check_read_file(json);
    if (CHECK(text != NULL)) {
        if (!CHECK(strstr(text, want_json) != NULL)) fprintf(stderr, "  schedule %d: no %s in the trace\n", sched, want_json);
        free(text);
    }
    text = check_read_file(stacks);
    if (CHECK(text != NULL)) {
        if (!CHECK(strstr(text, want_stacks) != NULL)) fprintf(stderr, "  schedule %d: no %s in the folded stacks:\n%s", sched, want_stacks, text);
        free(text);
    }
    prof_events_free(ev);
    unlink(json);
    unlink(stacks);
}

int main(void) {
    char dir[] = "/tmp/prof_probe27C_prefixXXXXXX";
    prof_set_log(check_log, NULL);
    if (!CHECK(mkdtemp(dir) != NULL)) return check_report();
    run(dir, 0); /* control: no schedule, the frame is cut to the base name */
    run(dir, 1); /* the same scopes under a schedule */
    rmdir(dir);
    return check_report();
}
