/* A program that marks libc's allocator deprecated, as Valkey's server.h
   does (its code must use zmalloc; it builds with
   -Werror=deprecated-declarations), holds the implementation: prof.h's own
   calls of libc's malloc, calloc, realloc and free (prof_malloc and its
   twins, the default hooks, a demangled name's copy) do not warn, with
   the hooks routed to the program's allocator (-DWITH_HOOKS) or not.
   The program's own calls after prof.h still warn (-DUSER_CALLS_MALLOC
   must not compile). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
static __attribute__((unused)) void *zmalloc(size_t n) { return (malloc)(n); }
static __attribute__((unused)) void *zrealloc(void *p, size_t n) { return (realloc)(p, n); }
static __attribute__((unused)) void zfree(void *p) { (free)(p); }
void *calloc(size_t count, size_t size) __attribute__((deprecated));
void free(void *ptr) __attribute__((deprecated));
void *malloc(size_t size) __attribute__((deprecated));
void *realloc(void *ptr, size_t size) __attribute__((deprecated));

#define PROF_IMPLEMENTATION
#if defined(WITH_HOOKS)
#define PROF_MALLOC(n) zmalloc(n)
#define PROF_REALLOC(p, n) zrealloc(p, n)
#define PROF_FREE(p) zfree(p)
#endif
#include "prof.h"
#include <stdio.h>

int main(void) {
    prof_config cfg;
    prof_events *ev;
    void *p;
    int ok;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (prof_start(&cfg) != PROF_OK) return 1;
    {
        PROF_SCOPE("x");
        p = prof_malloc(100);
        p = prof_realloc(p, 200);
        prof_free(p);
        p = prof_calloc(2, 8);
        prof_free(p);
    }
#if defined(USER_CALLS_MALLOC)
    zfree(malloc(1));
#endif
    ev = prof_stop();
    if (!ev) return 1;
    ok = prof_events_stats(ev).allocs == 6; /* records: malloc, realloc's free of the old block and its new one, free, calloc, free */
    printf("deprecated_malloc: %llu allocation records\n", (unsigned long long)prof_events_stats(ev).allocs);
    prof_events_free(ev);
    return ok ? 0 : 1;
}
