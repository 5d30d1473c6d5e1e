/* Walking an event's children with prof_events_child(ev, i, k) for k = 0
   .. n_children - 1 (the only way the API offers to reach them) is
   quadratic: each call walks the sibling list from the first child
   (prof.h's prof_events_child). A profile whose top scope encloses many
   scopes (an interpreter's loop: jq's jq_next holds one scope per opcode,
   a top "main" around a few hundred thousand calls) takes minutes to
   walk: found instrumenting jq, where checking 7M events' children this
   way took 25 s. The walk of N children should cost O(N); here 200000
   children, which a linear walk does in milliseconds and the quadratic
   one in tens of seconds. A watchdog fails the test after 20 s (120 s under a sanitizer or valgrind) rather
   than let it hang the suite (the only timing in the test, 1000x the
   linear walk's cost). */
#define _GNU_SOURCE 1
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof.h"
#include "check.h"

enum { N = 200000 };

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_event top, child;
    size_t k, ntop = 0, n;
    int64_t sum = 0, prev_start = -1;
    int i, order_ok = 1;
    memset(&cfg, 0, sizeof cfg);
    memset(&top, 0, sizeof top);
    cfg.no_prefault_thread = 1;
    prof_set_log(check_log, NULL);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    {
        PROF_SCOPE("top");
        for (i = 0; i < N; i++) { PROF_SCOPE("op"); }
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    n = prof_events_count(ev);
    CHECK_EQ_INT((long long)n, N + 1);
    for (k = 0; k < n; k++) {
        prof_event e;
        prof_events_get(ev, k, &e);
        if (strcmp(e.name, "top") == 0) { top = e; ntop = k; }
    }
    CHECK_EQ_INT((long long)top.n_children, N);
    check_watchdog(20, "test_probe25B_child_walk: walking 200000 children with prof_events_child (quadratic?)");
    for (k = 0; k < top.n_children; k++) {
        int64_t c = prof_events_child(ev, ntop, k);
        if (c < 0) break;
        prof_events_get(ev, (size_t)c, &child);
        if (child.start_ns < prev_start) order_ok = 0;
        prev_start = child.start_ns;
        sum += child.cpu_time_total_ns;
    }
    check_watchdog(0, NULL);
    CHECK_EQ_INT((long long)k, N);
    CHECK(order_ok);
    CHECK_EQ_INT(sum, top.cpu_time_total_ns - top.self_cpu_time_total_ns);
    CHECK_EQ_INT(prof_events_child(ev, ntop, N), -1);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
