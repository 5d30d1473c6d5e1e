/* PROF_STACK_NATIVE gives PROF_BEGIN/PROF_END ranges (and PROF_BEGIN_DYN)
   their return addresses, as every PROF_SCOPE gets its own. Before,
   prof__begin_push took its start with prof__now_start(), not
   prof__scope_start(), so no NATIVE extension was written for a range: an
   interpreter that times each call with PROF_BEGIN/PROF_END (the manual's
   advice where a block scope cannot be used, e.g. around a computed-goto
   dispatch) got an empty flamegraph, pprof profile and folded stacks in
   native mode. A range's native stack starts in the function that called
   PROF_BEGIN (frame 1: the return into its caller), as a scope's does. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <dlfcn.h>
#include <stdlib.h>

static uintptr_t ra_begin;

__attribute__((__noinline__)) void probe27b_range(void);
__attribute__((__noinline__)) void probe27b_range(void) {
    PROF_BEGIN("range");
    ra_begin = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
    PROF_END();
}

static uintptr_t frame_offset(const char *frame) {
    const char *p = strstr(frame, "+0x");
    return p ? (uintptr_t)strtoull(p + 3, NULL, 16) : 0;
}

int main(void) {
    prof_config c;
    prof_events *ev;
    Dl_info di;
    memset(&c, 0, sizeof c);
    prof_set_log(check_log, NULL);
    if (!CHECK(dladdr((void *)(uintptr_t)&frame_offset, &di) != 0)) return check_report();
#if defined(PROF__HAVE_BACKTRACE)
    c.with_stack = PROF_STACK_NATIVE;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    probe27b_range();
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        size_t k, n = prof_events_count(ev);
        int found = 0;
        for (k = 0; k < n; k++) {
            prof_event e;
            if (prof_events_get(ev, k, &e) != PROF_OK || strcmp(e.name, "range") != 0) continue;
            found = 1;
            if (CHECK(e.stack_depth >= 2))
                CHECK_EQ_INT((long long)frame_offset(e.stack[1]), (long long)(ra_begin - (uintptr_t)di.dli_fbase));
        }
        CHECK(found);
        prof_events_free(ev);
    }
#endif
    prof_shutdown();
    return check_report();
}
