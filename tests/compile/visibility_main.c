/* Records with every kind of macro in the executable while the
   implementation lives in a -fvisibility=hidden library
   (visibility_lib.c): each scope kind and the library's own scopes are
   counted exactly. */
#include "prof.h"

#include <stdio.h>
#include <string.h>

void visibility_lib_work(int n);

static size_t count(prof_events *ev, const char *name) {
    size_t i, n = 0;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) n++;
    }
    return n;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    int i, ok;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    for (i = 0; i < 10; i++) {
        PROF_SCOPE("exe_scope");
        { PROF_SCOPE_DYN(i % 2 ? "exe_odd" : "exe_even"); }
        PROF_BEGIN("exe_range");
        PROF_MARK("exe_mark");
        PROF_COUNTER("exe_counter", i);
        PROF_END();
        visibility_lib_work(2);
    }
    ev = prof_stop();
    if (!ev) return 1;
    ok = count(ev, "exe_scope") == 10 && count(ev, "exe_odd") == 5 && count(ev, "exe_even") == 5 &&
         count(ev, "exe_range") == 10 && count(ev, "lib_scope") == 20 && prof_events_stats(ev).marks == 10 &&
         prof_events_stats(ev).counters == 10;
    printf("visibility: %s\n", ok ? "ok" : "wrong counts");
    prof_events_free(ev);
    return ok ? 0 : 1;
}
