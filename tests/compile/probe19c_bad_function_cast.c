/* probe19c-bad-function-cast-{gcc,clang}: a function call as a macro's
   numeric argument (PROF_COUNTER("queue", queue_depth()), a FLOP count
   computed by a function, an async id from a function), built with
   -Wbad-function-cast (curl's picky warnings and others; strict-* has it
   with plain variables). The macros convert their arguments: in C by a cast,
   which gcc reports when its operand is a call whose type differs. */
#include "prof.h"

#include <stddef.h>

static int queue_depth(void) { return 3; }
static size_t bytes_pending(void) { return 4096u; }
static double gemm_flops(void) { return 2.0 * 64 * 64 * 64; }
static long long request_id(void) { return 42; }
static char buffer[16];
static void *current_buffer(void) { return buffer; } /* an address as the async id */

int probe19c_bfc(void);

int probe19c_bfc(void) {
    PROF_COUNTER("queue", queue_depth());
    PROF_COUNTER("pending", bytes_pending());
    PROF_ASYNC_BEGIN("request", request_id());
    PROF_ASYNC_END(request_id());
    PROF_ASYNC_BEGIN("buffer", current_buffer());
    PROF_ASYNC_END(current_buffer());
    {
        PROF_SCOPE_FLOPS("gemm", gemm_flops());
        return 1;
    }
}
