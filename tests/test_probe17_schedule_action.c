/* prof_schedule_action with schedules prof_start would refuse, and with
   huge ones: it is public and takes any prof_schedule, so it must neither
   crash (a zero cycle length divided by) nor overflow (repeat * cycle in
   int64_t), and it must give torch.profiler.schedule's answer wherever
   PyTorch gives one:
       torch.profiler.schedule(skip_first=M, wait=M, warmup=M, active=M,
                               repeat=M)(2**63 - 1) == ProfilerAction.RECORD
   with M = 2**31 - 1 (PyTorch 1.13, checked). An invalid schedule (PyTorch
   asserts) records nothing: PROF_ACTION_NONE. */
#include "prof.h"
#include "check.h"

#include <limits.h>

int main(void) {
    prof_set_log(check_log, NULL);
    {
        prof_schedule big = { INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX };
        /* (2^63-1 - M) / 3M < M cycles: inside the repeats; the step's
           place in its cycle is 2^32 - 1, in the active part, not its last */
        CHECK_EQ_INT(prof_schedule_action(&big, INT64_MAX), PROF_ACTION_RECORD);
        CHECK_EQ_INT(prof_schedule_action(&big, (int64_t)INT_MAX - 1), PROF_ACTION_NONE);
        CHECK_EQ_INT(prof_schedule_action(&big, (int64_t)INT_MAX * 3 - 1), PROF_ACTION_WARMUP);
    }
    {
        /* wait = -1, active = 1: wait + warmup + active == 0 (was SIGFPE) */
        prof_schedule zero_cycle = { 0, -1, 0, 1, 0 };
        prof_schedule neg_cycle = { 0, -3, 0, 1, 2 };
        CHECK_EQ_INT(prof_schedule_action(&zero_cycle, 5), PROF_ACTION_NONE);
        CHECK_EQ_INT(prof_schedule_action(&neg_cycle, 5), PROF_ACTION_NONE);
    }
    return check_report();
}
