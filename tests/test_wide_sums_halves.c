/* test_wide_sums with the 128-bit sums in two 64-bit halves, as on i386,
   on any target (PROF__NO_INT128). */
#define PROF__NO_INT128 1
#include "test_wide_sums.c"
