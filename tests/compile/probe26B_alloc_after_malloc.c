/* A user's allocator wrapper as the manual describes it ("prof_alloc after
   [the block] is had, as the wrappers do"): malloc, then prof_alloc of the
   fresh block. gcc 11 and later (-Wall, every -O level) reads a `const
   void *` parameter as "the callee reads the pointee" and warns that the
   fresh block "may be used uninitialized" at prof_alloc/prof_alloc_ex:
   with -Werror (lz4's, brotli's, libdeflate's developer builds) the
   instrumented allocator does not compile. prof_alloc only records the
   address; its declaration can say so (gcc >= 10:
   __attribute__((access(none, 1)))), or take the address as it does. */
#include <stdlib.h>
#include "prof.h"

void *my_malloc(size_t n);
void *my_calloc(size_t k, size_t n);
void *my_realloc(void *p, size_t n);
void *my_device_malloc(size_t n);
void my_free(void *p);

void *my_malloc(size_t n) {
    void *p = malloc(n);
    if (p) prof_alloc(p, n);
    return p;
}
void *my_calloc(size_t k, size_t n) {
    void *p = calloc(k, n);
    if (p) prof_alloc(p, k * n);
    return p;
}
void *my_realloc(void *p, size_t n) {
    void *q;
    if (p) prof_dealloc(p);
    q = realloc(p, n);
    if (q) prof_alloc(q, n);
    return q;
}
void *my_device_malloc(size_t n) {
    void *p = malloc(n);
    if (p) prof_alloc_ex(p, n, PROF_DEVICE_CUDA, 0, "pool");
    return p;
}
void my_free(void *p) {
    if (p) prof_dealloc(p);
    free(p);
}
/* a block freed before anything was written to it (an error path):
   prof_dealloc of it warns the same way */
void *my_scratch(size_t n);
void *my_scratch(size_t n) {
    void *p = malloc(n);
    if (p && n > 1000) {
        prof_dealloc(p);
        free(p);
        return NULL;
    }
    return p;
}
