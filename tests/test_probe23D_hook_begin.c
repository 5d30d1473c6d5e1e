/* A PROF_REALLOC hook instrumented with PROF_BEGIN/PROF_END (C code that
   brackets its allocator by hand rather than with PROF_SCOPE's cleanup).
   When the program's own PROF_BEGIN stack fills its 32 entries,
   prof__begin_push grows it with PROF__REALLOC(t->open, ...) and only
   stores the new array after the call returns; the hook's PROF_BEGIN
   comes back into prof__begin_push, finds the stack still full
   (n_open == cap_open) and reallocs the same t->open again, which calls the
   hook again: endless recursion (a stack overflow), or, with the hook's
   PROF_BEGIN after its realloc, a realloc of the array the inner call
   already freed (heap corruption). 2cee4c0's mark (prof__in_alloc) guards
   the record blocks, the thread's state and the names, but not this
   stack. The manual (PROF_MALLOC) allows a hook "instrumented with
   PROF_SCOPE"; a PROF_BEGIN/PROF_END pair is the same instrumentation
   without the cleanup attribute. Expected: the program's 40 ranges
   recorded (the hook's ranges dropped or recorded, counted either way).
   Runs in a child with an alarm. */
#include <stddef.h> /* (a compiler header: prof.h comes before the system's) */
void *hk_malloc(size_t n);
void *hk_realloc(void *p, size_t n);
void hk_free(void *p);
#define PROF_MALLOC(n) hk_malloc(n)
#define PROF_REALLOC(p, n) hk_realloc(p, n)
#define PROF_FREE(p) hk_free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static int instrumented; /* set in the child only */
void *hk_malloc(size_t n) { return malloc(n); }
void *hk_realloc(void *p, size_t n) {
    void *q;
    if (instrumented) PROF_BEGIN("hk_realloc");
    q = realloc(p, n);
    if (instrumented) PROF_END();
    return q;
}
void hk_free(void *p) { free(p); }

static char run_child(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    int i;
    alarm(10); /* a hang ends the child: no verdict */
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 'S';
    instrumented = 1;
    for (i = 0; i < 40; i++) PROF_BEGIN("range"); /* the stack: 32 entries, then grown */
    for (i = 0; i < 40; i++) PROF_END();
    instrumented = 0;
    if (!(ev = prof_stop())) return 'N';
    st = prof_events_stats(ev);
    if (st.scopes_entered != st.scopes_recorded + st.scopes_dropped + st.open_at_stop) return 'A';
    if (st.scopes_recorded < 40) return 'C';
    prof_events_free(ev);
    return 'Y';
}
static void no_release(void) {}

int main(void) {
    int st;
    char v = check_fork_verdict(run_child, no_release, &st);
    if (v != 'Y')
        fprintf(stderr, "verdict %c, child %s %d\n", v ? v : '-', WIFSIGNALED(st) ? "killed by signal" : "exit status",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    CHECK_EQ_INT(v, 'Y');
    return check_report();
}
