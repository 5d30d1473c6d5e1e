/* Every recording macro, with arguments of assorted types, in code built
   with the strict warnings projects add on top of -Wall -Wextra
   (tests/compile/run.sh strict-*): the macros expand in the user's code,
   so none of those warnings may come from them. Included by
   strict_user.c and strict_user.cpp, after prof.h. */
#ifndef PROF_STRICT_USER_H
#define PROF_STRICT_USER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int strict_user_work(int n, double x, float f, int64_t big, uint64_t id, unsigned u);

int strict_user_work(int n, double x, float f, int64_t big, uint64_t id, unsigned u) {
    char name[32];
    int acc = 0;
    PROF_FUNC();
    PROF_SCOPE("a"); PROF_SCOPE("b");
    snprintf(name, sizeof name, "dyn-%d", n);
    {
        PROF_SCOPE_DYN(name);
        acc += 1;
    }
    PROF_BEGIN("range");
    PROF_BEGIN_DYN(name);
    PROF_END();
    PROF_END();
    PROF_MARK("mark");
    PROF_THREAD_NAME("strict");
    PROF_THREAD_NAME(name);
    /* counters: int, unsigned, double, float, int64 values */
    PROF_COUNTER("c_int", n);
    PROF_COUNTER("c_unsigned", u);
    PROF_COUNTER("c_double", x);
    PROF_COUNTER("c_float", f);
    PROF_COUNTER("c_int64", big);
    /* async ids: int, unsigned, uint64 */
    PROF_ASYNC_BEGIN("async_int", n);
    PROF_ASYNC_END(n);
    PROF_ASYNC_BEGIN("async_unsigned", u);
    PROF_ASYNC_END(u);
    PROF_ASYNC_BEGIN("async_u64", id);
    PROF_ASYNC_END(id);
    {
        PROF_SCOPE_OP("op");
        PROF_SCOPE_FLOPS("flops_int", n);
        PROF_SCOPE_FLOPS("flops_i64", big);
        PROF_SCOPE_FLOPS("flops_double", x);
        acc += 2;
    }
    {
        PROF_SCOPE_SHAPES("shapes", 2, n, n, 1, big);
        acc += 3;
    }
    PROF_ASYNC_BEGIN("async_address", &acc); /* an address as the id */
    PROF_ASYNC_END(&acc);
#ifdef __cplusplus
    PROF_ASYNC_BEGIN("async_nullptr", nullptr); /* a null pointer's id: 0 */
    PROF_ASYNC_END(nullptr);
    {
        /* C++ converts each value itself: size_t dims need no cast */
        size_t rows = sizeof name, cols = 4;
        PROF_SCOPE_SHAPES("shapes_size_t", 2, rows, cols, 1, u);
    }
#endif
    {
        prof_args a;
        memset(&a, 0, sizeof a);
        a.flops = big;
        {
            PROF_SCOPE_ARGS("args", &a);
            acc += 4;
        }
    }
    return acc;
}

#endif
