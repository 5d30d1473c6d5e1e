/* Lists built by hand, read, then added to, or holding several ranks:
   - A thread's events from two ranks (node_id 1 and 0, one thread id, as
     when merging ranks' lists by hand), added out of start order: the tree
     groups them by node_id as PyTorch does, but the fast pass then took
     the thread as in order, so the JSON trace read it in list order: two
     overlapping "X" events on one tid (DevTools drops one) where a "b"/"e"
     pair is due, and a touching pair not trimmed ("dur": 0.200 after
     "ts": 0.100, which parsers add past the next event's "ts": 0.3).
   - _set_backward_stacktraces replaces the stacks of events under a
     backward function; read, then added to, the list is rebuilt, and an
     event no longer under one kept the replaced stack (F below showed []
     where the same list built at once shows its own). Checked with
     merged events and [memory] rows in front, which move the indices
     between builds. (API fuzz helper) */
#define _GNU_SOURCE
#include "prof.h"
#include "check.h"

static void add_node(prof_events *e, const char *name, int node, int64_t s, int64_t t) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 7;
    d.start_ns = s;
    d.end_ns = t;
    d.set = PROF_EVENT_NODE_ID;
    d.node_id = node;
    CHECK(prof_events_add(e, &d) >= 0);
}
static char *trace_of(prof_events *e) {
    char *text;
    if (!CHECK_EQ_INT(prof_export_chrome_trace(e, "test_list_rebuild.json"), PROF_OK)) return NULL;
    text = check_read_file("test_list_rebuild.json");
    remove("test_list_rebuild.json");
    return text;
}
static void test_ranks_on_one_thread(void) {
    int same;
    for (same = 0; same <= 1; same++) { /* 1: one node_id, the control */
        prof_events *e = prof_events_create();
        char *t;
        add_node(e, "B", 1, 6000, 9875);
        add_node(e, "A", same ? 1 : 0, 45, 7170); /* overlaps B without nesting */
        if ((t = trace_of(e)) != NULL) {
            CHECK(strstr(t, "\"ph\": \"b\"") != NULL);
            CHECK(strstr(t, "\"ph\": \"e\"") != NULL);
            free(t);
        }
        prof_events_free(e);
        e = prof_events_create();
        add_node(e, "B", 1, 300, 400);
        add_node(e, "A", same ? 1 : 0, 100, 300); /* ends where B begins */
        if ((t = trace_of(e)) != NULL) {
            CHECK(strstr(t, "\"name\": \"A\"") != NULL);
            CHECK(strstr(t, "\"ts\": 0.100, \"dur\": 0.199") != NULL);
            free(t);
        }
        prof_events_free(e);
    }
}

static const char *fstack[2] = { "f1", "f2 (a.c:3)" };
static const char *gstack[1] = { "g (b.c:9)" };
static void add_ev(prof_events *e, const char *name, int64_t s, int64_t t, int scope, const char **stack, int depth) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 2;
    d.start_ns = s;
    d.end_ns = t;
    d.scope = scope;
    d.stack = stack;
    d.stack_depth = depth;
    if (scope == 1) {
        d.set = PROF_EVENT_FWD_THREAD;
        d.fwd_thread = 1;
    }
    CHECK(prof_events_add(e, &d) >= 0);
}
/* each event's name and stack, one line each */
static char *stacks_of(prof_events *e) {
    size_t cap = 4096, len = 0, i;
    char *out = (char *)malloc(cap);
    int k;
    if (!out) return NULL;
    out[0] = 0;
    for (i = 0; i < prof_events_count(e) && len < cap; i++) {
        prof_event x;
        if (!CHECK_EQ_INT(prof_events_get(e, i, &x), PROF_OK)) break;
        len += (size_t)snprintf(out + len, cap - len, "%s %lld:", x.name, (long long)x.start_ns);
        for (k = 0; k < x.stack_depth && len < cap; k++) len += (size_t)snprintf(out + len, cap - len, " <%s>", x.stack[k]);
        if (len < cap) len += (size_t)snprintf(out + len, cap - len, "\n");
    }
    CHECK(len < cap); /* (the lists here print a few hundred bytes) */
    return out;
}
static char *build(int read_between, int extras) {
    prof_events *e = prof_events_create();
    char *s;
    if (extras) {
        /* a [memory] row (outside every event) and a merged child (named
           as its parent) ahead of the backward events */
        CHECK_EQ_INT(prof_events_add_memory(e, 2, 1, 64, PROF_DEVICE_CPU, 0), PROF_OK);
        add_ev(e, "dup", 2, 9, 0, gstack, 1);
        add_ev(e, "dup", 3, 8, 0, gstack, 1);
    }
    add_ev(e, "F", 48, 2423, 0, fstack, 2);
    add_ev(e, "BW", 17, 3142, 1, NULL, 0);
    add_ev(e, "G", 7000, 7100, 0, gstack, 1);
    add_ev(e, "BW2", 6990, 7200, 1, NULL, 0);  /* G stays under a backward function */
    if (read_between) { prof_event x; CHECK_EQ_INT(prof_events_get(e, 0, &x), PROF_OK); }
    add_ev(e, "P", 19, 6394, 0, NULL, 0);      /* ends after BW: F's parent now, F a forward op again */
    if (read_between) { prof_event x; CHECK_EQ_INT(prof_events_get(e, 0, &x), PROF_OK); }
    add_ev(e, "Q", 6000, 6100, 0, NULL, 0);    /* a second rebuild */
    s = stacks_of(e);
    prof_events_free(e);
    return s;
}
static void test_backward_stacks_rebuilt(void) {
    int extras;
    for (extras = 0; extras <= 1; extras++) {
        char *once = build(0, extras), *between = build(1, extras);
        if (CHECK(once && between)) {
            CHECK(strstr(once, "F 48: <f1> <f2 (a.c:3)>\n") != NULL);
            CHECK(strstr(once, "G 7000:\n") != NULL); /* under BW2: its forward's stack, none */
            CHECK_EQ_STR(between, once);
        }
        free(once);
        free(between);
    }
}

int main(void) {
    test_ranks_on_one_thread();
    test_backward_stacks_rebuilt();
    return check_report();
}
