/* gcc's -Waggregate-return in the user's build: xz's own CMakeLists.txt and
   configure.ac turn it on for every file of the project (with -Werror in
   its developer builds), as some other GNU-style projects do. Instrumenting
   xz's liblzma as a user would (PROF_SCOPE in lzma_code, lz_encode,
   lzma_crc32, the multithreaded encoder's worker_start, ...) gave 29
   warnings, one per scope, all in prof.h:

     prof.h:1384:27: warning: function call has aggregate value
         [-Waggregate-return]  (the hot path's call of
         prof__scope_enter_slow, inlined into each instrumented function)
     at -O0 also prof.h:1368 "function returns an aggregate"
         (prof__scope_enter) and prof.h:1546 (PROF__SCOPE_AT's call)

   and 12 more in the implementation's file. The user cannot avoid them:
   they come from the macros' inline helpers, not from any prof.h call the
   user wrote. The manual lists the warnings the header keeps quiet (strict
   flags, clang's -Weverything) and says nothing of this one. prof.h should
   keep its macros and implementation quiet under -Waggregate-return (as it
   does for -Wvla, -Wconversion, -Winline), or say that it cannot.

   The pragma makes the warning an error, so this file stops compiling on
   a header that warns; once quiet, it builds and checks that the scopes
   still record. (The public API's own struct returns, prof_events_stats,
   are the user's own calls, so this file does not call them.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic error "-Waggregate-return"
#endif
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <string.h>

static int leaf(int n) { PROF_SCOPE("leaf"); return n + 1; }
static int outer(int n) { PROF_FUNC(); int s = 0; for (int i = 0; i < n; i++) s += leaf(i); return s; }

int main(void) {
    prof_config cfg = {0};
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    CHECK_EQ_INT(outer(3), 6);
    { PROF_SCOPE_DYN("dyn"); }
    prof_events *ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return 1;
    CHECK_EQ_INT(prof_events_count(ev), 5);
    int leaves = 0;
    for (size_t i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, "leaf") == 0) leaves++;
    }
    CHECK_EQ_INT(leaves, 3);
    prof_events_free(ev);
    return check_failures() != 0;
}
