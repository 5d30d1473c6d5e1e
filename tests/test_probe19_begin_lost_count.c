/* A PROF_BEGIN_DYN whose long name finds no memory is counted dropped
   once, also when its stack entry finds no room either (an outer
   PROF_BEGIN already lost its entry for lack of memory): the entry's
   failure counted it a second time, so scopes_dropped passed the scopes
   entered and open_at_stop (clamped at 0) hid a scope still open. */
#define _GNU_SOURCE 1
#define FAIL_ALLOC_ALL /* every prof.h allocation fails while g_fail_all is set */
#include "fail_alloc.h"
#include <stdlib.h>
#include <string.h>

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

int main(void) {
    static char big[8192];
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    memset(big, 'b', sizeof big - 1);
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.no_prefault_thread = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    { PROF_SCOPE("first"); } /* the thread's block is had */
    __atomic_store_n(&g_fail_all, 1, __ATOMIC_RELAXED);
    PROF_BEGIN("outer");     /* no room for the stack: lost, counted once */
    PROF_BEGIN_DYN(big);     /* its name cannot be copied, nor its entry stacked */
    PROF_END();
    PROF_END();
    __atomic_store_n(&g_fail_all, 0, __ATOMIC_RELAXED);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_entered, 3);
    CHECK_EQ_INT(st.scopes_recorded, 1);
    CHECK_EQ_INT(st.scopes_dropped, 2);
    CHECK_EQ_INT(st.open_at_stop, 0);
    CHECK_EQ_INT(st.unbalanced_ends, 0);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
