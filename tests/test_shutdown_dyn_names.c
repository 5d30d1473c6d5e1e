/* prof_shutdown frees the calling thread's long run-time names: the
   PROF_SCOPE_DYN names of 4 KiB and more that the thread interned (its
   name arenas, this session's and the last one's, and their table).
   Before, they stayed until the thread exited: a program that profiled
   once with long names and shut the profiler down kept them all (here
   300 names of 5000 bytes: 1.5 MB, two sessions' worth). A PROF_BEGIN_DYN
   range still open keeps them (prof_stop names such a range), and a
   PROF_SCOPE_DYN open across the shutdown ends afterwards in a new session
   that leaves it out without reading its name: checked under the sanitizers
   and valgrind like every test. Also the table of live allocations
   (profile_memory): its slots stayed after every allocation was freed
   (100000 allocations: about 6 MB), now prof_shutdown gives back the
   shards that track none; one still tracked keeps its shard, and its
   free is still charged. Counted through PROF_MALLOC/PROF_FREE. */
#define _GNU_SOURCE 1
#define FAIL_ALLOC_COUNT_LIVE 1
#include "fail_alloc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#define N 300
#define LEN 5000

static char g_name[LEN + 1];

/* every session here: the defaults, warnings to check.h's log */
static void start(int profile_memory) {
    prof_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    cfg.profile_memory = profile_memory;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
}

static void session_of_long_names(int n) {
    prof_events *ev;
    int i;
    start(0);
    for (i = 0; i < n; i++) {
        snprintf(g_name, 16, "%08d", i); /* distinct in its first bytes, 5000 long */
        g_name[8] = 'x';
        { PROF_SCOPE_DYN(g_name); }
    }
    ev = prof_stop();
    if (CHECK(ev != NULL)) CHECK_EQ_INT(prof_events_count(ev), n);
    prof_events_free(ev);
}

int main(void) {
    long before;
    prof_set_log(check_log, NULL);
    memset(g_name, 'x', LEN);
    g_name[LEN] = 0;
    session_of_long_names(1); /* the thread's state and first block */
    prof_shutdown();
    before = __atomic_load_n(&g_live, __ATOMIC_RELAXED);
    session_of_long_names(N);
    session_of_long_names(N); /* the last session's names are kept one session more */
    CHECK_MSG(__atomic_load_n(&g_live, __ATOMIC_RELAXED) - before > (long)N * LEN, "the names are not held at all? %ld bytes", g_live - before);
    prof_shutdown();
    CHECK_MSG(g_live - before < 64 * 1024, "after prof_shutdown the thread still holds %ld bytes more than after the first one (its long names: %d of %d bytes)",
              g_live - before, N, LEN);

    /* a PROF_SCOPE_DYN open across the shutdown ends in a later session:
       left out (it began before it), its freed name never read */
    {
        prof_events *ev;
        start(0);
        {
            PROF_SCOPE_DYN(g_name);
            prof_events_free(prof_stop());
            prof_shutdown();
            start(0);
        }
        { PROF_SCOPE("after"); }
        ev = prof_stop();
        if (CHECK(ev != NULL)) CHECK_EQ_INT(prof_events_count(ev), 1);
        prof_events_free(ev);
    }
    /* an open PROF_BEGIN_DYN range keeps them (its entry points at its
       name); it ends in the next session, without a record */
    {
        prof_events *ev;
        prof_stats st;
        start(0);
        PROF_BEGIN_DYN(g_name);
        check_log_reset();
        prof_events_free(prof_stop());
        CHECK(check_log_has(PROF_E_OPEN_SCOPES, "xxxx")); /* named at the stop */
        prof_shutdown();
        start(0);
        PROF_END();
        ev = prof_stop();
        st = prof_events_stats(ev);
        CHECK_EQ_INT(prof_events_count(ev), 0);
        CHECK_EQ_INT(st.unbalanced_ends, 0);
        prof_events_free(ev);
    }
    prof_shutdown();

    /* the live allocations' table */
    {
        static char blocks[100000];
        prof_events *ev;
        long base;
        int i;
        base = __atomic_load_n(&g_live, __ATOMIC_RELAXED);
        start(1);
        {
            PROF_SCOPE("allocs");
            for (i = 0; i < 100000; i++) prof_alloc(&blocks[i], 1);
        }
        ev = prof_stop();
        prof_events_free(ev);
        for (i = 1; i < 100000; i++) prof_dealloc(&blocks[i]); /* blocks[0] stays live */
        CHECK_MSG(g_live - base > 1000000, "the live table holds %ld bytes", g_live - base);
        prof_shutdown();
        CHECK_MSG(g_live - base < 64 * 1024, "after prof_shutdown the live allocations' table still holds %ld bytes", g_live - base);
        /* the one still live is still known: its free is charged */
        start(1);
        { PROF_SCOPE("free_it"); prof_dealloc(&blocks[0]); }
        ev = prof_stop();
        if (CHECK(ev != NULL)) {
            prof_averages *av = prof_key_averages(ev, NULL);
            size_t k;
            int seen = 0;
            for (k = 0; av && k < prof_averages_count(av); k++)
                if (strcmp(prof_averages_get(av, k)->key, "free_it") == 0) {
                    CHECK_EQ_INT(prof_averages_get(av, k)->cpu_memory_usage, -1);
                    seen = 1;
                }
            CHECK(seen);
            prof_averages_free(av);
        }
        prof_events_free(ev);
        prof_shutdown();
    }
    return check_report();
}
