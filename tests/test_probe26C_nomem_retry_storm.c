/* Recording once memory has run out (RLIMIT_AS reached, overcommit off,
   a cgroup's memory.max with swap full, an allocator that says no): each
   thread's record block is full and prof__grow_n asks for the next one
   for every single event that follows - prof__block_new's malloc and
   mmap, both failing, plus the prefault pool's lock - and drops that
   event. Nothing remembers that the last try failed. So every scope,
   mark and counter sample of every thread pays failing system calls
   (malloc's sbrk and mmap attempts, an arena it tries to make, then the
   block's own mmap): measured here, 300k iterations of two scopes and a
   mark on three threads with RLIMIT_AS 30 MB above the process's size:
   2.2 s without the limit, 279 s with it (15 s user, 58 s system; the
   threads contend on the kernel's mmap lock) - a program that runs
   out of memory while profiled slows by two orders of magnitude, for
   events that are dropped anyway, and looks hung (a run of 2M
   iterations had not ended after 10 minutes). The manual promises the
   events are dropped and counted, not that each costs tens of
   microseconds.
   Deterministic form: allocator hooks that count prof.h's allocation
   attempts and fail them all while set. A thread fills its blocks, then
   records 200k scopes with every allocation failing: every scope is
   accounted for (entered = recorded + dropped), and prof.h must not
   try to allocate again for each dropped event (a back-off: a failed
   block is tried again after the next 2^k events, or at the next
   session) - at most one attempt per 100 dropped events (plus 64).
   Nothing else allocates meanwhile: the attempts are the record blocks'. */
#define _GNU_SOURCE
#include <stdlib.h>
static int g_fail;
static long g_attempts; /* while g_fail */
static void *test_malloc(size_t n) {
    if (__atomic_load_n(&g_fail, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&g_attempts, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    return malloc(n);
}
static void *test_realloc(void *p, size_t n) {
    if (__atomic_load_n(&g_fail, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&g_attempts, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    return realloc(p, n);
}
#define PROF_MALLOC(n) test_malloc(n)
#define PROF_REALLOC(p, n) test_realloc((p), (n))
#define PROF_FREE(p) free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <string.h>

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    long i, n = 200000, warm = 20000, attempts;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.no_prefault_thread = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    for (i = 0; i < warm; i++) {
        PROF_SCOPE("before");
    }
    __atomic_store_n(&g_fail, 1, __ATOMIC_SEQ_CST);
    for (i = 0; i < n; i++) {
        PROF_SCOPE("out of memory");
    }
    __atomic_store_n(&g_fail, 0, __ATOMIC_SEQ_CST);
    attempts = __atomic_load_n(&g_attempts, __ATOMIC_SEQ_CST);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_entered, warm + n);
    CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
    CHECK_MSG(st.scopes_dropped > (uint64_t)n / 2, "the blocks did not run out: %llu of %ld scopes dropped", (unsigned long long)st.scopes_dropped, n);
    CHECK_MSG(attempts <= (long)(st.scopes_dropped / 100) + 64,
              "%ld allocation attempts for %llu scopes dropped for lack of memory: one (failing malloc + mmap) per dropped event, where a back-off would make a few",
              attempts, (unsigned long long)st.scopes_dropped);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
