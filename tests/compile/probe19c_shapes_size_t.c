/* probe19c-shapes-size-t-{gcc,clang}: PROF_SCOPE_SHAPES with size_t
   dimensions in C, in code built with -Wconversion (Lua's and cJSON's
   flags; in C it includes -Wsign-conversion). Every other macro converts
   its numeric argument itself (PROF_COUNTER, PROF_SCOPE_FLOPS, the async
   ids), and in C++ PROF_SCOPE_SHAPES does too; in C its values initialise
   an int64_t array, so gcc and clang report "conversion to 'long int' from
   'size_t' may change the sign of the result" at the user's line. */
#include "prof.h"

#include <stddef.h>

size_t probe19c_matmul(size_t m, size_t k, size_t n);

size_t probe19c_matmul(size_t m, size_t k, size_t n) {
    unsigned long batch = 2;
    PROF_SCOPE_SHAPES("matmul", 3, batch, m, k, 2, k, n);
    return batch * m * n;
}
