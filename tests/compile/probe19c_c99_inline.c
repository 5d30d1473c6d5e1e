/* probe19c-c99-inline-{gcc,clang}: the recording macros inside C99
   `inline` functions with external linkage, the way a header defines hot
   helpers for every file that includes it (one .c file then provides the
   external definition with an `extern` declaration; this file is one of
   the others, so each function here is an inline definition only). C99
   6.7.4p3: such a function may not refer to an identifier with internal
   linkage. gcc ("'prof__scope_enter' is static but used in inline function
   'lerp' which is not static") and clang ("static function
   'prof__scope_enter' is used in an inline function with external
   linkage", -Wstatic-in-inline) warn by default, so a -Werror build
   fails. */
#include "prof.h"

#include <stdint.h>

inline double lerp(double a, double b, double t) {
    PROF_SCOPE("lerp");
    return a + (b - a) * t;
}

inline int op_scope(int x) {
    PROF_SCOPE_OP("op");
    PROF_FUNC();
    return x + 1;
}

inline int dyn_scope(const char *name, int x) {
    PROF_SCOPE_DYN(name);
    return x * 2;
}

inline int64_t shaped(int64_t m, int64_t n) {
    PROF_SCOPE_SHAPES("shaped", 2, m, n);
    PROF_SCOPE_FLOPS("flops", m * n);
    return m * n;
}

inline int statements(int x) {
    PROF_BEGIN("range");
    PROF_MARK("mark");
    PROF_COUNTER("x", x);
    PROF_ASYNC_BEGIN("async", x);
    PROF_ASYNC_END(x);
    PROF_END();
    return x;
}

int probe19c_inline_users(void);

int probe19c_inline_users(void) {
    return (int)lerp(0.0, 2.0, 0.5) + op_scope(1) + dyn_scope("d", 2) + (int)shaped(2, 3) + statements(4);
}
