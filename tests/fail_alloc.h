/* fail_alloc.h - allocator hooks (PROF_MALLOC/REALLOC/FREE) for the tests
   that watch or fail prof.h's allocations. Include it before prof.h, after
   _GNU_SOURCE. One of three, chosen by a macro defined before inclusion:

   - (none): the out-of-memory sweeps (test_oom_exports, test_guess_redo):
     the allocation numbered g_fail_at (counted from g_count = 0, on any
     thread) fails; every block handed out is filled with 0xA5 bytes, as a
     reused heap block may hold, so prof.h must not free or read what it
     did not set.
   - FAIL_ALLOC_ALL: every allocation fails while g_fail_all is set (at an
     exact point of a test: around a scope, a PROF_BEGIN).
   - FAIL_ALLOC_COUNT_LIVE: nothing fails; g_live counts the bytes prof.h
     holds, to show what its memory does over many calls. */
#ifndef FAIL_ALLOC_H
#define FAIL_ALLOC_H
#include <stdlib.h>
#include <string.h>

#if defined(FAIL_ALLOC_COUNT_LIVE)
#include <malloc.h>
static long g_live; /* bytes prof.h holds through PROF_MALLOC/REALLOC */
/* counted by the blocks' usable sizes (glibc; valgrind too), so that each
   block is handed out as malloc made it: an offset pointer would be an
   interior one, which valgrind's leak check calls "possibly lost" */
static void *test_malloc(size_t n) {
    void *p = malloc(n);
    if (p) __atomic_add_fetch(&g_live, (long)malloc_usable_size(p), __ATOMIC_RELAXED);
    return p;
}
static void test_free(void *q) {
    if (!q) return;
    __atomic_sub_fetch(&g_live, (long)malloc_usable_size(q), __ATOMIC_RELAXED);
    free(q);
}
static void *test_realloc(void *q, size_t n) {
    long old = q ? (long)malloc_usable_size(q) : 0;
    void *p = realloc(q, n);
    if (!p) return NULL;
    __atomic_add_fetch(&g_live, (long)malloc_usable_size(p) - old, __ATOMIC_RELAXED);
    return p;
}
#define PROF_FREE(p) test_free(p)
#elif defined(FAIL_ALLOC_ALL)
static int g_fail_all; /* every prof.h allocation fails while set */
static void *test_malloc(size_t n) { return __atomic_load_n(&g_fail_all, __ATOMIC_RELAXED) ? NULL : malloc(n); }
static void *test_realloc(void *p, size_t n) { return __atomic_load_n(&g_fail_all, __ATOMIC_RELAXED) ? NULL : realloc(p, n); }
#define PROF_FREE(p) free(p)
#else
static long g_count, g_fail_at = -1;
static int fail_now(void) { return __atomic_add_fetch(&g_count, 1, __ATOMIC_SEQ_CST) == g_fail_at; }
static void *junk(void *p, size_t n) {
    if (p) memset(p, 0xA5, n);
    return p;
}
static void *test_malloc(size_t n) { return fail_now() ? NULL : junk(malloc(n), n); }
static void *test_realloc(void *p, size_t n) { return fail_now() ? NULL : realloc(p, n); }
#define PROF_FREE(p) free(p)
#endif

#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) test_realloc((p), (n))
#endif
