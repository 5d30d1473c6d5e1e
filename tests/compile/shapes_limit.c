/* shapes-limit-{gcc,gcc-c99,gxx}: PROF_SCOPE_SHAPES takes at most 64 values.
   With -DSHAPES_OVER_THE_LIMIT (65 values) this file must NOT compile; at
   the limit it must. Built as C (c11: _Static_assert, c99: an array of
   negative size) and as C++ (static_assert), each recording and compiled
   out (-DPROF_DISABLED, -DPROF_NO_SHAPES): in C the compiled-out macro took
   any number of values, so a program that built with PROF_DISABLED failed
   to build once recording was turned on. */
#include "prof.h"

void shapes_at_limit(int n);
void shapes_at_limit(int n) {
#ifdef SHAPES_OVER_THE_LIMIT
    PROF_SCOPE_SHAPES("over", 64, n, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
                      28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55,
                      56, 57, 58, 59, 60, 61, 62, 63, 64);
#else
    PROF_SCOPE_SHAPES("at_limit", 63, n, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                      27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54,
                      55, 56, 57, 58, 59, 60, 61, 62, 63);
#endif
}
