/* Under PROF_DISABLED prof_alloc and prof_dealloc record nothing and keep
   no table of live blocks (as with PROF_NO_MEMORY): a program that reports
   its allocator's blocks paid ~70 bytes a block and ~0.3 us an allocation
   and free in a build with every macro compiled out (helper A: Redis with
   its allocator reporting, 3x the memory and time of DEBUG POPULATE).
   A session with profile_memory gets no allocation record; the event
   list's own functions still work. */
#define PROF_DISABLED
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdlib.h>

int main(void) {
    prof_config cfg;
    prof_events *ev;
    void *p[100];
    int k;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (k = 0; k < 100; k++) {
        p[k] = malloc(64);
        prof_alloc(p[k], 64);
    }
    for (k = 0; k < 100; k++) {
        prof_dealloc(p[k]);
        free(p[k]);
    }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        prof_stats st = prof_events_stats(ev);
        CHECK_EQ_INT((long)st.allocs, 0);
        CHECK_EQ_INT((long)prof_events_count(ev), 0);
        prof_events_free(ev);
    }
    prof_shutdown();
    return check_report();
}
