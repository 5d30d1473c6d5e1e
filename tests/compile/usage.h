/* Shared macro-usage snippets for the compile matrix (tests/compile/run.sh).
 * Exercises every public macro in the awkward places a statement-like macro
 * must survive. Include AFTER prof.h. */
#ifndef PROF_COMPILE_USAGE_H
#define PROF_COMPILE_USAGE_H

#include <stdio.h>
#include <string.h>

#ifdef USAGE_MACRO_ONLY_ARGS
/* Arrays of static storage used only as names (the manual allows them):
   not "unused" under -DPROF_DISABLED either (those macros dropped their
   names there) */
static char usage_scope_name[] = "static_scope";
static const char usage_op_name[] = "static_op";
static const char usage_args_name[] = "static_args";
static const char usage_shapes_name[] = "static_shapes";
static const char usage_flops_name[] = "static_flops";
static const char usage_mark_name[] = "static_mark";
static char usage_range_name[] = "static_range";
static const char usage_counter_name[] = "static_counter";
static const char usage_async_name[] = "static_async";
#endif

static int usage_scope_twice(int n)
{
    PROF_SCOPE("x"); PROF_SCOPE("x");
    if (n < 0)
        return -1; /* early return while two scopes are live */
    return n + 1;
}

static int usage_func(int n)
{
    PROF_FUNC();
    if (n == 0)
        return 0;
    else if (n == 1)
        return 1;
    {
        PROF_SCOPE("nested");
        n += 2;
    }
    for (int i = 0; i < 2; i++) {
        PROF_SCOPE("loop");
        if (i == 1)
            break;
    }
    return n;
}

static void usage_begin_end(int n)
{
    /* unbraced if/else: every macro must be a single statement */
    if (n)
        PROF_BEGIN("y");
    else
        PROF_BEGIN("y");
    if (n > 3)
        PROF_MARK("m");
    else
        PROF_MARK("m");
    if (n)
        PROF_END();
    else
        PROF_END();
    while (n-- > 0)
        PROF_MARK("loop");
    for (n = 0; n < 2; n++)
        PROF_BEGIN("y");
    for (n = 0; n < 2; n++)
        PROF_END();
    if (n)
        PROF_COUNTER("c", 1.0);
    else
        PROF_COUNTER("c", 2.0);
}

static void usage_runtime_values(int n)
{
    char name[32];
    snprintf(name, sizeof name, "dyn-%d", n);
    {
        PROF_SCOPE_DYN(name);
    }
    if (n)
        PROF_BEGIN_DYN(name);
    else
        PROF_BEGIN_DYN(name);
    if (n)
        PROF_THREAD_NAME("usage");
    else
        PROF_THREAD_NAME(name);
    PROF_END();
    PROF_COUNTER("v", n * 0.5);
#ifdef USAGE_MACRO_ONLY_ARGS
    {
        /* Values used only as macro arguments must not become "unused" (or
           "set but not used") under -DPROF_DISABLED (run.sh disabled-args-*). */
        double v = n * 0.25;
        const char *dyn = name;
        const char *tname = name;
        PROF_COUNTER("v", v);
        PROF_BEGIN_DYN(dyn);
        PROF_END();
        PROF_THREAD_NAME(tname);
    }
    {
        prof_args a;
        memset(&a, 0, sizeof a);
        {
            PROF_SCOPE(usage_scope_name);
            PROF_SCOPE_OP(usage_op_name);
            PROF_SCOPE_ARGS(usage_args_name, &a);
            PROF_SCOPE_SHAPES(usage_shapes_name, 1, n);
            PROF_SCOPE_FLOPS(usage_flops_name, n);
            PROF_MARK(usage_mark_name);
            PROF_BEGIN(usage_range_name);
            PROF_END();
            PROF_COUNTER(usage_counter_name, n);
            PROF_ASYNC_BEGIN(usage_async_name, 7);
            PROF_ASYNC_END(7);
        }
    }
#endif
}

static int usage_async_object;
static int usage_ops(int m, int k, int n)
{
    {
        PROF_SCOPE_OP("op"); PROF_SCOPE_FLOPS("mm_flops", (int64_t)2 * m * k * n);
    }
    {
        PROF_SCOPE_SHAPES("mm", 2, m, k, 2, k, n);
        if (m < 0)
            return 0;
    }
    {
        prof_args a;
        memset(&a, 0, sizeof a);
        a.flops = m;
        {
            PROF_SCOPE_ARGS("with_args", &a);
        }
    }
    if (m)
        PROF_ASYNC_BEGIN("async", 42);
    else
        PROF_ASYNC_BEGIN("async", 42);
    if (k)
        PROF_ASYNC_END(42);
    else
        PROF_ASYNC_END(42);
    /* an object's address as the id: through uintptr_t, so that a 32-bit
       build (the m32-* cases) casts no pointer to a wider integer (gcc's
       -Wpointer-to-int-cast stopped -Werror builds of C there) */
    PROF_ASYNC_BEGIN("async_address", &usage_async_object);
    PROF_ASYNC_END(&usage_async_object);
#ifdef USAGE_MACRO_ONLY_ARGS
    {
        /* shapes and flops used only as macro arguments: must not become
           "unused" when PROF_NO_SHAPES / PROF_NO_FLOPS / PROF_DISABLED
           compile the feature out (run.sh *-args cases) */
        int64_t flops = (int64_t)m * n;
        int rows = m + 1, cols = n + 1;
        {
            PROF_SCOPE_FLOPS("only_flops", flops);
        }
        {
            PROF_SCOPE_SHAPES("only_shapes", 2, rows, cols);
        }
    }
#endif
    return m + k + n;
}

static int usage_all(void)
{
    int r = 0;
    PROF_BEGIN("y"); PROF_END();
    PROF_MARK("m");
    r += usage_scope_twice(3);
    r += usage_func(5);
    usage_begin_end(2);
    usage_runtime_values(3);
    r += usage_ops(2, 3, 4);
    return r;
}

/* Record usage_all() (and extra(), when given) in a session; 0 on success.
   Under PROF_DISABLED the functions still exist; prof_stop() may then
   return NULL. */
static int usage_session(int (*extra)(void))
{
    prof_config cfg;
    prof_events *ev;
    int r;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK)
        return 1;
    r = usage_all();
    if (extra && extra() <= 0)
        r = 0;
    ev = prof_stop();
    if (ev)
        prof_events_free(ev);
    prof_shutdown();
    return r > 0 ? 0 : 1;
}

#endif
