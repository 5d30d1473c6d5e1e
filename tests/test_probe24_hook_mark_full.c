/* A PROF_MALLOC hook that makes marks (PROF_MARK) while prof.h calls it:
   the manual allows a hook to use prof.h's recording macros. Inside the
   hook the thread cannot get a new record block (that would call the
   allocator again), so the marks past the end of its block are lost, and
   counted. They were counted as the cap's: prof_stop said "dropped when
   the cap of N events was reached; raise prof_config.max_events" with no
   cap anywhere near, and advice that cannot help. They are lost for want
   of a record block, as a scope there is: the lack-of-memory line must
   say so, and the cap's line must not appear. The marks made and the
   marks recorded + dropped must agree exactly. */
#include <stddef.h> /* (a compiler header: prof.h comes before the system's) */
void *probe_malloc(size_t n);
#define PROF_MALLOC(n) probe_malloc(n)
#define PROF_REALLOC(p, n) realloc(p, n)
#define PROF_FREE(p) free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#define BURST 2000 /* marks a hook call: more than a thread's first record block holds */
static int in_session;
static uint64_t marks_made;
void *probe_malloc(size_t n) {
    if (in_session) {
        int i;
        for (i = 0; i < BURST; i++) PROF_MARK("in_hook");
        marks_made += BURST;
    }
    return malloc(n);
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    static char name[8192];
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    PROF_MARK("before"); /* the thread's first record block */
    in_session = 1;
    memset(name, 'x', sizeof name - 1); /* past the inline limit: the name is copied into the thread's table, through the hook */
    {
        PROF_SCOPE_DYN(name);
    }
    in_session = 0;
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    {
        prof_stats s = prof_events_stats(ev);
        const prof_stats *st = &s;
        fprintf(stderr, "marks made %llu, recorded %llu, dropped %llu\n", (unsigned long long)marks_made, (unsigned long long)st->marks,
                (unsigned long long)st->marks_dropped);
        CHECK(marks_made >= BURST);
        CHECK(st->marks_dropped > 0); /* the burst outgrew the block */
        CHECK(st->marks > 1); /* some of the burst fit */
        CHECK_EQ_INT(st->marks + st->marks_dropped, marks_made + 1);
        CHECK_EQ_INT(st->scopes_recorded, 1);
        CHECK_EQ_INT(check_log_find(PROF_E_DROPPED, "max_events", NULL), 0);
        CHECK_EQ_INT(check_log_find(PROF_E_DROPPED, "lack of memory", NULL), 1);
    }
    prof_events_free(ev);
    return check_report();
}
