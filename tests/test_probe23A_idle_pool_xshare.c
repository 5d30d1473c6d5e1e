/* The manual (max_events): "a thread's shares start at 64 events and
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
static int g_turn;

static void *worker(void *arg) {
    int me = (int)(intptr_t)arg;
    pthread_mutex_lock(&g_turn_lock);
    while (g_turn != me) pthread_cond_wait(&g_turn_cond, &g_turn_lock);
    pthread_mutex_unlock(&g_turn_lock);
    { PROF_SCOPE("worker task"); PROF_MARK("task done"); } /* a scope share and a mark share */
    pthread_mutex_lock(&g_turn_lock);
    g_turn++;
    pthread_cond_broadcast(&g_turn_cond);
    pthread_mutex_unlock(&g_turn_lock);
    pthread_barrier_wait(&g_done); /* idle in the pool until the end */
    return NULL;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t t[WORKERS];
    uint64_t recorded;
    int i;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = CAP;
    cfg.log = check_log;
    pthread_barrier_init(&g_done, NULL, WORKERS + 1);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    for (i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    pthread_mutex_lock(&g_turn_lock);
    while (g_turn != WORKERS) pthread_cond_wait(&g_turn_cond, &g_turn_lock);
    pthread_mutex_unlock(&g_turn_lock);
    for (i = 0; i < MAIN_SCOPES; i++) { PROF_SCOPE("main loop"); }
    ev = prof_stop();
    pthread_barrier_wait(&g_done);
    for (i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    recorded = st.scopes_recorded + st.marks;
    printf("cap %d: %llu events recorded (%llu scopes, %llu marks), %llu dropped; idle workers hold %llu\n", CAP,
           (unsigned long long)recorded, (unsigned long long)st.scopes_recorded, (unsigned long long)st.marks,
           (unsigned long long)st.dropped, (unsigned long long)(CAP - recorded));
    CHECK_EQ_INT(st.marks, WORKERS);
    CHECK_EQ_INT(st.scopes_entered, WORKERS + MAIN_SCOPES);
    CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped);
    CHECK(recorded <= CAP);
    CHECK_MSG(recorded >= CAP - WORKERS * 2 * 64,
              "drops began at %llu events: %llu held by %d workers that recorded 2 events each, %.0f a worker",
              (unsigned long long)recorded, (unsigned long long)(CAP - recorded), WORKERS, (double)(CAP - recorded) / WORKERS);
    prof_events_free(ev);
    pthread_barrier_destroy(&g_done);
    return check_report();
}
