/* prof_events_get and prof_events_child keep, for an event with many
   children (64 or more), its children in order and the values a walk over
   them gives (n_children, self CPU time, self memory, self device time),
   so that reading such an event again costs no walk
   (test_probe25B_parent_get, _child_walk). What is kept must follow the
   list: here a parent with 100 children is read, then the list changes
   under it (a kernel appended to a child, a child added, memory given) and
   is read again; each value must be the walk's, and prof_events_child
   must name every child in order and -1 past the last. A parent with 63
   children (below the threshold) is read the same way. */
#include "prof.h"
#include "check.h"

static int64_t add(prof_events *ev, const char *name, int64_t s, int64_t e, int64_t mem) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = s;
    d.end_ns = e;
    d.cpu_memory_usage = mem;
    return prof_events_add(ev, &d);
}

static void check_parent(prof_events *ev, const char *name, size_t nkids, int64_t self_cpu, int64_t self_mem, int64_t dev, int64_t self_dev) {
    size_t i, k;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event p;
        if (prof_events_get(ev, i, &p) != PROF_OK || strcmp(p.name, name) != 0) continue;
        CHECK_EQ_INT(p.n_children, nkids);
        CHECK_EQ_INT(p.self_cpu_time_total_ns, self_cpu);
        CHECK_EQ_INT(p.self_cpu_memory_usage, self_mem);
        CHECK_EQ_INT(p.device_time_total_ns, dev);
        CHECK_EQ_INT(p.self_device_time_total_ns, self_dev);
        for (k = 0; k < nkids; k++) {
            int64_t c = prof_events_child(ev, i, k);
            prof_event ce;
            if (!CHECK(c >= 0) || !CHECK_EQ_INT(prof_events_get(ev, (size_t)c, &ce), PROF_OK)) return;
            CHECK_EQ_INT(ce.parent, (int64_t)i);
            if (k > 0) {
                prof_event pe;
                prof_events_get(ev, (size_t)prof_events_child(ev, i, k - 1), &pe);
                CHECK(pe.start_ns <= ce.start_ns);
            }
        }
        CHECK_EQ_INT(prof_events_child(ev, i, nkids), -1);
        CHECK_EQ_INT(prof_events_child(ev, i, nkids + 1000), -1);
        return;
    }
    check__fail();
    fprintf(stderr, "no event %s\n", name);
}

int main(void) {
    prof_events *ev = prof_events_create();
    int i;
    int64_t c0 = -1;
    prof_set_log(check_log, NULL);
    add(ev, "big", 0, 1000000, 5000);
    for (i = 0; i < 100; i++) {
        int64_t c = add(ev, "kid", 1000 + i * 1000, 1000 + i * 1000 + 500, 10);
        if (i == 0) c0 = c;
    }
    add(ev, "small", 2000000, 3000000, 0);
    for (i = 0; i < 63; i++) add(ev, "skid", 2000000 + i * 1000, 2000000 + i * 1000 + 100, 0);
    check_parent(ev, "big", 100, 1000000 - 100 * 500, 5000 - 100 * 10, 0, 0);
    check_parent(ev, "small", 63, 1000000 - 63 * 100, 0, 0, 0);
    /* a kernel under the first kid: big's device time, none of it self */
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);
    {
        size_t k;
        for (k = 0; k < prof_events_count(ev); k++) { /* (the list's order may differ from the adds') */
            prof_event e;
            if (prof_events_get(ev, k, &e) == PROF_OK && e.start_ns == 1000 && strcmp(e.name, "kid") == 0) c0 = (int64_t)k;
        }
    }
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)c0, "k", 0, 700), PROF_OK);
    check_parent(ev, "big", 100, 1000000 - 100 * 500, 5000 - 100 * 10, 700, 0);
    /* a 101st kid, with memory */
    add(ev, "kid", 999000, 999900, 1000);
    check_parent(ev, "big", 101, 1000000 - 100 * 500 - 900, 5000 - 100 * 10 - 1000, 700, 0);
    prof_events_free(ev);
    return check_report();
}
