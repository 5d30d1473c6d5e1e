/* prof_realloc of a tracked block of 0 bytes. fcbdc77 made zero-byte
   blocks tracked but not recorded, so that their free is "no unknown one"
   (prof_free of it: no record, no unknown free). prof_realloc does the
   same take from the live table, but its branch
       if (had && was.bytes) record the free; else if (old) unknown free;
   sends a block that WAS found (had) with 0 bytes to the unknown-free
   branch: stats.unknown_frees 1 and prof_stop's warning "1 free of
   pointers that prof_alloc never saw was ignored", for a block that
   prof_malloc(0) itself returned. The growth that follows (+10, then -10
   at the free) is recorded as it should be. */
#include "prof.h"
#include "check.h"

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    void *p;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    {
        PROF_SCOPE("op");
        p = prof_malloc(0); /* glibc: a unique non-NULL block */
        p = prof_realloc(p, 10);
        prof_free(p);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.unknown_frees, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_ARG), 0); /* no "free of pointers that prof_alloc never saw" */
    CHECK_EQ_INT(st.allocs, 2); /* +10 and -10; the 0-byte block makes none */
    prof_events_free(ev);
    return check_report();
}
