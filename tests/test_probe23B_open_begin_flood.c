/* A PROF_BEGIN range jumped over by longjmp (an interpreter's error
   recovery: PROF_BEGIN at a call, PROF_END at its return, an error longjmps
   back to the top) stays on its thread's range stack, as the manual says.
   prof_stop then names every such range in a warning of its own: one
   line per jump. A program with 1000 error recoveries in a session gets
   1000 identical lines "PROF_BEGIN("call") at file:line is still open"
   on stderr (measured: 1,000,000 recoveries, 1,000,003 lines), where one
   line per site with its count (and the total line that follows) says
   the same. prof__c_name_open (prof.h) loops over t->open with one
   prof__report per entry.
   Expected: at most one warning per PROF_BEGIN site, and the count of
   still-open ranges in it. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <setjmp.h>

static jmp_buf recover;
static void failing_call(void) {
    PROF_BEGIN("call");
    { PROF_SCOPE("work"); }
    longjmp(recover, 1); /* the error: PROF_END never runs */
}

int main(void) {
    prof_config c;
    prof_events *ev;
    prof_stats st;
    volatile int i, errors = 0;
    int lines;
    memset(&c, 0, sizeof c);
    check_log_reset();
    prof_set_log(check_log, NULL);
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    for (i = 0; i < 1000; i++) {
        PROF_SCOPE("request");
        if (!setjmp(recover)) failing_call();
        else errors++;
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(errors, 1000);
    /* the accounting itself is right: 1000 requests and 1000 works
       recorded, the 1000 ranges open */
    CHECK_EQ_INT(st.scopes_entered, 3000);
    CHECK_EQ_INT(st.scopes_recorded, 2000);
    CHECK_EQ_INT(st.open_at_stop, 1000);
    /* the messages: one for the site (with its count), one for the total */
    lines = (int)check_log_total(); /* (check_log keeps the last 64; this counts them all) */
    printf("prof_stop logged %d messages for 1000 open ranges of one site\n", lines);
    CHECK(lines <= 2);
    CHECK(check_log_has(PROF_E_OPEN_SCOPES, "1000"));
    prof_events_free(ev);
    return check_report();
}
