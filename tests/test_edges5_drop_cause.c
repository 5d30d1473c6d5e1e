/* prof_stop's warning about CUPTI's dropped records names the cause:
   prof.h's refused buffers only when it refused some (prof__cug_take:
   `dropped && refused`), else CUPTI's own full buffers. Here CUPTI
   reports 3 dropped records and prof.h refused no buffer: the warning
   says "its own buffers were full" and does not blame prof.h ("refused
   0 of its buffers"). (Mutation pass: `&&` made `||` went unnoticed: the
   suite checks only the warning's "CUPTI dropped N".) */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

int main(void) {
    prof_config c;
    prof_events *ev;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    {
        PROF_SCOPE("op");
        fake_cupti_add_dropped(3);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 3);
    CHECK(check_log_has(PROF_E_DROPPED, "CUPTI dropped 3 activity records (its own buffers were full)"));
    CHECK_MSG(!check_log_has(PROF_E_DROPPED, "refused"), "the warning blames prof.h's buffers, none of which it refused");
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
