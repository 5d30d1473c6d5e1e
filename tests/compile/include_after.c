/* The implementation included after other system headers, as in most real
   files: prof.h cannot ask for _GNU_SOURCE any more. In the default
   -std=gnu* modes (and -std=c* with -D_DEFAULT_SOURCE) it must still
   build, and native stacks must still be named through dladdr (linked
   with -rdynamic). In a strict -std=c11 the build must stop with prof.h's
   own message (the include-after-strict case checks that). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define PROF_IMPLEMENTATION
#include "prof.h"

#define FAIL(...) do { fprintf(stderr, "include_after: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

__attribute__((noinline)) void include_after_leaf(void) { PROF_FUNC(); }

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_event e;
    size_t i;
    int k, named = 0, found = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.with_stack = PROF_STACK_NATIVE;
    if (prof_start(&cfg) != PROF_OK) FAIL("prof_start failed");
    include_after_leaf();
    ev = prof_stop();
    if (!ev) FAIL("prof_stop returned NULL");
    for (i = 0; i < prof_events_count(ev); i++) {
        if (prof_events_get(ev, i, &e) != PROF_OK) FAIL("prof_events_get failed");
        if (strcmp(e.name, "include_after_leaf") != 0) continue;
        found = 1;
        for (k = 0; k < e.stack_depth; k++)
            if (strstr(e.stack[k], "main (") == e.stack[k]) named = 1;
    }
    if (!found) FAIL("no event for include_after_leaf");
    if (!named) FAIL("no frame named main: dladdr did not name the stack");
    prof_events_free(ev);
    printf("include_after: ok\n");
    return 0;
}
