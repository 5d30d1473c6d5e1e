/* Found (probe 22b, real code bases' own macros): a file may define, before
   it includes prof.h, object-like macros named after GNU attributes, as
   these code bases do:

     #define noinline __attribute__((noinline))        Linux's tools/ and BPF
                                                       selftests (test_progs)
     #define always_inline static inline __attribute__ ((__always_inline__))
                                                       FD.io VPP (vppinfra)
     #define unused __attribute__((unused))            (application code)
     #define printf printf_                            mpaland/printf's printf.h
                                                       (embedded printf)

   prof.h spells its attributes as plain words, __attribute__((noinline)),
   ((always_inline)), ((cleanup(f), unused)), ((format(printf, 3, 4))),
   ((no_instrument_function)), ((destructor)), so each of these expands
   inside them: the implementation does not compile (gcc "expected ')'
   before '__attribute__'", clang "use of undeclared identifier
   'noinline'"), and with `unused` (or `cleanup`, or `no_instrument_function`)
   defined, every PROF_SCOPE in the user's own code does not compile either.
   glibc and Linux spell them __noinline__, __always_inline__, __unused__,
   __cleanup__, __format__(__printf__, ...) for this reason: the reserved
   spellings cannot collide with a user's macro.

   The case builds this file (the implementation and every scope macro) in
   C and C++ under -Wall -Wextra -Wpedantic -Werror and runs it; it counts
   its events. Likely fix: >>macros and >>impl, every __attribute__ and
   PROF__NOINSTRUMENT in the reserved __x__ spelling. */
#define noinline __attribute__((noinline))
#define always_inline static inline __attribute__((__always_inline__))
#define unused __attribute__((unused))
#define printf printf_
#define PROF_IMPLEMENTATION
#include "prof.h"
#include <string.h>

static noinline int work(int x) {
    PROF_SCOPE("work");
    PROF_SCOPE_DYN(x % 2 ? "odd" : "even");
    return x * 2;
}
always_inline int shaped(int x) {
    PROF_SCOPE_SHAPES("mm", 2, x, x, 2, x, x);
    PROF_SCOPE_FLOPS("flops", 2 * x);
    return x;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats s;
    int i, sum = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    cfg.with_flops = 1;
    if (prof_start(&cfg) != PROF_OK) return 1;
    for (i = 0; i < 10; i++) {
        PROF_FUNC();
        sum += work(i) + shaped(i);
        PROF_MARK("m");
    }
    ev = prof_stop();
    if (!ev) return 1;
    s = prof_events_stats(ev);
    fprintf(stdout, "sum %d scopes %llu\n", sum, (unsigned long long)s.scopes_recorded);
    prof_events_free(ev);
    return s.scopes_recorded == 50 ? 0 : 1;
}
