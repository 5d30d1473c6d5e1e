/* prof_events_get computes an event's self times (self CPU, self memory)
   by walking its children on every call (prof.h's prof__self_cpu and
   prof__self_mem, reached from prof__row_of_event), so reading an event
   costs O(its children). A loop that reads each event's parent (to name
   it, to walk up a path: the natural use of prof_event.parent) costs
   O(N^2) when one scope holds N children: a top-level "main" around the
   whole run, jq's jq_next around one scope per opcode. Found
   instrumenting jq. Here 200000 children under one scope, each reading its
   parent once: linear work reads them in milliseconds; now it takes
   minutes. A watchdog fails the test after 20 s (120 s under a sanitizer or valgrind) (the only timing in the
   test, 1000x the linear cost) rather than hang the suite. */
#define _GNU_SOURCE 1
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

enum { N = 200000 };

int main(void) {
    prof_config cfg;
    prof_events *ev;
    size_t k, n, with_top = 0;
    int i;
    memset(&cfg, 0, sizeof cfg);
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
    check_watchdog(20, "test_probe25B_parent_get: reading the parent of 200000 children (each read walking the parent's children?)");
    for (k = 0; k < n; k++) {
        prof_event e, p;
        prof_events_get(ev, k, &e);
        if (e.parent < 0) continue;
        prof_events_get(ev, (size_t)e.parent, &p);
        if (strcmp(p.name, "top") == 0 && p.n_children == N) with_top++;
    }
    check_watchdog(0, NULL);
    CHECK_EQ_INT((long long)with_top, N);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
