/* preprocessed-{gcc,clang}: the macros compiled from preprocessed source
   (-save-temps, as distcc, icecc and ccache hand a .i file to the
   compiler), recording, compiled out and with shapes compiled out, with
   side effects in the arguments. The compiler cannot tell there that an
   expression came from a macro argument: clang's -Wunevaluated-expression
   (on by default) refused the compiled-out PROF_SCOPE_SHAPES, whose count
   check takes the values' size (`(*p)++` inside sizeof). */
#include "prof.h"

int preprocessed_user(int *p, const char *name);
int preprocessed_user(int *p, const char *name) {
    PROF_SCOPE_SHAPES("shapes", 2, (*p)++, (*p)--);
    PROF_SCOPE_FLOPS("flops", (*p)++);
    PROF_SCOPE_DYN(name);
    PROF_COUNTER("c", (*p)++);
    PROF_ASYNC_BEGIN("a", (*p)++);
    PROF_ASYNC_END((*p)--);
    return *p;
}
