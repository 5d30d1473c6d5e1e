/* Schedules and steps at their edges:
   - prof_schedule_action with active 0 (no schedule) records every step,
     whatever wait says (a cycle of length 0 is never divided by);
   - the last wait step is NONE, the step after it WARMUP (or RECORD);
   - prof_start refuses active 0 with any other count, skip_first alone too;
   - prof_start refuses with_stack past PROF_STACK_NATIVE and takes
     PROF_STACK_NATIVE; refuses activities without CPU;
   - prof_step outside a session is PROF_E_STATE;
   - prof_stop on a RECORD_AND_SAVE step returns that window's events, on a
     warm-up step an empty list (not NULL).
   Found by mutation testing (third pass). */
#include "prof.h"
#include "check.h"

#include <string.h>

static void work(const char *name) { PROF_SCOPE_DYN(name); }

int main(void) {
    prof_schedule s;
    prof_config c;
    prof_events *e;
    int64_t i;
    prof_set_log(check_log, NULL);

    memset(&s, 0, sizeof s);
    for (i = 0; i < 4; i++) CHECK_EQ_INT(prof_schedule_action(&s, i), PROF_ACTION_RECORD);
    s.wait = 1; /* active 0: still no schedule */
    for (i = 0; i < 4; i++) CHECK_EQ_INT(prof_schedule_action(&s, i), PROF_ACTION_RECORD);

    memset(&s, 0, sizeof s);
    s.wait = 2;
    s.warmup = 1;
    s.active = 2;
    CHECK_EQ_INT(prof_schedule_action(&s, 0), PROF_ACTION_NONE);
    CHECK_EQ_INT(prof_schedule_action(&s, 1), PROF_ACTION_NONE);
    CHECK_EQ_INT(prof_schedule_action(&s, 2), PROF_ACTION_WARMUP);
    CHECK_EQ_INT(prof_schedule_action(&s, 3), PROF_ACTION_RECORD);
    CHECK_EQ_INT(prof_schedule_action(&s, 4), PROF_ACTION_RECORD_AND_SAVE);
    s.warmup = 0;
    CHECK_EQ_INT(prof_schedule_action(&s, 1), PROF_ACTION_NONE);
    CHECK_EQ_INT(prof_schedule_action(&s, 2), PROF_ACTION_RECORD);

    memset(&c, 0, sizeof c);
    c.schedule.skip_first = 1; /* active 0 with a count: refused */
    check_log_reset();
    CHECK_EQ_INT(prof_start(&c), PROF_E_ARG);
    CHECK_EQ_INT(check_log_count(PROF_E_ARG), 1);
    CHECK(!prof_is_recording());

    memset(&c, 0, sizeof c);
    c.with_stack = PROF_STACK_NATIVE + 1;
    CHECK_EQ_INT(prof_start(&c), PROF_E_ARG);
    c.with_stack = PROF_STACK_NATIVE;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) prof_events_free(prof_stop());
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CUDA;
    CHECK_EQ_INT(prof_start(&c), PROF_E_ARG);

    check_log_reset();
    CHECK_EQ_INT(prof_step(), PROF_E_STATE);
    CHECK_EQ_INT(check_log_count(PROF_E_STATE), 1);

    /* stop on the window's last step (RECORD_AND_SAVE): its events */
    memset(&c, 0, sizeof c);
    c.schedule.active = 2;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        work("step0_op");
        CHECK_EQ_INT(prof_step(), PROF_OK);
        work("step1_op");
        e = prof_stop();
        if (CHECK(e != NULL)) {
            CHECK(check_find_event(e, "step0_op", 0) >= 0);
            CHECK(check_find_event(e, "step1_op", 0) >= 0);
            prof_events_free(e);
        }
    }
    /* stop in warm-up: an empty list */
    memset(&c, 0, sizeof c);
    c.schedule.warmup = 1;
    c.schedule.active = 1;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        work("warm_op");
        e = prof_stop();
        if (CHECK(e != NULL)) {
            CHECK_EQ_INT(prof_events_count(e), 0);
            prof_events_free(e);
        }
    }
    /* prof_step moves the action on: wait 1, active 1: step 1 records */
    memset(&c, 0, sizeof c);
    c.schedule.wait = 1;
    c.schedule.active = 1;
    c.schedule.repeat = 1;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        work("wait_op");
        CHECK_EQ_INT(prof_step(), PROF_OK);
        work("rec_op");
        e = prof_stop();
        if (CHECK(e != NULL)) {
            CHECK(check_find_event(e, "rec_op", 0) >= 0);
            CHECK(check_find_event(e, "wait_op", 0) < 0);
            prof_events_free(e);
        }
    }

    /* prof_start's defaults: max_events 0 is 2^24 (5000 scopes all kept);
       with_flops records the shapes too (as torch's record_shapes |= with_flops) */
    memset(&c, 0, sizeof c);
    c.with_flops = 1;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        int k;
        prof_stats st;
        for (k = 0; k < 5000; k++) { PROF_SCOPE("many"); }
        { PROF_SCOPE_SHAPES("shaped", 2, 4, 5); }
        e = prof_stop();
        if (CHECK(e != NULL)) {
            prof_event ev;
            int64_t i = check_find_event(e, "shaped", 0);
            st = prof_events_stats(e);
            CHECK_EQ_INT(st.dropped, 0);
            CHECK_EQ_INT(st.scopes_recorded, 5001);
            if (CHECK(i >= 0) && CHECK_EQ_INT(prof_events_get(e, (size_t)i, &ev), PROF_OK)) CHECK_EQ_STR(ev.input_shapes, "[[4, 5]]");
            prof_events_free(e);
        }
    }
    return check_report();
}
