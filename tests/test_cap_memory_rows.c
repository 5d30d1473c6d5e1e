/* max_events and profile_memory: a block allocated inside a scope that the
   cap dropped was still recorded (allocations take a share of the cap of
   their own), and with no scope kept around it the tree made it a
   "[memory]" row, as if the program had allocated it outside every scope:
   a capped cJSON run showed a [memory] row of 291 calls and -12.69 KB that
   its complete profile does not have (found by a helper instrumenting real
   programs). Wanted: a record made on a thread the cap has refused makes
   no [memory] row, nor the free of such a block, on any thread; a block
   allocated before the cap stays a row with its free, and so does what a
   thread the cap never refused allocates outside every scope; bytes
   allocated past the cap inside a scope kept still go to that scope. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <string.h>

static char g_other[3][16];
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_stage;
static void wait_stage(int s) {
    pthread_mutex_lock(&g_mu);
    while (g_stage < s) pthread_cond_wait(&g_cv, &g_mu);
    pthread_mutex_unlock(&g_mu);
}
static void set_stage(int s) {
    pthread_mutex_lock(&g_mu);
    g_stage = s;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
}
/* A thread the cap never refuses: it records no scope, and holds a share
   of allocation records from before the cap. */
static void *other(void *arg) {
    (void)arg;
    prof_alloc(g_other[0], 7); /* a row: allocated outside every scope */
    prof_dealloc(g_other[0]);
    set_stage(1);
    wait_stage(2);
    prof_alloc(g_other[1], 11); /* after the main thread's cap: still a row */
    prof_dealloc(g_other[1]);
    return NULL;
}

typedef struct memrows { size_t n; int64_t sum, n7, n11, n64, n100, n1000; } memrows;
static memrows memory_rows(prof_events *ev) {
    memrows r;
    size_t i;
    prof_event e;
    memset(&r, 0, sizeof r);
    for (i = 0; i < prof_events_count(ev); i++) {
        if (prof_events_get(ev, i, &e) != PROF_OK || strcmp(e.name, "[memory]") != 0) continue;
        r.n++;
        r.sum += e.cpu_memory_usage;
        if (e.cpu_memory_usage == 7 || e.cpu_memory_usage == -7) r.n7++;
        if (e.cpu_memory_usage == 11 || e.cpu_memory_usage == -11) r.n11++;
        if (e.cpu_memory_usage == 64 || e.cpu_memory_usage == -64) r.n64++;
        if (e.cpu_memory_usage == 100 || e.cpu_memory_usage == -100) r.n100++;
        if (e.cpu_memory_usage == 1000 || e.cpu_memory_usage == -1000) r.n1000++;
    }
    return r;
}
static int64_t mem_of(prof_events *ev, const char *name, size_t *calls) {
    size_t i;
    int64_t sum = 0;
    prof_event e;
    *calls = 0;
    for (i = 0; i < prof_events_count(ev); i++)
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) {
            sum += e.cpu_memory_usage;
            ++*calls;
        }
    return sum;
}

int main(void) {
    static char early[16], inner[16], dropped[20][16];
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    pthread_t th;
    memrows rows;
    size_t calls;
    int i;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = 1000;
    cfg.profile_memory = 1;
    cfg.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    if (!CHECK_EQ_INT(pthread_create(&th, NULL, other, NULL), 0)) return check_report();
    wait_stage(1);
    prof_alloc(early, 1000); /* before the cap, outside every scope: a row, and so is its free */
    {
        PROF_SCOPE("outer"); /* admitted before the cap: kept, with its end */
        for (i = 0; i < 3000; i++) { PROF_SCOPE("spend"); } /* the cap refuses this thread in here */
        prof_alloc(inner, 100); /* past the cap, inside a scope kept: charged to it */
    }
    for (i = 0; i < 20; i++) { /* each dropped: its blocks make no row */
        PROF_SCOPE("with_alloc");
        prof_alloc(dropped[i], 64);
        prof_dealloc(dropped[i]);
    }
    prof_dealloc(inner); /* the free of a block allocated past the cap: no row */
    prof_dealloc(early); /* owed by a block from before the cap: a row */
    set_stage(2);
    pthread_join(th, NULL);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    CHECK(st.scopes_dropped > 0);
    CHECK_EQ_INT(st.allocs_dropped, 0);
    CHECK_EQ_INT(st.allocs, 2 + 2 + 2 + 2 + 40); /* every record kept: only the rows change */
    rows = memory_rows(ev);
    CHECK_MSG(rows.n64 == 0, "%lld [memory] rows for the blocks of the 20 scopes the cap dropped", (long long)rows.n64);
    CHECK_EQ_INT(rows.n100, 0);  /* allocated inside "outer", freed past the cap */
    CHECK_EQ_INT(rows.n1000, 2); /* allocated and freed outside every scope, allocated before the cap */
    CHECK_EQ_INT(rows.n7, 2);    /* the other thread's, before the cap */
    CHECK_EQ_INT(rows.n11, 2);   /* ... and after it: the cap never refused that thread */
    CHECK_EQ_INT(rows.n, 6);
    CHECK_EQ_INT(rows.sum, 0);
    CHECK_EQ_INT(mem_of(ev, "outer", &calls), 100);
    CHECK_EQ_INT(calls, 1);
    mem_of(ev, "with_alloc", &calls);
    CHECK_EQ_INT(calls, 0);
    prof_events_free(ev);
    return check_report();
}
