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

#include <stdio.h>
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

/* A kernel appended after a read to an event that absorbed its child:
   a [0, 10000] > a [1000, 9000] (kernel k2, 3 us), read (the inner a
   merges: the outer takes its kernels), k1 (5 us) appended to the outer a
   (index 0 before and after the merge), read, then d [9500, 9800] added
   (which the outer a also holds: now it has two children, no merge) when
   `more`. Each read must give what the same events and kernels added at
   once give. Before: k1 went onto the inner a's kernels (shared by the
   merge) and the parent's own came back without it at the rebuild: the
   outer a with no kernel and 3 us of device time, the inner with two
   kernels and 3 us; without d, the outer a showed 8 us until an
   unrelated event was added, then 3 us with 2 kernels. */
typedef struct kstate { size_t n, kernels[3]; int64_t dev[3], self_dev[3]; } kstate;
static kstate kstate_of(prof_events *ev) {
    kstate s;
    size_t i;
    memset(&s, 0, sizeof s);
    s.n = prof_events_count(ev);
    for (i = 0; i < s.n && i < 3; i++) {
        prof_event x;
        if (!CHECK_EQ_INT(prof_events_get(ev, i, &x), PROF_OK)) continue;
        s.kernels[i] = x.n_kernels;
        s.dev[i] = x.device_time_total_ns;
        s.self_dev[i] = x.self_device_time_total_ns;
    }
    return s;
}
static void check_kstate(kstate got, kstate want, const char *what) {
    size_t i;
    CHECK_EQ_INT(got.n, want.n);
    for (i = 0; i < 3; i++) {
        if (!CHECK_EQ_INT(got.kernels[i], want.kernels[i]) || !CHECK_EQ_INT(got.dev[i], want.dev[i]) ||
            !CHECK_EQ_INT(got.self_dev[i], want.self_dev[i]))
            fprintf(stderr, "  (%s: event %zu)\n", what, i);
    }
}
/* peek: read after the first two adds and after the append; reads, the
   state after the append (before d) and at the end */
static void kernels_after_read(int peek, int more, kstate *mid, kstate *end) {
    prof_events *ev = prof_events_create();
    int64_t c;
    prof_events_set_device(ev, "cuda");
    CHECK_EQ_INT(check_add_event(ev, "a", 1, 0, 10000), 0);
    c = check_add_event(ev, "a", 1, 1000, 9000);
    CHECK_EQ_INT(c, 1);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)c, "k2", 0, 3000), PROF_OK);
    if (peek) CHECK_EQ_INT(prof_events_count(ev), 1);
    CHECK_EQ_INT(prof_events_append_kernel(ev, 0, "k1", 0, 5000), PROF_OK);
    if (peek) *mid = kstate_of(ev);
    if (more) check_add_event(ev, "d", 1, 9500, 9800);
    else check_add_event(ev, "b", 1, 20000, 21000); /* outside: unrelated */
    *end = kstate_of(ev);
    prof_events_free(ev);
}
static void kernels_after_reads(void) {
    kstate ref_end, got_mid, got_end, unused;
    /* with d: the outer a keeps k1 (8 us in all, 5 its own), the inner k2 */
    kernels_after_read(0, 1, &unused, &ref_end);
    CHECK_EQ_INT(ref_end.n, 3);
    CHECK_EQ_INT(ref_end.kernels[0], 1);
    CHECK_EQ_INT(ref_end.dev[0], 8000);
    CHECK_EQ_INT(ref_end.self_dev[0], 5000);
    kernels_after_read(1, 1, &got_mid, &got_end);
    check_kstate(got_end, ref_end, "d added after the reads");
    /* without d: the merge gives the outer a the inner one's kernels (k2
       alone, as PyTorch's merge replaces them), before and after b */
    kernels_after_read(0, 0, &unused, &ref_end);
    CHECK_EQ_INT(ref_end.n, 2);
    CHECK_EQ_INT(ref_end.kernels[0], 1);
    CHECK_EQ_INT(ref_end.dev[0], 3000);
    kernels_after_read(1, 0, &got_mid, &got_end);
    check_kstate(got_end, ref_end, "b added after the reads");
    got_mid.n++; /* (b not added yet at the read) */
    check_kstate(got_mid, ref_end, "the read after the append");
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
    kernels_after_reads();
    return check_report();
}
