/* Adversarial pass, session 16: what a hostile or unlucky program does to
   the memory table and to sessions.

   realloc_race: prof_realloc took its old block out of the live table
   only after realloc returned. By then the block is free, and another
   thread's malloc may have got the same address and put it in the table:
   prof_realloc then took that thread's block out instead (a free of the
   wrong size recorded), and that thread's later prof_free was an unknown
   free. A real program hits it with two threads, one growing buffers with
   prof_realloc, one calling prof_malloc/prof_free of similar sizes (3 to 6
   unknown frees in 0.3 s here). The test makes the interleaving exact:
   prof.h's call to realloc is routed (a macro, in this file only) through
   a realloc that always moves the block and, once armed, does what the
   other thread's prof_malloc would do at that moment: prof_alloc of the
   address just freed.

   realloc_fail: a realloc that fails leaves the block the caller's: it
   stays in the table with its size (its prof_free is a known free of that
   size), and nothing is recorded for the failed call.

   sessions: scopes and PROF_BEGIN ranges open across prof_stop/prof_start,
   PROF_END past the cap, the accounting of each session exact. */
#define _GNU_SOURCE 1
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *test_realloc(void *p, size_t n);
#define realloc test_realloc
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef realloc
#include "check.h"

static int g_armed;          /* 1: the next moving realloc lets "another thread" allocate at the old address */
static int g_fail_next;      /* 1: the next realloc fails */
static uintptr_t g_reused;   /* the address the "other thread" got */

/* Only the old address's value is used after free, never the memory; gcc
   12 cannot tell the two apart (prof_realloc has the same pragma). */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif
/* A realloc that always moves (so the old address is free when it
   returns), as libc's does when the block cannot grow in place. */
static void *test_realloc(void *p, size_t n) {
    void *q;
    size_t old;
    if (g_fail_next) { g_fail_next = 0; return NULL; }
    if (!p) return realloc(p, n);
    if (n == 0) return realloc(p, n);
    if (!(q = malloc(n))) return NULL;
    old = malloc_usable_size(p);
    memcpy(q, p, old < n ? old : n);
    free(p);
    if (g_armed) {
        g_armed = 0;
        g_reused = (uintptr_t)p;
        prof_alloc((const void *)g_reused, 123); /* the other thread's prof_malloc got the address */
    }
    return q;
}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif

static prof_config config(void) {
    prof_config c;
    memset(&c, 0, sizeof c);
    c.log = check_log;
    c.profile_memory = 1;
    return c;
}

/* The sum of the memory records of the list's [memory] events (no scope is
   open, so every record is one). */
static int64_t memory_sum(prof_events *ev, size_t *n) {
    int64_t sum = 0;
    size_t i;
    *n = 0;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        prof_events_get(ev, i, &e);
        if (strcmp(e.name, "[memory]") == 0) { sum += e.cpu_memory_usage; (*n)++; }
    }
    return sum;
}

static void test_realloc_race(void) {
    prof_config c = config();
    prof_events *ev;
    prof_stats st;
    size_t n;
    void *p;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    p = prof_malloc(40);
    g_armed = 1;
    p = prof_realloc(p, 4000);
    CHECK(g_reused != 0 && (uintptr_t)p != g_reused);
    prof_dealloc((const void *)g_reused); /* the other thread frees its block */
    prof_free(p);
    ev = prof_stop();
    CHECK(ev != NULL);
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.unknown_frees, 0); /* was 1: the other thread's free */
    /* +40, +123 (other), -40, +4000, -123, -4000: six records, all known */
    CHECK_EQ_INT(st.allocs, 6);
    CHECK_EQ_INT(memory_sum(ev, &n), 0);
    CHECK_EQ_INT(n, 6);
    prof_events_free(ev);
}

static void test_realloc_fail(void) {
    prof_config c = config();
    prof_events *ev;
    prof_stats st;
    size_t n;
    void *p, *q;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    p = prof_malloc(64);
    g_fail_next = 1;
    q = prof_realloc(p, 1000);
    CHECK(q == NULL);
    prof_free(p); /* still the caller's block, of 64 bytes */
    p = malloc(32); /* a block prof.h never saw: a failed realloc frees nothing, so no unknown free */
    CHECK(p != NULL);
    g_fail_next = 1;
    CHECK(prof_realloc(p, 1000) == NULL);
    free(p);
    ev = prof_stop();
    CHECK(ev != NULL);
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.unknown_frees, 0);
    CHECK_EQ_INT(st.allocs, 2);
    CHECK_EQ_INT(memory_sum(ev, &n), 0);
    CHECK_EQ_INT(n, 2);
    prof_events_free(ev);
}

static void check_stats(prof_events *ev, uint64_t n, uint64_t entered, uint64_t recorded, uint64_t dropped, uint64_t open, uint64_t unbalanced) {
    prof_stats st = prof_events_stats(ev);
    CHECK_EQ_INT(prof_events_count(ev), n);
    CHECK_EQ_INT(st.scopes_entered, entered);
    CHECK_EQ_INT(st.scopes_recorded, recorded);
    CHECK_EQ_INT(st.scopes_dropped, dropped);
    CHECK_EQ_INT(st.open_at_stop, open);
    CHECK_EQ_INT(st.unbalanced_ends, unbalanced);
}

static void test_sessions(void) {
    prof_config c = config();
    prof_events *ev;
    c.profile_memory = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    {
        PROF_SCOPE("spans");
        PROF_BEGIN("beg1");
        ev = prof_stop();
        check_stats(ev, 0, 2, 0, 0, 2, 0);
        prof_events_free(ev);
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        { PROF_SCOPE("inner2"); }
        PROF_BEGIN("beg2");
        PROF_END();  /* beg2 */
        PROF_END();  /* beg1, begun last session: no record, not unbalanced */
    }                /* spans ends: begun last session, not counted */
    PROF_END();      /* unbalanced */
    ev = prof_stop();
    check_stats(ev, 2, 2, 2, 0, 0, 1);
    prof_events_free(ev);

    c.max_events = 2;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("a"); PROF_SCOPE("b"); PROF_SCOPE("c"); PROF_BEGIN("d"); }
    ev = prof_stop();
    check_stats(ev, 2, 4, 2, 2, 0, 0);
    prof_events_free(ev);

    c.max_events = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    PROF_END();      /* closes d, dropped last session: not unbalanced */
    { PROF_SCOPE("z"); }
    ev = prof_stop();
    check_stats(ev, 1, 1, 1, 0, 0, 0);
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    test_realloc_race();
    test_realloc_fail();
    test_sessions();
    prof_shutdown();
    return check_report();
}
