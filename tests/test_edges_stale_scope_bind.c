/* Scopes that began before their thread bound to the session, and the
   exception for ProfilerStep#N:
   - a thread's scope whose begin time is after the session's start but
     before the thread bound to it (bind_tick: a scope whose entry read
     the epoch of the last session and passed the gate after the next
     prof_start) counts for no session: prof_stop leaves it out, as the
     comment at prof__thread_bind says;
   - ProfilerStep#N is the exception: the thread that ends a step (here a
     worker calling prof_step, bound after the main thread's prof_start
     began ProfilerStep#0) records it with the step's begin time, before
     its own bind, and it is kept.
   The first case is forced with the test's own TSC (fake_tsc.h): the
   scope's begin reads a time between the session's start and the
   thread's bind. Found by mutation testing: keeping every such scope
   left every other test passing. x86-64 only (the TSC is faked there). */
#define _GNU_SOURCE
#include "fake_tsc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "fake_tsc.h"
#include "check.h"

#include <pthread.h>
#include <string.h>

#if defined(PROBE_FAKE_TSC)
static int64_t g_base;
#define TSC_HZ 2500000000u /* 5 ticks per 2 ns */
static uint64_t test_rdtsc(void) {
    uint64_t t;
    return fake_tsc_take(&t) ? t : fake_tsc_ticks(__atomic_load_n(&vc, __ATOMIC_SEQ_CST), TSC_HZ);
}
static void *early_scope(void *p) {
    (void)p;
    PROF_MARK("binds"); /* the thread binds at base + 2 ms */
    vc = g_base + 3000000;
    fake_tsc_force(fake_tsc_ticks(g_base + 1000000, TSC_HZ)); /* the scope's begin: 1 ms, before the bind */
    { PROF_SCOPE("begun_before_bind"); }
    { PROF_SCOPE("begun_after_bind"); }
    return NULL;
}
static void *stepper(void *p) {
    (void)p;
    PROF_MARK("binds");
    vc = g_base + 3000000;
    CHECK_EQ_INT(prof_step(), PROF_OK); /* ends ProfilerStep#0, begun by the main thread at 0 */
    return NULL;
}
#endif

int main(void) {
#if defined(PROBE_FAKE_TSC)
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    g_base = vc;
    prof_set_log(check_log, NULL);
    /* a scope begun before its thread's bind */
    if (!CHECK_EQ_INT(prof_start(NULL), PROF_OK)) return check_report();
    vc = g_base + 2000000;
    if (CHECK(pthread_create(&th, NULL, early_scope, NULL) == 0)) pthread_join(th, NULL);
    vc = g_base + 30000000; /* past the stop's clock fit: no wait */
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK(check_find_event(ev, "begun_before_bind", 0) < 0);
        CHECK(check_find_event(ev, "begun_after_bind", 0) >= 0);
        prof_events_free(ev);
    }
    /* ProfilerStep#0 (in the list [0, 3 ms]) ended by a thread that bound after it began */
    vc += 100000000;
    g_base = vc;
    memset(&cfg, 0, sizeof cfg);
    cfg.schedule.active = 5;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    vc = g_base + 2000000;
    if (CHECK(pthread_create(&th, NULL, stepper, NULL) == 0)) pthread_join(th, NULL);
    vc = g_base + 30000000;
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        prof_event e;
        /* the list names it "ProfilerStep*" (its trace name keeps the number) */
        if (CHECK(prof_events_count(ev) >= 1) && CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK)) {
            CHECK_EQ_STR(e.name, "ProfilerStep*");
            CHECK_EQ_INT(e.start_ns, 0);
            CHECK_EQ_INT(e.end_ns, 3000000);
        }
        prof_events_free(ev);
    }
    return check_report();
#else
    puts("test_edges_stale_scope_bind: skipped (the TSC is faked on x86-64 only)");
    return 0;
#endif
}
