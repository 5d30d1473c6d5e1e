/* fail_alloc.h - prof.h's allocator for the out-of-memory sweeps
   (test_oom_exports, test_guess_redo): the allocation numbered g_fail_at
   (counted from g_count = 0, on any thread) fails; every block handed out
   is filled with 0xA5 bytes, as a reused heap block may hold, so prof.h
   must not free or read what it did not set. Include it before prof.h,
   after _GNU_SOURCE. */
#ifndef FAIL_ALLOC_H
#define FAIL_ALLOC_H
#include <stdlib.h>
#include <string.h>

static long g_count, g_fail_at = -1;
static int fail_now(void) { return __atomic_add_fetch(&g_count, 1, __ATOMIC_SEQ_CST) == g_fail_at; }
static void *junk(void *p, size_t n) {
    if (p) memset(p, 0xA5, n);
    return p;
}
static void *test_malloc(size_t n) { return fail_now() ? NULL : junk(malloc(n), n); }
static void *test_realloc(void *p, size_t n) { return fail_now() ? NULL : realloc(p, n); }
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) test_realloc((p), (n))
#define PROF_FREE(p) free(p)
#endif
