/* c90-decls-* cases (tests/compile/run.sh): every scope macro is a
   declaration in every build mode, so C90-style code (declarations first,
   built with -Wdeclaration-after-statement -Werror) compiles when
   recording, under -DPROF_DISABLED, and with the features compiled out
   (PROF_NO_SHAPES, PROF_NO_FLOPS): each macro below is followed by a
   declaration. */
#include "prof.h"

#include <stdint.h>
#include <string.h>

int c90_work(int n, const char *dyn);

int c90_work(int n, const char *dyn) {
    PROF_FUNC();
    int a = n;
    PROF_SCOPE("a");
    int b = a + 1;
    PROF_SCOPE_OP("op");
    int c = b + 1;
    PROF_SCOPE_DYN(dyn);
    int d = c + 1;
    PROF_SCOPE_SHAPES("mm", 2, n, 3, 2, 3, n);
    int e = d + 1;
    PROF_SCOPE_FLOPS("flops", (int64_t)n * 6);
    int f = e + 1;
    prof_args args;
    memset(&args, 0, sizeof args);
    {
        PROF_SCOPE_ARGS("args", &args);
        int g = f + 1;
        PROF_SCOPE("x"); PROF_SCOPE("y");
        int h = g + 1;
        return h;
    }
}
