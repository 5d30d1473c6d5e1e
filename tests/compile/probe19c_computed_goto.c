/* probe19c-computed-goto-{gcc,gxx}: a scope inside one case of an
   interpreter loop dispatched with computed gotos, as Lua's luaV_execute
   is with gcc (LUA_USE_JUMPTABLE, ljumptab.h: vmbreak is
   "goto *disptab[op]"): each case's block is left by an indirect goto.
   The manual says jumps out of a scope are fine. clang refuses the build
   ("cannot jump from this indirect goto statement to one of its possible
   targets ... jump exits scope of variable with __attribute__((cleanup))");
   gcc and g++ compile it but do not run the cleanup (C) or the destructor
   (C++, GCC PR 37722) on an indirect goto: every such scope stays open, is
   missing from the profile, and prof_stop blames longjmp or exit. */
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <string.h>

enum { OP_ADD, OP_CALL, OP_END };

static int run(const unsigned char *code) {
    static const void *const disptab[] = { &&L_OP_ADD, &&L_OP_CALL, &&L_OP_END };
    int acc = 0;
    unsigned char op;
    PROF_FUNC();
#define vmdispatch(o) goto *disptab[o];
#define vmcase(l) L_##l:
#define vmbreak op = *code++; vmdispatch(op)
    op = *code++;
    vmdispatch(op)
    vmcase(OP_ADD) {
        acc += 1;
        vmbreak;
    }
    vmcase(OP_CALL) {
        PROF_SCOPE("OP_CALL");
        acc += 10;
        vmbreak;
    }
    vmcase(OP_END) {
        return acc;
    }
}

int main(void) {
    static const unsigned char code[] = { OP_ADD, OP_CALL, OP_CALL, OP_ADD, OP_CALL, OP_END };
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    size_t i, calls = 0;
    int r;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    r = run(code);
    ev = prof_stop();
    if (ev == NULL || r != 32) return 1;
    st = prof_events_stats(ev);
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, "OP_CALL") == 0) calls++;
    }
    prof_events_free(ev);
    /* run + 3 OP_CALL, none left open */
    if (calls != 3 || st.scopes_recorded != 4 || st.open_at_stop != 0) {
        fprintf(stderr, "OP_CALL events %zu (want 3), scopes recorded %llu (want 4), open at stop %llu (want 0)\n",
                calls, (unsigned long long)st.scopes_recorded, (unsigned long long)st.open_at_stop);
        return 1;
    }
    return 0;
}
