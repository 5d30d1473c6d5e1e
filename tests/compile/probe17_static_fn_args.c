/* A static helper called only inside a macro argument (a counter's value,
   a FLOP count, an async id, a dynamic name, shapes): realistic code such
   as PROF_COUNTER("queue", queue_depth()). When the macro's feature is
   compiled out (-DPROF_DISABLED; PROF_NO_FLOPS, PROF_NO_SHAPES) the
   argument sits inside sizeof, which clang counts as no use of the
   function: -Wunneeded-internal-declaration (in -Wall) then fails a
   -Werror build ("function 'queue_depth' is not needed and will not be
   emitted"), where gcc is quiet. Run by run.sh probe17-static-fn-*. */
#include "prof.h"

static int probe17_calls; /* the helpers' calls: none where the macros are compiled out */
static double queue_depth(void) { probe17_calls++; return 3.0; }
static long long mm_flops(int n) { probe17_calls++; return 2LL * n * n * n; }
static unsigned long next_id(void) { static unsigned long id; probe17_calls++; return ++id; }
static const char *stage_name(void) { probe17_calls++; return "stage"; }
static int rows(int n) { probe17_calls++; return n + 1; }

int probe17_step(int n);
int probe17_step(int n) {
    PROF_SCOPE_FLOPS("mm", mm_flops(n));
    PROF_SCOPE_SHAPES("mm2", 2, rows(n), n);
    PROF_SCOPE_DYN(stage_name());
    PROF_COUNTER("queue", queue_depth());
    PROF_ASYNC_BEGIN("req", next_id());
    PROF_ASYNC_END(1);
    return n;
}

#if defined(PROBE17_MAIN) && defined(PROF_DISABLED)
/* Compiled out, the arguments are used but never evaluated. */
int main(void) {
    (void)probe17_step(3);
    return probe17_calls == 0 ? 0 : 1;
}
#endif
