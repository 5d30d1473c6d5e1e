/* key_averages(group_by_stack_n=N) with N past 8 (prof.h's memo of
   per-node hashes covers N <= 8; deeper keys hash each stack's first N
   frames walking up, prof__gstack_hash): two calls whose stacks agree in
   their first 9 frames (innermost first) and differ only in the 10th are
   one row for N = 9, as evt.stack[:9] is one key in PyTorch's
   key_averages (reference 001), and two rows for N = 10.
   Found by mutation testing: hashing N + 1 frames left every other test
   passing. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <string.h>

static void add_stack(prof_events *e, int64_t start, const char *const *stack, int depth) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = "op";
    d.thread = 1;
    d.start_ns = start;
    d.end_ns = start + 1000;
    d.stack = stack;
    d.stack_depth = depth;
    CHECK(prof_events_add(e, &d) >= 0);
}

int main(void) {
    static const char *const s1[] = { "f0 (a.c:1)", "f1 (a.c:2)", "f2 (a.c:3)", "f3 (a.c:4)", "f4 (a.c:5)", "f5 (a.c:6)",
                                      "f6 (a.c:7)", "f7 (a.c:8)", "f8 (a.c:9)", "g9 (a.c:10)", "main (a.c:11)" };
    static const char *const s2[] = { "f0 (a.c:1)", "f1 (a.c:2)", "f2 (a.c:3)", "f3 (a.c:4)", "f4 (a.c:5)", "f5 (a.c:6)",
                                      "f6 (a.c:7)", "f7 (a.c:8)", "f8 (a.c:9)", "h9 (a.c:20)", "main (a.c:11)" };
    prof_events *e;
    prof_averages *a;
    prof_group_options g;
    int n;
    prof_set_log(check_log, NULL);
    e = prof_events_create();
    add_stack(e, 0, s1, 11);
    add_stack(e, 2000, s2, 11);
    for (n = 9; n <= 12; n++) {
        memset(&g, 0, sizeof g);
        g.group_by_stack_n = n;
        a = prof_key_averages(e, &g);
        if (CHECK(a != NULL)) {
            if (CHECK_EQ_INT(prof_averages_count(a), n == 9 ? 1 : 2) && n == 9) {
                const prof_avg *r = prof_averages_get(a, 0);
                CHECK_EQ_INT(r->count, 2);
                CHECK_EQ_INT(r->stack_depth, 9);
            }
            prof_averages_free(a);
        }
    }
    prof_events_free(e);
    return check_report();
}
