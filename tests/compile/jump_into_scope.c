/* jump-* cases (tests/compile/run.sh): a jump into the range of a scope
   macro skips the scope's initialisation, and its cleanup would then run on
   garbage. Built plainly, this file's legitimate jumps (out of a scope,
   back to before one, within one) compile and run. With -DJUMP_GOTO (a
   goto over the macro to a label after it) or -DJUMP_SWITCH (a case label
   after the macro) it must not compile, in C with gcc and clang and in
   C++. SCOPE_MACRO picks the macro (default PROF_SCOPE("work")). Also
   built as C++ (-x c++). */
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <stdint.h>
#include <string.h>

#ifndef SCOPE_MACRO
#define SCOPE_MACRO PROF_SCOPE("work")
#endif

/* what PROF_SCOPE_DYN(dyn) and PROF_SCOPE_ARGS("a", &args) take */
static const char dyn[] = "dyn";
static prof_args args;

static int with_goto(int err) {
    int rc = 0;
#if defined(JUMP_GOTO)
    if (err) goto end;
#endif
    {
        int i;
        SCOPE_MACRO;
        for (i = 0; i < 3; i++) {
            if (i == 1) goto next; /* within the scope: fine */
            rc += i;
        next:;
        }
        if (err > 1) goto out; /* out of the scope: fine */
        rc += 10;
#if defined(JUMP_GOTO)
    end:
#endif
        rc += 100;
    }
out:
    return rc;
}

static int with_switch(int k) {
    int rc = 0;
    switch (k) {
    case 0: {
        SCOPE_MACRO;
        rc = 1;
        break;
    }
#if defined(JUMP_SWITCH)
    case 1:
        rc = 1;
        {
            SCOPE_MACRO;
            rc += 2;
    case 2:
            rc += 4;
        }
        break;
#endif
    default:
        rc = 7;
    }
    return rc;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    int a, b, c;
    memset(&cfg, 0, sizeof cfg);
    (void)dyn; (void)&args;
    if (prof_start(&cfg) != PROF_OK) return 1;
    a = with_goto(0);
    b = with_goto(2);
    c = with_switch(0) + with_switch(5);
    ev = prof_stop();
    if (!ev) return 1;
    prof_events_free(ev);
    /* with_goto(0): 0 + 2 + 10 + 100 = 112; with_goto(2): 2 */
    return (a == 112 && b == 2 && c == 8) ? 0 : 1;
}
