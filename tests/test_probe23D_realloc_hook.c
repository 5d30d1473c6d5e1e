/* The most natural hooks that report prof.h's own memory: prof.h's
   allocator is prof_malloc/prof_realloc/prof_free (the manual, PROF_MALLOC:
   "A hook ... may report its blocks with prof_alloc/prof_dealloc ...
   prof.h marks the thread while it calls the allocator, and there those
   prof_alloc/prof_dealloc calls are not tracked"). prof_free and
   prof_malloc honour the mark, but prof_realloc skips the live table's
   take while marked (had = 0) and then counts the old block as an
   unknown free: `else if (old) prof__unknown_free();`. Every realloc of
   one of prof.h's arrays during a session (here the PROF_BEGIN stack
   growing past 32 entries) is a "free of pointers that prof_alloc never
   saw" in stats.unknown_frees and in prof_stop's warning. Expected:
   untracked, i.e. counted nowhere. */
#include <stddef.h> /* (a compiler header: prof.h comes before the system's) */
void *prof_malloc(size_t bytes);
void *prof_realloc(void *ptr, size_t bytes);
void prof_free(void *ptr);
#define PROF_MALLOC(n) prof_malloc(n)
#define PROF_REALLOC(p, n) prof_realloc(p, n)
#define PROF_FREE(p) prof_free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    int i;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    for (i = 0; i < 40; i++) PROF_BEGIN("range"); /* the stack: 32 entries, then realloc'd to 64 */
    for (i = 0; i < 40; i++) PROF_END();
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.unknown_frees, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_ARG), 0); /* no "free of pointers that prof_alloc never saw" */
    CHECK_EQ_INT(st.scopes_recorded, 40); /* (one event: _remove_dup_nodes merges the nested same-named ranges) */
    CHECK_EQ_INT(st.allocs, 0); /* prof.h's own blocks: not tracked */
    prof_events_free(ev);
    return check_report();
}
