/* An in-process malloc tracker, as programs write them to profile every
   allocation: malloc, calloc, realloc and free (and, with
   TRACKER_MEMALIGN defined before this file, posix_memalign alone) defined
   over glibc's __libc_* functions, each block reported with
   prof_alloc/prof_dealloc under the usual thread-local guard against the
   tracker's own recursion, while `tracking` is set. prof.h is built with
   its default allocator, so its own allocations (and libc's for it) reach
   the tracker too. TRACKER is defined where it can work: glibc, and no
   sanitizer (whose interceptors own malloc). Include it after prof.h. */
#ifndef PROF_TEST_MALLOC_TRACKER_H
#define PROF_TEST_MALLOC_TRACKER_H

#include "sanitizers.h"
#if defined(__GLIBC__) && !defined(TEST_ASAN) && !defined(TEST_TSAN) && !defined(TEST_MSAN)
#  define TRACKER 1
#endif

#if defined(TRACKER)
static __thread int in_hook;
static int tracking;
#define TRACKER_REPORT(call) do { if (tracking && !in_hook) { in_hook = 1; call; in_hook = 0; } } while (0)
#if defined(TRACKER_MEMALIGN)
extern void *__libc_memalign(size_t align, size_t n);
int posix_memalign(void **out, size_t align, size_t n) {
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    TRACKER_REPORT(prof_alloc(p, n));
    *out = p;
    return 0;
}
#else
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
void *malloc(size_t n) {
    void *p = __libc_malloc(n);
    if (p) TRACKER_REPORT(prof_alloc(p, n));
    return p;
}
void *calloc(size_t n, size_t size) {
    void *p = __libc_calloc(n, size);
    if (p) TRACKER_REPORT(prof_alloc(p, n * size));
    return p;
}
void *realloc(void *p, size_t n) {
    void *q;
    if (p) TRACKER_REPORT(prof_dealloc(p));
    q = __libc_realloc(p, n);
    if (q) TRACKER_REPORT(prof_alloc(q, n));
    return q;
}
void free(void *p) {
    if (p) TRACKER_REPORT(prof_dealloc(p));
    __libc_free(p);
}
#endif
#endif

#endif /* PROF_TEST_MALLOC_TRACKER_H */
