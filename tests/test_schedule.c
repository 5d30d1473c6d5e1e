/* The step schedule: prof_schedule_action against torch.profiler.schedule
   itself (tests/schedule/actions.expected, written by gen_expected.py with
   the real PyTorch), and whole sessions driven by prof_step: which steps
   each window holds, when on_trace_ready runs, that warm-up steps are
   discarded, that ProfilerStep#N keeps its number, and that memory stays
   bounded by one window over many steps. */
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { STEPS = 40, MAXW = 64 };

typedef struct window { int steps[STEPS]; int nsteps; int work; int64_t delivered_at; } window;
static window g_win[MAXW];
static int g_nwin;

static void on_ready(prof_events *ev, void *user) {
    window *w;
    size_t i;
    (void)user;
    if (!CHECK(g_nwin < MAXW)) return;
    w = &g_win[g_nwin++];
    memset(w, 0, sizeof *w);
    w->delivered_at = prof_step_number();
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK) continue;
        if (strcmp(e.name, "ProfilerStep*") == 0) {
            int n = -1;
            CHECK(sscanf(e.trace_name, "ProfilerStep#%d", &n) == 1);
            if (w->nsteps < STEPS) w->steps[w->nsteps++] = n;
        } else if (strcmp(e.name, "work") == 0) {
            w->work++;
        }
    }
}

static void test_actions_match_torch(void) {
    FILE *f = fopen("tests/schedule/actions.expected", "r");
    char line[256];
    int combos = 0;
    if (!CHECK_MSG(f != NULL, "run from the repository root: cannot open tests/schedule/actions.expected")) return;
    while (fgets(line, sizeof line, f)) {
        prof_schedule s;
        char acts[64];
        int k;
        if (line[0] == '#') continue;
        memset(&s, 0, sizeof s);
        if (sscanf(line, "%d %d %d %d %d : %63s", &s.skip_first, &s.wait, &s.warmup, &s.active, &s.repeat, acts) != 6) continue;
        combos++;
        for (k = 0; k < STEPS; k++)
            CHECK_MSG((int)prof_schedule_action(&s, k) == acts[k] - '0', "schedule(skip_first=%d, wait=%d, warmup=%d, active=%d, repeat=%d)(%d): prof.h %d, torch %c",
                      s.skip_first, s.wait, s.warmup, s.active, s.repeat, k, (int)prof_schedule_action(&s, k), acts[k]);
    }
    fclose(f);
    CHECK(combos >= 10);
}

/* Expected windows from the actions alone: each maximal run of RECORD
   steps ending in RECORD_AND_SAVE is delivered at the next step; a run
   still open at prof_stop is delivered by prof_stop. */
static void run_session(int skip_first, int wait, int warmup, int active, int repeat, int nsteps) {
    prof_config c;
    prof_events *last;
    int k, expect_w = 0, run = 0, exp_steps[MAXW][STEPS], exp_n[MAXW], exp_work[MAXW];
    int64_t exp_at[MAXW];
    memset(&c, 0, sizeof c);
    c.schedule.skip_first = skip_first;
    c.schedule.wait = wait;
    c.schedule.warmup = warmup;
    c.schedule.active = active;
    c.schedule.repeat = repeat;
    c.on_trace_ready = on_ready;
    c.log = check_log;
    memset(exp_n, 0, sizeof exp_n);
    memset(exp_work, 0, sizeof exp_work);
    /* step nsteps is the one in progress at prof_stop: a recording window
       there is delivered by prof_stop (PyTorch's exit action) */
    for (k = 0; k <= nsteps; k++) {
        prof_action a = prof_schedule_action(&c.schedule, k);
        if (a == PROF_ACTION_RECORD || a == PROF_ACTION_RECORD_AND_SAVE) {
            exp_steps[expect_w][exp_n[expect_w]++] = k;
            if (k < nsteps) exp_work[expect_w]++;
            run = 1;
            if (a == PROF_ACTION_RECORD_AND_SAVE || k == nsteps) { exp_at[expect_w++] = k == nsteps ? nsteps : k + 1; run = 0; }
        } else if (run) {
            /* RECORD followed by something else: PyTorch drops that window */
            exp_n[expect_w] = exp_work[expect_w] = 0;
            run = 0;
        }
    }
    g_nwin = 0;
    check_log_reset();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (k = 0; k < nsteps; k++) {
        { PROF_SCOPE("work"); }
        CHECK_EQ_INT(prof_step(), PROF_OK);
    }
    last = prof_stop();
    if (!CHECK(last != NULL)) return;
    CHECK_MSG(g_nwin == expect_w, "schedule(%d,%d,%d,%d,%d) over %d steps: %d windows, expected %d", skip_first, wait, warmup, active, repeat, nsteps, g_nwin, expect_w);
    for (k = 0; k < g_nwin && k < expect_w; k++) {
        int j;
        CHECK_EQ_INT(g_win[k].nsteps, exp_n[k]);
        CHECK_EQ_INT(g_win[k].work, exp_work[k]);
        CHECK_EQ_INT(g_win[k].delivered_at, exp_at[k]);
        for (j = 0; j < g_win[k].nsteps && j < exp_n[k]; j++) CHECK_EQ_INT(g_win[k].steps[j], exp_steps[k][j]);
    }
    prof_events_free(last);
}

static void test_sessions(void) {
    run_session(0, 1, 1, 2, 1, 10);   /* the torch.profiler docs' example */
    run_session(0, 1, 1, 2, 0, 17);   /* repeat until stop; the last window is cut by prof_stop */
    run_session(2, 0, 1, 3, 2, 20);
    run_session(1, 2, 0, 1, 3, 15);
    run_session(0, 0, 0, 1, 0, 6);    /* every step its own window */
}

/* Without a schedule nothing is stepped: one window, delivered at stop. */
static void test_no_schedule(void) {
    prof_config c;
    prof_events *ev;
    memset(&c, 0, sizeof c);
    c.on_trace_ready = on_ready;
    g_nwin = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    { PROF_SCOPE("work"); }
    CHECK_EQ_INT(prof_step(), PROF_OK);
    { PROF_SCOPE("work"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(g_nwin, 1);
    CHECK_EQ_INT(g_win[0].work, 2);
    CHECK_EQ_INT(g_win[0].nsteps, 0);
    CHECK_EQ_INT(prof_events_count(ev), 2);
    prof_events_free(ev);
}

/* The callback runs inside prof_step/prof_stop with the session's lock
   held: starting, stepping or stopping from it is refused (it used to wait
   for itself forever), and the session goes on unchanged. */
static int g_reentry_calls, g_other_log_calls;
static void other_log(prof_log_level level, prof_result code, const char *msg, void *user) {
    (void)level; (void)code; (void)msg; (void)user;
    g_other_log_calls++;
}
static void on_ready_reenter(prof_events *ev, void *user) {
    prof_config c2;
    (void)ev; (void)user;
    g_reentry_calls++;
    check_log_reset();
    CHECK_EQ_INT(prof_step(), PROF_E_STATE);
    CHECK(prof_stop() == NULL);
    memset(&c2, 0, sizeof c2);
    c2.log = other_log; /* refused: the log callback must not change either */
    CHECK_EQ_INT(prof_start(&c2), PROF_E_STATE);
    CHECK_EQ_INT(g_other_log_calls, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_STATE), 3);
    CHECK(check_log_has(PROF_E_STATE, "on_trace_ready"));
}
static void test_reentry_refused(void) {
    prof_config c;
    prof_events *ev;
    int i;
    memset(&c, 0, sizeof c);
    c.schedule.active = 1;
    c.on_trace_ready = on_ready_reenter;
    c.log = check_log;
    g_reentry_calls = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < 3; i++) { { PROF_SCOPE("work"); } CHECK_EQ_INT(prof_step(), PROF_OK); }
    CHECK_EQ_INT(g_reentry_calls, 3);
    CHECK_EQ_INT(prof_step_number(), 3);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(g_reentry_calls, 4);
    CHECK_EQ_INT(prof_is_recording(), 0);
    prof_events_free(ev);
    CHECK_EQ_INT(prof_start(NULL), PROF_OK); /* outside the callback: allowed again */
    prof_events_free(prof_stop());
    prof_set_log(NULL, NULL);
}

/* A scope open across each step (prof_step called inside it, as from an
   interpreter's frames) is open at the end of every window, and each
   delivered window says so once. A warm-up window is thrown away, so
   nothing is said of it: it gave an open-scopes warning of its own, for a
   profile nobody receives, and one naming a PROF_BEGIN range left open. */
static int g_open_windows;
static void on_ready_open(prof_events *ev, void *user) {
    (void)ev; (void)user;
    g_open_windows++;
    CHECK_EQ_INT(check_log_count(PROF_E_OPEN_SCOPES), 1);
    check_log_reset();
}
static void test_warmup_quiet(void) {
    prof_config c;
    int i;
    memset(&c, 0, sizeof c);
    c.schedule.warmup = 1;
    c.schedule.active = 1;
    c.schedule.repeat = 2;
    c.on_trace_ready = on_ready_open;
    c.log = check_log;
    g_open_windows = 0;
    check_log_reset();
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    PROF_BEGIN("range"); /* open from the warm-up on: in no window, said of none */
    for (i = 0; i < 5; i++) { PROF_SCOPE("work"); CHECK_EQ_INT(prof_step(), PROF_OK); }
    PROF_END();
    prof_events_free(prof_stop());
    CHECK_EQ_INT(g_open_windows, 2);
    CHECK_EQ_INT(check_log_count(PROF_E_OPEN_SCOPES), 0); /* (the stop ended no window) */
    prof_set_log(NULL, NULL);
}

/* The process's resident memory, in kB. */
static long rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    long v = 0;
    while (f && fgets(line, sizeof line, f)) if (strncmp(line, "VmRSS:", 6) == 0) v = atol(line + 6);
    if (f) fclose(f);
    return v;
}

/* A long run: memory stays bounded by one window, as the record blocks
   are reused window after window. */
static void test_long_run_bounded(void) {
    prof_config c;
    int k, i;
    long rss0 = 0, rss1;
    memset(&c, 0, sizeof c);
    c.schedule.wait = 1;
    c.schedule.warmup = 1;
    c.schedule.active = 2;
    c.on_trace_ready = on_ready;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (k = 0; k < 400; k++) {
        if (k == 40) rss0 = rss_kb();
        g_nwin = 0;
        for (i = 0; i < 2000; i++) { PROF_SCOPE("work"); }
        prof_step();
    }
    rss1 = rss_kb();
    prof_events_free(prof_stop());
    /* ASan keeps freed memory in quarantine and valgrind has its own heap:
       RSS means something only in the plain build */
#if !defined(TEST_ASAN)
    if (!check_under_valgrind()) CHECK_MSG(rss1 - rss0 < 4096, "RSS grew by %ld kB over 360 steps", rss1 - rss0);
#else
    (void)rss0;
    (void)rss1;
#endif
}

/* Big windows on two threads (400k events each): glibc, its threshold for
   mapping big chunks raised by prof.h's first big free, served the next
   windows' arrays from the heap, where the 2 MB-aligned ones left
   fragments that small allocations pinned; RSS climbed to ~170 MB over 20
   windows (mallinfo2: 215 MB free, 0.2 MB in use) where one window needs
   ~15 MB. Freeing a big list now trims the heap. */
static long g_big_per;
static void *big_worker(void *arg) {
    long i;
    (void)arg;
    for (i = 0; i < g_big_per; i++) { PROF_SCOPE("worker"); }
    return NULL;
}
static void test_big_windows_heap(void) {
    prof_config c;
    int k, windows = 24;
    long i, rss0 = 0, rss1;
    g_big_per = check_scale(100000, 20);
    memset(&c, 0, sizeof c);
    c.schedule.wait = 1;
    c.schedule.warmup = 1;
    c.schedule.active = 2;
    c.on_trace_ready = on_ready;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (k = 0; k < 4 * windows; k++) {
        pthread_t th;
        int ok = pthread_create(&th, NULL, big_worker, NULL) == 0;
        CHECK(ok);
        g_nwin = 0;
        for (i = 0; i < g_big_per; i++) { PROF_SCOPE("main"); }
        if (ok) pthread_join(th, NULL);
        prof_step();
        if (k == 4 * 2 + 3) rss0 = rss_kb(); /* after two windows */
    }
    rss1 = rss_kb();
    prof_events_free(prof_stop());
    if (!check_under_valgrind() && !check_under_sanitizer()) /* (their allocators: not glibc's heap) */
        CHECK_MSG(rss1 - rss0 < 24 * 1024, "RSS grew by %ld kB over %d windows of %ld events (%ld kB after two)", rss1 - rss0, windows - 2, 4 * g_big_per, rss0);
    printf("# big windows: RSS %ld kB after two windows, %ld kB after %d\n", rss0, rss1, windows);
}

/* reserve_events across a schedule's windows: each window's thread exits
   before the next step, its block goes back to the pool, and every window's
   thread records into a ready block (none faulted in while recording). */
static int g_res_windows, g_res_full, g_res_bad;
static void on_ready_reserve(prof_events *ev, void *user) {
    prof_stats st = prof_events_stats(ev);
    (void)user;
    g_res_windows++;
    if (prof_events_count(ev) == 101) g_res_full++; /* the last window, cut by prof_stop, has only its step */
    if (st.blocks_added != st.blocks_prefaulted) {
        if (g_res_bad++ < 3)
            fprintf(stderr, "window %d: %zu events, %llu blocks added, %llu ready\n", g_res_windows, prof_events_count(ev),
                    (unsigned long long)st.blocks_added, (unsigned long long)st.blocks_prefaulted);
    }
}
static void *res_thread(void *arg) {
    int i;
    (void)arg;
    for (i = 0; i < 100; i++) { PROF_SCOPE("work"); }
    return NULL;
}
static void test_reserve_across_windows(void) {
    prof_config c;
    int k;
    prof_shutdown(); /* the main thread holds no block: the windows' threads take the reserve */
    memset(&c, 0, sizeof c);
    c.schedule.active = 1; /* every step a window */
    c.reserve_events = 349526; /* two blocks: the window's thread's, and the main thread's for the step scopes */
    c.no_prefault_thread = 1;
    c.on_trace_ready = on_ready_reserve;
    g_res_windows = g_res_full = g_res_bad = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (k = 0; k < 20; k++) {
        pthread_t th;
        if (!CHECK(pthread_create(&th, NULL, res_thread, NULL) == 0)) break;
        pthread_join(th, NULL);
        CHECK_EQ_INT(prof_step(), PROF_OK); /* ProfilerStep#k is the window's 101st event */
    }
    prof_events_free(prof_stop());
    CHECK_EQ_INT(g_res_full, 20);
    CHECK_EQ_INT(g_res_bad, 0);
}

/* ProfilerStep#N is begun by one thread and may be ended by another (a
   worker that runs the loop and calls prof_step, or prof_stop from a
   thread that never recorded). Its record goes into the ending thread's
   buffer with the beginning's time, before that thread joined the session:
   it must still count (a check for scopes begun before their thread's
   session dropped it, and prof_stop then called it open). */
static prof_events *g_res;
static void *step_other(void *a) { (void)a; CHECK_EQ_INT(prof_step(), PROF_OK); return NULL; }
static void *stop_other(void *a) { (void)a; g_res = prof_stop(); return NULL; }
static size_t count_steps(prof_events *ev) {
    size_t i, n = 0;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.name && strcmp(e.name, "ProfilerStep*") == 0) n++; /* the steps' row name */
    }
    return n;
}
static void test_step_other_thread(void) {
    prof_config c;
    pthread_t th;
    int how;
    memset(&c, 0, sizeof c);
    c.schedule.active = 100;
    for (how = 0; how < 2; how++) {
        prof_stats st;
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        { PROF_SCOPE("a"); }
        if (how == 0) { /* steps on another thread, stop here */
            CHECK(pthread_create(&th, NULL, step_other, NULL) == 0);
            pthread_join(th, NULL);
            { PROF_SCOPE("b"); }
            g_res = prof_stop();
        } else { /* steps here, stop on another thread */
            CHECK_EQ_INT(prof_step(), PROF_OK);
            { PROF_SCOPE("b"); }
            CHECK(pthread_create(&th, NULL, stop_other, NULL) == 0);
            pthread_join(th, NULL);
        }
        if (!CHECK(g_res != NULL)) return;
        st = prof_events_stats(g_res);
        CHECK_MSG(count_steps(g_res) == 2, "case %d: %zu ProfilerStep events, expected 2", how, count_steps(g_res));
        CHECK_EQ_INT(st.open_at_stop, 0);
        CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
        prof_events_free(g_res);
        g_res = NULL;
    }
}

int main(void) {
    test_step_other_thread();
    test_actions_match_torch();
    test_sessions();
    test_no_schedule();
    test_reentry_refused();
    test_warmup_quiet();
    test_long_run_bounded();
    test_reserve_across_windows();
    test_big_windows_heap();
    prof_shutdown();
    return check_report();
}
