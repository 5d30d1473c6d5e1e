/* A read of a hand-built list must not change what the list analyses to.
   The manual calls prof_events_count, _get, the tables and the exporters
   readers that "build the tree and other caches on first use", and lets
   events be added after that (an index holds "until the tree is built";
   the tree is "called for you when needed"). But the first build runs
   _remove_dup_nodes and deletes the merged events from the list; a later
   prof_events_add then rebuilds from what is left, so the same events give
   a different profile depending on whether the caller looked at the list
   in between.

   Events: a [0, 100], a [10, 20] inside it, b [30, 40] inside it.
   Added in one go (as PyTorch's EventList is built: once, from all
   events), the outer a has two children (a and b), so _remove_dup_nodes
   merges nothing: 3 events, key_averages "a" count 2, CPU total 110 ns.
   With a prof_events_count after the second add, the first build sees a
   with one child of its own name and merges it away (stats.merged 1);
   after b is added the list has 2 events and "a" is count 1, CPU total
   100 ns: a silent change of the counts and totals by a read.

   Correct: the list analyses to the same events, counts and totals
   whether or not it was read before the last add (here the one-go
   result: 3 events, merged 0, "a" count 2 total 110, self 90).
   Fixed: the merged events are kept aside and put back when the tree is
   rebuilt (prof__dups_restore), with the kernels a merge moved; and
   prof_events_stats builds the tree first, as the other readers do.
   Also here: a parent's kernel replaced by its merged child's comes back
   (a deeper chain, read twice), and the stacks of merged events. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <string.h>

static const prof_avg *row(const prof_averages *av, const char *key) {
    size_t i;
    for (i = 0; i < prof_averages_count(av); i++)
        if (strcmp(prof_averages_get(av, i)->key, key) == 0) return prof_averages_get(av, i);
    return NULL;
}

/* peek = 1: the caller reads the list (prof_events_count) between adds */
static void build(int peek) {
    prof_events *ev = prof_events_create();
    prof_averages *av;
    const prof_avg *a;
    check_add_event(ev, "a", 1, 0, 100);
    check_add_event(ev, "a", 1, 10, 20);
    if (peek) (void)prof_events_count(ev);
    check_add_event(ev, "b", 1, 30, 40);
    CHECK_EQ_INT(prof_events_stats(ev).events, 3); /* stats first: it builds the tree too */
    CHECK_EQ_INT(prof_events_count(ev), 3);
    CHECK_EQ_INT(prof_events_stats(ev).merged, 0);
    av = prof_key_averages(ev, NULL);
    CHECK(av != NULL);
    a = av ? row(av, "a") : NULL;
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ_INT(a->count, 2);
        CHECK_EQ_INT(a->cpu_time_total_ns, 110);
        CHECK_EQ_INT(a->self_cpu_time_total_ns, 90);
    }
    prof_averages_free(av);
    prof_events_free(ev);
}

/* Kernels and stacks: x [0, 1000] (kernel k0) > x [100, 900] (k1) > x
   [200, 800] (k2), read after each add (each read merges the chain, each
   merge gives the outer x the inner one's kernels, as PyTorch's does),
   then z [950, 990] inside the outer x: now the outer x has two children
   and keeps its own kernel, while the inner two still merge. The table
   (device times, stacks' Source Location) must be the one of the same
   events added in one go. Without the kernels put back, the outer x
   would keep k1 or k2 in place of k0: a kernel counted twice, one lost. */
static void add_k(prof_events *ev, const char *name, int64_t start, int64_t end, const char *frame, const char *kernel, int64_t kns) {
    prof_event_desc d;
    const char *stack[1];
    int64_t i;
    memset(&d, 0, sizeof d);
    stack[0] = frame;
    d.name = name;
    d.thread = 1;
    d.start_ns = start;
    d.end_ns = end;
    d.stack = stack;
    d.stack_depth = 1;
    i = prof_events_add(ev, &d);
    if (CHECK(i >= 0) && kernel) CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)i, kernel, 0, kns), PROF_OK);
}
static char *table_of(int peek) {
    prof_events *ev = prof_events_create();
    prof_table_options to;
    char *t;
    prof_events_set_device(ev, "cuda");
    add_k(ev, "x", 0, 1000, "f0", "k0", 7000);
    if (peek) (void)prof_events_count(ev);
    add_k(ev, "x", 100, 900, "f1", "k1", 11000);
    if (peek) CHECK_EQ_INT(prof_events_count(ev), 1);
    add_k(ev, "x", 200, 800, "f2", "k2", 13000);
    if (peek) CHECK_EQ_INT(prof_events_stats(ev).merged, 2);
    add_k(ev, "z", 950, 990, "f3", NULL, 0);
    CHECK_EQ_INT(prof_events_count(ev), 3); /* x(k0) > {x(k2) (merged with the x of k1), z} */
    CHECK_EQ_INT(prof_events_stats(ev).merged, 1);
    memset(&to, 0, sizeof to);
    to.sort_by = "cpu_time_total";
    t = prof_events_table(ev, &to);
    CHECK(t != NULL);
    prof_events_free(ev);
    return t;
}

int main(void) {
    char *a, *b;
    prof_set_log(check_log, NULL);
    build(0); /* the reference: no read before the last add */
    build(1);
    a = table_of(0);
    b = table_of(1);
    if (a && b) CHECK_EQ_STR(b, a);
    prof_free_string(a);
    prof_free_string(b);
    return check_report();
}
