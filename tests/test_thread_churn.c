/* Threads that come and go (a thread per request): what an exited thread
   holds until prof_stop is its records and a small constant, not the 12 KiB
   block it was given, its PROF_BEGIN stack or its DYN names' table; one
   that exits outside a session, or after prof_stop read its records, holds
   nothing. And nothing is lost on the way:
   - many threads in waves of 8, each with 3 nested scopes (one
     PROF_SCOPE_DYN of its own name), some with a PROF_BEGIN range still
     open at exit, some named, some recording again from a TLS destructor
     that runs after prof.h's: exact counts, threads, names and parents,
     scopes_entered == recorded + dropped + open; the bytes each exited
     thread holds (prof.h's own structures, read under its lock) and the
     resident memory the session gained (plain build only);
   - a DYN scope whose name is in an earlier block than its record, and
     one whose name moves with the block shrunk at exit;
   - a thread that exits after writing past its small blocks (the
     prefault thread follows it), and threads that exit with a reserve;
   - prof_stop while threads exit: at random, and made deterministic with
     a hook between an exiting thread's copy and its lock (the session
     ends there: the copy is dropped, the records read as they were);
   - threads that exit with no session, or after prof_stop: their states
     go at once;
   - another key's destructor that records on every one of glibc's
     destructor passes: its last pass's state goes once the thread is
     gone. */
#define PROF__TEST_HOOKS
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static int count_named(prof_events *ev, const char *name) {
    size_t i, n = prof_events_count(ev);
    int c = 0;
    prof_event e;
    for (i = 0; i < n; i++)
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) c++;
    return c;
}
static int stats_add_up(prof_stats st) {
    return CHECK_MSG(st.scopes_entered == st.scopes_recorded + st.scopes_dropped + st.open_at_stop,
                     "entered %llu != recorded %llu + dropped %llu + open %llu", (unsigned long long)st.scopes_entered,
                     (unsigned long long)st.scopes_recorded, (unsigned long long)st.scopes_dropped, (unsigned long long)st.open_at_stop);
}
/* States in prof.h's thread list. */
static size_t n_states(void) {
    size_t n = 0;
    prof__tstate *t;
    pthread_mutex_lock(&prof__g_lock);
    for (t = prof__g.threads; t; t = t->next) n++;
    pthread_mutex_unlock(&prof__g_lock);
    return n;
}
/* What an exited thread's state holds, in bytes (its blocks: mapped, or
   its records' allocation), and the records it wrote this session. */
static size_t state_bytes(const prof__tstate *t, size_t *recs) {
    size_t n = sizeof *t;
    int past = 0;
    const prof__block *b;
    const prof__chunk *c;
    *recs = 0;
    if (t->name) n += strlen(t->name) + 1;
    n += (size_t)t->cap_open * sizeof(prof__open) + t->dyn_cap * sizeof(prof__dyn_site *);
    for (c = t->dyn_arena.head; c; c = c->next) n += sizeof *c + c->size;
    for (b = t->head; b; b = b->next) {
        n += sizeof *b + (b->map_bytes ? b->map_bytes : b->cap * sizeof(prof__rec));
        if (past || !t->cur) continue;
        if (b == t->cur) {
            *recs += (size_t)(t->hot.pos - b->recs);
            past = 1;
        } else {
            *recs += b->used;
        }
    }
    return n;
}

/* ----- many threads ----- */
typedef struct churn_arg {
    long k;
    uint64_t tid;
} churn_arg;
static pthread_key_t g_dtor_key;
static int g_dtor_scopes = 1;
static void late_dtor(void *p) {
    (void)p;
    { PROF_SCOPE("in dtor"); } /* after prof.h's destructor: a new state */
}
static void *churn_worker(void *p) {
    churn_arg *a = (churn_arg *)p;
    char name[32];
    a->tid = prof__gettid();
    snprintf(name, sizeof name, "req-%ld", a->k);
    if (a->k % 7 == 0) {
        char tn[32];
        snprintf(tn, sizeof tn, "worker-%ld", a->k);
        PROF_THREAD_NAME(tn);
    }
    {
        PROF_SCOPE("task");
        {
            PROF_SCOPE_DYN(name);
            { PROF_SCOPE("leaf"); }
        }
        if (a->k % 5 == 0) { PROF_BEGIN("range"); PROF_END(); }
    }
    if (a->k % 3 == 0) PROF_BEGIN("left open"); /* exits with it open */
    if (g_dtor_scopes && a->k % 11 == 0) pthread_setspecific(g_dtor_key, (void *)1);
    return NULL;
}
/* Whether two workers ran under thread id tid: the kernel gives an ended
   thread's id to a new one once its counter wraps (pid_max 32768 here; a
   test creating threads beside this one wraps it in seconds), and the list
   has one thread, with one name (the first set), per id. */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static int tid_shared(const uint64_t *sorted, long n, uint64_t tid) {
    const uint64_t *p = (const uint64_t *)bsearch(&tid, sorted, (size_t)n, sizeof *sorted, cmp_u64);
    return p && ((p > sorted && p[-1] == tid) || (p + 1 < sorted + n && p[1] == tid));
}
static void test_many_threads(void) {
    long n = check_under_valgrind() ? 40 : check_scale(20000, 10), k, j, bad_parent = 0, bad_thread = 0, bad_name = 0;
    long open = 0, ranges = 0, dtors = 0, shared = 0;
    uint64_t *tids;
    churn_arg *args = (churn_arg *)calloc((size_t)n, sizeof *args);
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    long before, after;
    size_t i, nev, max_over = 0, dead = 0, held = 0, recs_all = 0;
    int ok_bound = 1;
    prof__tstate *t;
    if (!CHECK(args != NULL)) return;
    prof_shutdown();
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    { PROF_SCOPE("warm"); }
    if (!g_dtor_key) pthread_key_create(&g_dtor_key, late_dtor); /* after prof.h's key: its destructor runs later */
    before = check_rss_kib();
    for (k = 0; k < n; k += 8) {
        pthread_t th[8];
        for (j = 0; j < 8 && k + j < n; j++) {
            args[k + j].k = k + j;
            if (!CHECK(pthread_create(&th[j], NULL, churn_worker, &args[k + j]) == 0)) exit(1);
        }
        for (j = 0; j < 8 && k + j < n; j++) pthread_join(th[j], NULL);
    }
    after = check_rss_kib();
    /* what the exited threads hold, still in the session */
    pthread_mutex_lock(&prof__g_lock);
    for (t = prof__g.threads; t; t = t->next) {
        size_t recs, bytes;
        if (!t->dead || t->bound_epoch != prof__g_epoch) continue;
        bytes = state_bytes(t, &recs);
        dead++;
        held += bytes;
        recs_all += recs;
        if (bytes > 512 + 24 * recs) {
            if (ok_bound) fprintf(stderr, "an exited thread holds %zu bytes for %zu records\n", bytes, recs);
            ok_bound = 0;
            if (bytes - 24 * recs > max_over) max_over = bytes - 24 * recs;
        }
    }
    pthread_mutex_unlock(&prof__g_lock);
    CHECK_EQ_INT((long)dead, n + (g_dtor_scopes ? (n + 10) / 11 : 0));
    CHECK_MSG(ok_bound, "exited threads hold up to 512 + %zu bytes beyond their records", max_over);
    printf("# %zu exited threads hold %zu bytes: %.0f a thread, %.1f records a thread\n", dead, held, (double)held / (double)dead,
           (double)recs_all / (double)dead);
    if (before > 0 && after > 0 && !check_under_valgrind() && !check_under_sanitizer())
        CHECK_MSG(after - before < n * 2, "%ld threads left %ld KiB resident (%ld B a thread)", n, after - before, (after - before) * 1024 / n);
    printf("# %ld threads left %ld KiB resident in the session\n", n, after - before);

    ev = prof_stop();
    if (!CHECK(ev != NULL)) { free(args); return; }
    tids = (uint64_t *)malloc((size_t)n * sizeof *tids);
    if (!CHECK(tids != NULL)) { prof_events_free(ev); free(args); return; }
    for (k = 0; k < n; k++) tids[k] = args[k].tid;
    qsort(tids, (size_t)n, sizeof *tids, cmp_u64);
    for (k = 0; k < n; k++) shared += tid_shared(tids, n, args[k].tid);
    if (shared) printf("# %ld of %ld workers ran under an id another worker had: their names not checked\n", shared, n);
    for (k = 0; k < n; k++) {
        open += k % 3 == 0;
        ranges += k % 5 == 0;
        dtors += g_dtor_scopes && k % 11 == 0;
    }
    st = prof_events_stats(ev);
    CHECK_EQ_INT(count_named(ev, "task"), n);
    CHECK_EQ_INT(count_named(ev, "leaf"), n);
    CHECK_EQ_INT(count_named(ev, "range"), ranges);
    CHECK_EQ_INT(count_named(ev, "in dtor"), dtors);
    CHECK_EQ_INT(st.open_at_stop, open);
    CHECK_EQ_INT(st.scopes_dropped, 0);
    CHECK_EQ_INT(st.scopes_recorded, 1 + 3 * n + ranges + dtors);
    CHECK_EQ_INT(st.scopes_entered, 1 + 3 * n + ranges + dtors + open);
    stats_add_up(st);
    /* each DYN event: its name's thread, a "task" parent and a "leaf"
       child on the same thread */
    nev = prof_events_count(ev);
    for (i = 0; i < nev; i++) {
        prof_event e;
        if (!CHECK(prof_events_get(ev, i, &e) == PROF_OK)) break;
        if (strncmp(e.name, "req-", 4) == 0) {
            long kk = atol(e.name + 4);
            prof_event p, c;
            char want[32];
            snprintf(want, sizeof want, "req-%ld", kk);
            if (kk < 0 || kk >= n || strcmp(want, e.name) != 0) { bad_name++; continue; }
            if (e.thread != args[kk].tid) bad_thread++;
            if (kk % 7 == 0 && !tid_shared(tids, n, e.thread) && (!e.thread_name || strncmp(e.thread_name, "worker-", 7) != 0 || atol(e.thread_name + 7) != kk)) bad_thread++;
            if (e.parent < 0 || prof_events_child(ev, i, 0) < 0) { bad_parent++; continue; }
            prof_events_get(ev, (size_t)e.parent, &p);
            prof_events_get(ev, (size_t)prof_events_child(ev, i, 0), &c);
            if (strcmp(p.name, "task") != 0 || strcmp(c.name, "leaf") != 0 || p.thread != e.thread || c.thread != e.thread ||
                p.parent >= 0 || e.n_children != 1)
                bad_parent++;
        } else if (strcmp(e.name, "leaf") == 0 || strcmp(e.name, "task") == 0 || strcmp(e.name, "range") == 0 || strcmp(e.name, "in dtor") == 0 ||
                   strcmp(e.name, "warm") == 0) {
        } else {
            bad_name++;
        }
    }
    CHECK_EQ_INT(bad_name, 0);
    CHECK_EQ_INT(bad_thread, 0);
    CHECK_EQ_INT(bad_parent, 0);
    CHECK_EQ_INT((long)nev, 1 + 3 * n + ranges + dtors);
    prof_events_free(ev);
    free(tids);
    free(args);
    check_log_reset();
}

/* ----- names across blocks ----- */
/* The outer DYN scope's name is in the first block, its record in the
   second (shrunk at exit: it points back into the first, which stays);
   the inner one's name and record are both in the second and move. */
static void *blocks_worker(void *p) {
    long k = (long)(intptr_t)p, i;
    char outer[32], inner[32];
    snprintf(outer, sizeof outer, "outer-%ld", k);
    snprintf(inner, sizeof inner, "inner-%ld", k);
    {
        PROF_SCOPE_DYN(outer);
        for (i = 0; i < 600; i++) { PROF_SCOPE("fill"); }
        { PROF_SCOPE_DYN(inner); }
        { PROF_SCOPE_DYN("a name long enough to take a few records of its own, moved with its block"); }
    }
    return NULL;
}
static void test_names_across_blocks(void) {
    prof_config cfg;
    prof_events *ev;
    long k, n = check_under_valgrind() ? 2 : 6;
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    for (k = 0; k < n; k++) {
        pthread_t th;
        pthread_create(&th, NULL, blocks_worker, (void *)(intptr_t)k);
        pthread_join(th, NULL);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    for (k = 0; k < n; k++) {
        char outer[32], inner[32];
        snprintf(outer, sizeof outer, "outer-%ld", k);
        snprintf(inner, sizeof inner, "inner-%ld", k);
        CHECK_EQ_INT(count_named(ev, outer), 1);
        CHECK_EQ_INT(count_named(ev, inner), 1);
    }
    CHECK_EQ_INT(count_named(ev, "fill"), 600 * n);
    CHECK_EQ_INT(count_named(ev, "a name long enough to take a few records of its own, moved with its block"), n);
    CHECK_EQ_INT(prof_events_count(ev), 603 * (size_t)n);
    stats_add_up(prof_events_stats(ev));
    prof_events_free(ev);
}

/* ----- a big thread, and a reserve ----- */
static void *big_worker(void *p) {
    long i, n = (long)(intptr_t)p;
    for (i = 0; i < n; i++) { PROF_SCOPE("big"); }
    { PROF_SCOPE_DYN("big-dyn"); }
    return NULL;
}
static void *small_worker(void *p) {
    (void)p;
    { PROF_SCOPE("small"); { PROF_SCOPE_DYN("small-dyn"); } }
    return NULL;
}
static void test_big_and_reserve(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    long n = check_under_valgrind() ? 2000 : check_under_sanitizer() ? 140000 : 400000, k, small = check_under_valgrind() ? 6 : 40;
    int r;
    for (r = 0; r < 2; r++) {
        prof_shutdown();
        memset(&cfg, 0, sizeof cfg);
        if (r) cfg.reserve_events = 2 * PROF__MAX_BLOCK; /* the small threads take reserved first blocks */
        if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
        pthread_create(&th, NULL, big_worker, (void *)(intptr_t)n);
        pthread_join(th, NULL);
        for (k = 0; k < small; k++) {
            pthread_create(&th, NULL, small_worker, NULL);
            pthread_join(th, NULL);
        }
        ev = prof_stop();
        if (!CHECK(ev != NULL)) return;
        CHECK_EQ_INT(count_named(ev, "big"), n);
        CHECK_EQ_INT(count_named(ev, "big-dyn"), 1);
        CHECK_EQ_INT(count_named(ev, "small"), small);
        CHECK_EQ_INT(count_named(ev, "small-dyn"), small);
        CHECK_EQ_INT(prof_events_stats(ev).scopes_dropped, 0);
        CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
        stats_add_up(prof_events_stats(ev));
        prof_events_free(ev);
    }
    prof_shutdown();
}

/* ----- a thread that lives across sessions, and a small cap ----- */
/* Session 1 leaves it two blocks (512 and 1024 records); in session 2 it
   writes a few records into the first again and exits: the second block
   (nothing of session 2 in it) goes, the first is cut to its records. */
typedef struct across_arg { pthread_barrier_t *bar; } across_arg;
static void *across_worker(void *p) {
    across_arg *a = (across_arg *)p;
    int i;
    for (i = 0; i < 700; i++) { PROF_SCOPE("s1"); }
    pthread_barrier_wait(a->bar); /* recorded */
    pthread_barrier_wait(a->bar); /* session 2 started */
    { PROF_SCOPE("s2"); { PROF_SCOPE_DYN("s2-dyn"); } }
    return NULL;
}
static void *capped_worker(void *p) {
    int i;
    (void)p;
    for (i = 0; i < 5; i++) { PROF_SCOPE("capped"); }
    return NULL;
}
static void test_across_sessions_and_cap(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    pthread_barrier_t bar;
    across_arg a;
    prof__tstate *t;
    size_t bytes = 0, recs = 0;
    int k, found = 0, n = check_under_valgrind() ? 20 : 300;
    memset(&cfg, 0, sizeof cfg);
    pthread_barrier_init(&bar, NULL, 2);
    a.bar = &bar;
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    pthread_create(&th, NULL, across_worker, &a);
    pthread_barrier_wait(&bar);
    ev = prof_stop();
    if (CHECK(ev != NULL)) CHECK_EQ_INT(count_named(ev, "s1"), 700);
    prof_events_free(ev);
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    pthread_barrier_wait(&bar);
    pthread_join(th, NULL);
    pthread_mutex_lock(&prof__g_lock);
    for (t = prof__g.threads; t; t = t->next)
        if (t->dead && t->bound_epoch == prof__g_epoch) {
            found++;
            bytes = state_bytes(t, &recs);
        }
    pthread_mutex_unlock(&prof__g_lock);
    CHECK_EQ_INT(found, 1);
    CHECK_MSG(bytes <= 512 + 24 * recs, "the thread holds %zu bytes for %zu records", bytes, recs);
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK_EQ_INT(count_named(ev, "s1"), 0);
        CHECK_EQ_INT(count_named(ev, "s2"), 1);
        CHECK_EQ_INT(count_named(ev, "s2-dyn"), 1);
        stats_add_up(prof_events_stats(ev));
    }
    prof_events_free(ev);
    pthread_barrier_destroy(&bar);

    /* each exiting thread hands its unused share of the cap back: 5 scopes
       a thread, one after the other, fit a cap of 2000 */
    cfg.max_events = 2000;
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    for (k = 0; k < n; k++) {
        pthread_create(&th, NULL, capped_worker, NULL);
        pthread_join(th, NULL);
    }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK_EQ_INT(count_named(ev, "capped"), 5 * n);
        CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
        stats_add_up(prof_events_stats(ev));
    }
    prof_events_free(ev);
}

/* ----- prof_stop while threads exit ----- */
#define RACE_THREADS 16
#define RACE_SCOPES 50
static int g_recorded;
static void *race_worker(void *p) {
    int i;
    (void)p;
    for (i = 0; i < RACE_SCOPES; i++) {
        PROF_SCOPE("r");
        { PROF_SCOPE_DYN(i & 1 ? "odd" : "even"); }
    }
    __atomic_fetch_add(&g_recorded, 1, __ATOMIC_RELEASE);
    return NULL; /* exits while prof_stop runs */
}
static void test_stop_while_exiting(void) {
    int round, rounds = check_under_valgrind() ? 1 : 30, k;
    for (round = 0; round < rounds; round++) {
        prof_config cfg;
        prof_events *ev;
        pthread_t th[RACE_THREADS];
        memset(&cfg, 0, sizeof cfg);
        __atomic_store_n(&g_recorded, 0, __ATOMIC_RELAXED);
        if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
        for (k = 0; k < RACE_THREADS; k++) pthread_create(&th[k], NULL, race_worker, NULL);
        while (__atomic_load_n(&g_recorded, __ATOMIC_ACQUIRE) < RACE_THREADS) sched_yield();
        ev = prof_stop();
        for (k = 0; k < RACE_THREADS; k++) pthread_join(th[k], NULL);
        if (!CHECK(ev != NULL)) return;
        CHECK_EQ_INT(count_named(ev, "r"), RACE_THREADS * RACE_SCOPES);
        CHECK_EQ_INT(count_named(ev, "odd") + count_named(ev, "even"), RACE_THREADS * RACE_SCOPES);
        CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 0);
        CHECK_EQ_INT(prof_events_stats(ev).threads, RACE_THREADS);
        stats_add_up(prof_events_stats(ev));
        prof_events_free(ev);
        if (check_failures()) return;
    }
    /* and every state went: those read by prof_stop at its end, those that
       exited after it at once */
    CHECK_EQ_INT(n_states(), 1);
}

/* Deterministic: the session ends between an exiting thread's copy of its
   block and its taking the lock. */
static pthread_mutex_t g_hook_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_hook_cond = PTHREAD_COND_INITIALIZER;
static int g_hook_step;
static void hook_set(int step) {
    pthread_mutex_lock(&g_hook_lock);
    g_hook_step = step;
    pthread_cond_broadcast(&g_hook_cond);
    pthread_mutex_unlock(&g_hook_lock);
}
static void hook_wait(int step) {
    pthread_mutex_lock(&g_hook_lock);
    while (g_hook_step < step) pthread_cond_wait(&g_hook_cond, &g_hook_lock);
    pthread_mutex_unlock(&g_hook_lock);
}
static void exit_hook(int where) {
    if (where != PROF__HOOK_EXIT_COPIED) return;
    hook_set(1); /* copied: the main thread stops the session now */
    hook_wait(2);
}
static void *hooked_worker(void *p) {
    int i;
    (void)p;
    for (i = 0; i < 20; i++) {
        PROF_SCOPE("h");
        { PROF_SCOPE_DYN("h-dyn"); }
    }
    PROF_BEGIN("h-open");
    return NULL;
}
static void test_stop_between_copy_and_lock(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    memset(&cfg, 0, sizeof cfg);
    g_hook_step = 0;
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    prof__test_hook = exit_hook;
    pthread_create(&th, NULL, hooked_worker, NULL);
    hook_wait(1);
    ev = prof_stop(); /* reads the thread's block as it was */
    hook_set(2);
    pthread_join(th, NULL);
    prof__test_hook = NULL;
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(count_named(ev, "h"), 20);
    CHECK_EQ_INT(count_named(ev, "h-dyn"), 20);
    CHECK_EQ_INT(prof_events_stats(ev).open_at_stop, 1);
    stats_add_up(prof_events_stats(ev));
    prof_events_free(ev);
    CHECK_EQ_INT(n_states(), 1); /* the exit, after prof_stop read it: gone */
    check_log_reset();
}

/* ----- exits outside a session ----- */
static void *idle_worker(void *p) {
    (void)p;
    PROF_THREAD_NAME("idle");
    PROF_BEGIN("no session"); /* attaches, records nothing */
    return NULL;
}
typedef struct gate_arg { pthread_barrier_t *recorded, *stopped; } gate_arg;
static void *after_stop_worker(void *p) {
    gate_arg *g = (gate_arg *)p;
    { PROF_SCOPE("before stop"); }
    pthread_barrier_wait(g->recorded);
    pthread_barrier_wait(g->stopped);
    return NULL; /* exits after prof_stop */
}
static void test_exit_outside_session(void) {
    size_t base;
    int k, n = check_under_valgrind() ? 10 : 200;
    pthread_t th[8];
    pthread_barrier_t recorded, stopped;
    gate_arg g;
    prof_config cfg;
    prof_events *ev;
    prof_shutdown();
    base = n_states();
    for (k = 0; k < n; k++) {
        pthread_t t;
        pthread_create(&t, NULL, idle_worker, NULL);
        pthread_join(t, NULL);
    }
    CHECK_EQ_INT(n_states(), base); /* no session ever read them: gone at exit */

    pthread_barrier_init(&recorded, NULL, 9);
    pthread_barrier_init(&stopped, NULL, 9);
    g.recorded = &recorded;
    g.stopped = &stopped;
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    for (k = 0; k < 8; k++) pthread_create(&th[k], NULL, after_stop_worker, &g);
    pthread_barrier_wait(&recorded);
    ev = prof_stop();
    pthread_barrier_wait(&stopped);
    for (k = 0; k < 8; k++) pthread_join(th[k], NULL);
    if (CHECK(ev != NULL)) CHECK_EQ_INT(count_named(ev, "before stop"), 8);
    prof_events_free(ev);
    CHECK_EQ_INT(n_states(), base); /* read by prof_stop: gone at exit, not at the next prof_start */
    pthread_barrier_destroy(&recorded);
    pthread_barrier_destroy(&stopped);
}

/* A destructor of another library's key that sets its key again every
   time it runs makes glibc run all its passes (PTHREAD_DESTRUCTOR_ITERATIONS,
   4), and records a scope each time. After prof.h's destructor of the
   last pass, which does not run again, the scope attached a fresh state:
   each such thread used to leave it behind for good (~1.4 KB outside a
   session, its blocks in one). Now such a late state goes once its thread
   is gone: at prof_stop, at the next session, or when another one
   attaches. Its records still count: 4 scopes a thread. */
static pthread_key_t g_rearm_key;
static void rearm_dtor(void *p) {
    { PROF_SCOPE("rearmed"); }
    PROF_BEGIN("range"); /* a PROF_BEGIN stack attaches a state even outside a session */
    PROF_END();
    pthread_setspecific(g_rearm_key, p); /* again: another pass */
}
static void *rearm_worker(void *p) {
    (void)p;
    { PROF_SCOPE("work"); }
    pthread_setspecific(g_rearm_key, (void *)1);
    return NULL;
}
static void test_rearming_destructor(void) {
    size_t base;
    long k, n = check_under_valgrind() ? 8 : 64;
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t th;
#if defined(TEST_TSAN)
    /* TSan's own key destructor tears the thread's allocator down before
       the last pass, whose malloc (anyone's) then crashes inside TSan */
    printf("# test_rearming_destructor skipped under TSan\n");
    return;
#endif
    prof_shutdown();
    { PROF_SCOPE("warm"); } /* prof.h's key first: its destructor runs before the other's in each pass */
    if (!g_rearm_key) pthread_key_create(&g_rearm_key, rearm_dtor);
    base = n_states();
    memset(&cfg, 0, sizeof cfg);
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    for (k = 0; k < n; k++) {
        if (!CHECK(pthread_create(&th, NULL, rearm_worker, NULL) == 0)) exit(1);
        pthread_join(th, NULL);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    st = prof_events_stats(ev);
    CHECK_EQ_INT(count_named(ev, "work"), n);
    CHECK_EQ_INT(count_named(ev, "rearmed"), 4 * n);
    CHECK_EQ_INT(count_named(ev, "range"), 4 * n);
    CHECK_EQ_INT((long)st.scopes_dropped, 0);
    stats_add_up(st);
    prof_events_free(ev);
    CHECK_EQ_INT(n_states(), base); /* read by prof_stop, threads gone: no state left */

    /* outside a session (the PROF_BEGIN range attaches), threads one
       after another: each late state reaps the one before it */
    for (k = 0; k < n; k++) {
        if (!CHECK(pthread_create(&th, NULL, rearm_worker, NULL) == 0)) exit(1);
        pthread_join(th, NULL);
    }
    CHECK_MSG(n_states() <= base + 1, "%zu states left by %ld threads gone (%zu before)", n_states(), n, base);
    prof_shutdown(); /* frees the last one */
    CHECK_EQ_INT(n_states(), base);
    for (k = 0; k < 2; k++) {
        if (!CHECK(pthread_create(&th, NULL, rearm_worker, NULL) == 0)) exit(1);
        pthread_join(th, NULL);
    }
    if (CHECK(prof_start(&cfg) == PROF_OK)) prof_events_free(prof_stop()); /* as does the next session */
    CHECK_EQ_INT(n_states(), base);
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#define TIMED(call) do { double t0_ = mono_s(); call; if (getenv("CHECK_TIMING")) fprintf(stderr, "%-36s %8.1f ms\n", #call, (mono_s() - t0_) * 1e3); } while (0)

int main(void) {
    prof_set_log(check_log, NULL);
    TIMED(test_many_threads());
    TIMED(test_names_across_blocks());
    TIMED(test_big_and_reserve());
    TIMED(test_across_sessions_and_cap());
    TIMED(test_stop_while_exiting());
    TIMED(test_stop_between_copy_and_lock());
    TIMED(test_exit_outside_session());
    TIMED(test_rearming_destructor());
    prof_shutdown();
    return check_report();
}
