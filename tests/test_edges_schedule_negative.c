/* prof_schedule_action with a negative count: PyTorch's schedule()
   asserts that wait, warmup, active, repeat and skip_first are all >= 0,
   and prof_start refuses such a schedule; prof_schedule_action, a public
   function that needs no session, answers PROF_ACTION_NONE for any of
   them negative (its doc: "nothing is recorded"), repeat included: a
   repeat of -1 is not "repeat forever" (that is 0). Found by mutation
   testing: dropping the check of repeat left every other test passing. */
#include "prof.h"
#include "check.h"

#include <string.h>

int main(void) {
    prof_schedule s;
    int64_t step;
    prof_set_log(check_log, NULL);
    memset(&s, 0, sizeof s);
    s.active = 2;
    s.repeat = -1;
    for (step = 0; step < 6; step++) CHECK_EQ_INT(prof_schedule_action(&s, step), PROF_ACTION_NONE);
    s.repeat = 0; /* forever: record, record and save, ... */
    CHECK_EQ_INT(prof_schedule_action(&s, 0), PROF_ACTION_RECORD);
    CHECK_EQ_INT(prof_schedule_action(&s, 1), PROF_ACTION_RECORD_AND_SAVE);
    CHECK_EQ_INT(prof_schedule_action(&s, 5), PROF_ACTION_RECORD_AND_SAVE);
    s.repeat = 1;
    CHECK_EQ_INT(prof_schedule_action(&s, 1), PROF_ACTION_RECORD_AND_SAVE);
    CHECK_EQ_INT(prof_schedule_action(&s, 2), PROF_ACTION_NONE);
    return check_report();
}
