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
    { PROF_SCOPE("worker task"); } /* binds, takes a share, uses one event of it */
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
    printf("cap %d: %llu scopes recorded of %llu entered (%.1f%% of the cap), %llu dropped\n", CAP,
           (unsigned long long)st.scopes_recorded, (unsigned long long)st.scopes_entered,
           100.0 * (double)st.scopes_recorded / CAP, (unsigned long long)st.scopes_dropped);
    CHECK_EQ_INT(st.scopes_entered, WORKERS + MAIN_SCOPES);
    CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped);
    CHECK(st.scopes_recorded <= CAP);
    CHECK_MSG(st.scopes_recorded >= CAP * 7 / 10,
              "drops began at %llu events, %.1f%% of the cap: idle workers hold the rest in their shares",
              (unsigned long long)st.scopes_recorded, 100.0 * (double)st.scopes_recorded / CAP);
    prof_events_free(ev);
    pthread_barrier_destroy(&g_done);
    return check_report();
}
