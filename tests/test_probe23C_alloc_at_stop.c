/* An allocation that is being recorded as prof_stop ends recording is
   counted as dropped by the event cap: prof_stop warns "1 event was
   dropped when the cap of 16777216 events was reached; raise
   prof_config.max_events", prof_events_stats says allocs_dropped 1, and
   the table prints "Incomplete profile", with a handful of events
   recorded. Seen at random with threads that allocate (a C++ program
   whose operator new/delete call prof_alloc/prof_dealloc, jemalloc,
   tcmalloc, mimalloc or glibc): prof__mem_record passed its epoch check,
   then prof__slots -> prof__grow_n found the session over and returned
   NULL, and prof__x_lost counted the record as lost (scopes in the same
   spot go through prof__gate_enter and are not counted). Made
   deterministic here: the worker's first prof_alloc of the session binds
   the thread, whose first record block's header comes from PROF_MALLOC;
   the hook holds it there until prof_stop has ended recording (the
   PROF__HOOK_ENDED test hook), which then waits for the prof_alloc to
   return. Nothing reached the cap: no drop may be counted or reported. */
#include <stddef.h>
void *probe_malloc(size_t n);
void *probe_realloc(void *p, size_t n);
void probe_free(void *p);
#define PROF_MALLOC(n) probe_malloc(n)
#define PROF_REALLOC(p, n) probe_realloc(p, n)
#define PROF_FREE(p) probe_free(p)
#define PROF__TEST_HOOKS
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int step; /* 1: the worker is held in PROF_MALLOC; 2: go on; 3: its prof_alloc returned */
static pthread_t armed;
static int is_armed, held;

static void set_step(int s) {
    pthread_mutex_lock(&lock);
    step = s;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}
static void wait_step(int s) {
    pthread_mutex_lock(&lock);
    while (step < s) pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
}

void *probe_malloc(size_t n) {
    if (__atomic_load_n(&is_armed, __ATOMIC_ACQUIRE) && pthread_equal(armed, pthread_self()) && n == sizeof(prof__block)) {
        __atomic_store_n(&is_armed, 0, __ATOMIC_RELEASE);
        held = 1;
        set_step(1);
        wait_step(2);
    }
    return malloc(n);
}
void *probe_realloc(void *p, size_t n) { return realloc(p, n); }
void probe_free(void *p) { free(p); }

static void *worker(void *arg) {
    (void)arg;
    armed = pthread_self();
    __atomic_store_n(&is_armed, 1, __ATOMIC_RELEASE);
    prof_alloc((const void *)0x1000, 8);
    if (!held) set_step(1); /* the hook never held it: do not hang the test */
    set_step(3);
    return NULL;
}
static void hook(int where) {
    if (where != PROF__HOOK_ENDED) return;
    set_step(2);
    wait_step(3);
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t th;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    {
        PROF_SCOPE("main");
    }
    if (!CHECK(pthread_create(&th, NULL, worker, NULL) == 0)) return check_report();
    wait_step(1);
    CHECK(held); /* the worker is inside its binding */
    prof__test_hook = hook;
    ev = prof_stop();
    prof__test_hook = NULL;
    if (step < 2) set_step(3);
    pthread_join(th, NULL);
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_recorded, 1);
    CHECK_EQ_INT(st.allocs_dropped, 0);
    CHECK_EQ_INT(st.dropped, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_DROPPED), 0);
    CHECK(!check_log_has(PROF_E_DROPPED, "cap"));
    {
        char *t = prof_events_table(ev, NULL);
        if (CHECK(t != NULL)) CHECK(strstr(t, "Incomplete profile") == NULL);
        free(t);
    }
    prof_events_free(ev);
    prof_dealloc((const void *)0x1000);
    return check_report();
}
