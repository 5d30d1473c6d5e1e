/* PROF_STACK_NATIVE: a scope's native stack starts in the function that
   holds the scope (test_features.c: "the frames are the scope's, not the
   profiler's own"), whether or not the compiler inlined prof.h's helpers
   (prof__scope_enter, prof__scope_enter_dyn, prof__scope_args_enter)
   there.

   prof__scope_start skipped backtrace()'s frames up to the return address
   into the function that called the slow path. That is the scope's
   function only where the helper was inlined; gcc and clang keep it out of
   line at -O0 (every debug build) and -Os, where every stack then started
   with a nameless frame of prof.h's own helper, the scope's function
   second, all such scopes sharing one bogus leaf in pprof and the folded
   stacks (found in MicroPython). At -O0 and -Os the macros now pass the
   scope's function's own return address, and the stack starts at the
   frame before it. The suite builds this file at -O1 (helpers inlined);
   the compile matrix's native-leaf-* cases build and run it at -O0 and
   -Os with gcc, clang and g++. A PROF_BEGIN range's stack starts in its
   function too (it had none). Frame 1 of each scope's stack must be the
   return address into its function's caller, which the function reads
   itself (no symbol names needed). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <dlfcn.h>
#include <stdlib.h>

static uintptr_t ra_plain, ra_dyn, ra_args, ra_range;

#define NOINLINE __attribute__((__noinline__))
NOINLINE void probe27b_plain(void);
NOINLINE void probe27b_plain(void) {
    PROF_SCOPE("plain_scope");
    ra_plain = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
}
NOINLINE void probe27b_dyn(const char *name);
NOINLINE void probe27b_dyn(const char *name) {
    PROF_SCOPE_DYN(name);
    ra_dyn = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
}
NOINLINE void probe27b_args(void);
NOINLINE void probe27b_args(void) {
    PROF_SCOPE_SHAPES("args_scope", 2, 3, 4);
    ra_args = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
}

/* PROF_BEGIN ranges had no native stack at all: prof__begin_push took
   its start with prof__now_start(), not prof__scope_start(), so their
   time left the flamegraph, pprof and folded stacks in native mode */
NOINLINE void probe27b_range(void);
NOINLINE void probe27b_range(void) {
    PROF_BEGIN("range");
    ra_range = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
    PROF_END();
}

/* the offset in "... (module+0xOFF)"; 0 if none */
static uintptr_t frame_offset(const char *frame) {
    const char *p = strstr(frame, "+0x");
    return p ? (uintptr_t)strtoull(p + 3, NULL, 16) : 0;
}

static void check_leaf(prof_events *ev, const char *name, uintptr_t ra, uintptr_t base) {
    int64_t i = -1;
    size_t k, n = prof_events_count(ev);
    prof_event e;
    for (k = 0; k < n; k++) {
        if (prof_events_get(ev, k, &e) == PROF_OK && strcmp(e.name, name) == 0) { i = (int64_t)k; break; }
    }
    if (!CHECK(i >= 0)) return;
    if (!CHECK(e.stack_depth >= 2)) return;
    /* frame 0 is in the scope's function, frame 1 the return into its caller */
    if (!CHECK_EQ_INT((long long)frame_offset(e.stack[1]), (long long)(ra - base))) {
        fprintf(stderr, "  %s: stack[0] %s, stack[1] %s, expected caller +0x%llx\n", name, e.stack[0], e.stack[1],
                (unsigned long long)(ra - base));
    }
}

int main(void) {
    prof_config c;
    prof_events *ev;
    Dl_info di;
    uintptr_t base;
    memset(&c, 0, sizeof c);
    prof_set_log(check_log, NULL);
    if (!CHECK(dladdr((void *)(uintptr_t)&check_leaf, &di) != 0)) return check_report();
    base = (uintptr_t)di.dli_fbase;
    c.with_stack = PROF_STACK_NATIVE;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    probe27b_plain();
    probe27b_dyn("dyn_scope");
    probe27b_args();
    probe27b_range();
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        check_leaf(ev, "plain_scope", ra_plain, base);
        check_leaf(ev, "dyn_scope", ra_dyn, base);
        check_leaf(ev, "args_scope", ra_args, base);
        check_leaf(ev, "range", ra_range, base);
        prof_events_free(ev);
    }
    prof_shutdown();
    return check_report();
}
