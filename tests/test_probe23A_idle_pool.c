/* The manual (max_events) says a thread that stops recording keeps the
   unused rest of its share of the cap, "so with idle threads drops can
   begin a little before the cap (by at most about a quarter of it)". With
   a pool, which is how OpenMP and thread-pool programs run, the shares
   the idle workers sit on add up to far more than a quarter: each worker
   that begins recording takes left / (4 * (bound threads + 1)) of what is
   left, and every one of them keeps the rest of it while it waits for
   work. 64 workers that each recorded one scope and now wait (alive, as
   an OpenMP pool's threads do between parallel regions) hold about 56% of
   a 100000-event cap, so the thread that goes on recording is refused
   after about 44000 events: a profile more than half short of the cap
   it asked for, with drops reported. (Seen on llama2.c's run.c with
   OMP_NUM_THREADS=256: 25.6M scopes, cap 16.7M, only 11.2M-11.6M kept.)
   Wanted: drops begin no earlier than the manual says, i.e. at least
   about three quarters of the cap is recorded (checked here as 70%), or
   the manual states the real bound. Deterministic: the workers record one
   after another, then wait on a barrier until the recording is done. */
/* The second run (a scope and a mark a worker). The manual (max_events): "a thread's shares start at 64 events and
   double as it uses them ... so drops can begin a little before the cap:
   by at most a quarter of it, and by less than 64 events a thread that
   recorded little". A thread that records one scope and one mark (or one
   allocation, counter sample, async record) takes two shares, one for
   scopes (the gate) and one for the other events (xcredits), and both
   come from the one share_next, which the first share doubles: the
   scope's share is 64, the mark's 128, so a pool worker that recorded two
   events and then waits holds 63 + 127 = 190 unused events, not under 64
   (nor under 64 of each kind). 64 such workers hold 12160 events of a
   100000 cap: the thread that goes on recording is refused at 87840
   events in all. (prof__share, prof__admit_x: t->share_next is shared.)
   Wanted: a worker that recorded little holds less than 64 events of each
   kind (a share_next for the x credits of their own), i.e. drops begin no
   earlier than CAP - WORKERS * 2 * 64; and the manual says that the
   bound is per kind, or keeps it per thread and the code follows.
   Deterministic: the workers record one after another, then wait on a
   barrier until the recording is done. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

enum { WORKERS = 64, CAP = 100000, MAIN_SCOPES = 200000 };
static pthread_barrier_t g_done;
static pthread_mutex_t g_turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_turn_cond = PTHREAD_COND_INITIALIZER;
static int g_turn, g_marks;

static void *worker(void *arg) {
    int me = (int)(intptr_t)arg;
    pthread_mutex_lock(&g_turn_lock);
    while (g_turn != me) pthread_cond_wait(&g_turn_cond, &g_turn_lock);
    pthread_mutex_unlock(&g_turn_lock);
    {
        PROF_SCOPE("worker task"); /* binds, takes a share, uses one event of it */
        if (g_marks) PROF_MARK("task done"); /* and a share of the other kind */
    }
    pthread_mutex_lock(&g_turn_lock);
    g_turn++;
    pthread_cond_broadcast(&g_turn_cond);
    pthread_mutex_unlock(&g_turn_lock);
    pthread_barrier_wait(&g_done); /* idle in the pool until the end */
    return NULL;
}

/* 64 workers record (a scope, and a mark with `marks`) one after another
   and wait; then main records past the cap. The session's stats. */
static prof_stats run(int marks) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t t[WORKERS];
    int i;
    memset(&st, 0, sizeof st);
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = CAP;
    cfg.log = check_log;
    g_turn = 0;
    g_marks = marks;
    pthread_barrier_init(&g_done, NULL, WORKERS + 1);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return st;
    for (i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    pthread_mutex_lock(&g_turn_lock);
    while (g_turn != WORKERS) pthread_cond_wait(&g_turn_cond, &g_turn_lock);
    pthread_mutex_unlock(&g_turn_lock);
    for (i = 0; i < MAIN_SCOPES; i++) { PROF_SCOPE("main loop"); }
    ev = prof_stop();
    pthread_barrier_wait(&g_done);
    for (i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&g_done);
    if (CHECK(ev != NULL)) st = prof_events_stats(ev);
    prof_events_free(ev);
    CHECK_EQ_INT(st.scopes_entered, WORKERS + MAIN_SCOPES);
    CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped);
    return st;
}

int main(void) {
    prof_stats st;
    uint64_t recorded;
    prof_set_log(check_log, NULL);

    st = run(0);
    printf("cap %d: %llu scopes recorded of %llu entered (%.1f%% of the cap), %llu dropped\n", CAP,
           (unsigned long long)st.scopes_recorded, (unsigned long long)st.scopes_entered,
           100.0 * (double)st.scopes_recorded / CAP, (unsigned long long)st.scopes_dropped);
    CHECK(st.scopes_recorded <= CAP);
    CHECK_MSG(st.scopes_recorded >= CAP * 7 / 10,
              "drops began at %llu events, %.1f%% of the cap: idle workers hold the rest in their shares",
              (unsigned long long)st.scopes_recorded, 100.0 * (double)st.scopes_recorded / CAP);

    st = run(1);
    recorded = st.scopes_recorded + st.marks;
    printf("cap %d: %llu events recorded (%llu scopes, %llu marks), %llu dropped; idle workers hold %llu\n", CAP,
           (unsigned long long)recorded, (unsigned long long)st.scopes_recorded, (unsigned long long)st.marks,
           (unsigned long long)st.dropped, (unsigned long long)(CAP - recorded));
    CHECK_EQ_INT(st.marks, WORKERS);
    CHECK(recorded <= CAP);
    CHECK_MSG(recorded >= CAP - WORKERS * 2 * 64,
              "drops began at %llu events: %llu held by %d workers that recorded 2 events each, %.0f a worker",
              (unsigned long long)recorded, (unsigned long long)(CAP - recorded), WORKERS, (double)(CAP - recorded) / WORKERS);
    return check_report();
}
