/* The prefault thread faults in only what is about to be written: a ready
   block has its first 2 MiB resident, and the block a thread writes is
   faulted in 2 MiB at a time, one step ahead of its records, never
   further. (It once faulted every block in whole: a 0.9M-event session
   held 15 MB it never wrote.) Residency is read with mincore, exactly; the
   waits are for the helper to get there, with no time asserted. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <string.h>
#include <sys/mman.h>
#include <time.h>

static void sleep_us(long us) {
    struct timespec ts;
    ts.tv_sec = us / 1000000;
    ts.tv_nsec = (us % 1000000) * 1000;
    nanosleep(&ts, NULL);
}

/* resident 4 KiB pages of [p, p + bytes) (bytes a multiple of 4096, at most 8 MiB) */
static size_t resident(const void *p, size_t bytes) {
    static unsigned char vec[2048];
    size_t k, n = bytes / 4096, res = 0;
    if (n > sizeof vec || mincore((void *)(uintptr_t)p, bytes, vec) != 0) return (size_t)-1;
    for (k = 0; k < n; k++) res += vec[k] & 1;
    return res;
}

#define FIRST_N 100000L /* into the eighth block (65536 records, from record 65024 on): the helper starts */
#define BIG_AT 100000L  /* records into the first full block, 2.3 MiB: faulted in to 6 MiB */

static void test_follow(void) {
    prof_config cfg;
    prof_events *ev;
    prof__tstate *t;
    prof__block *b, *r;
    size_t at, to, n_from_first;
    long i, total;
    int waited, populate, faulted_to;
    memset(&cfg, 0, sizeof cfg);
    cfg.log = check_log;
    cfg.max_events = 64u << 20;
    prof_shutdown(); /* no blocks held from earlier sessions */
    if (!CHECK(prof_start(&cfg) == PROF_OK)) return;
    for (i = 0; i < FIRST_N; i++) { PROF_SCOPE("follow"); }
    /* the helper readies its two blocks before this thread needs one */
    for (waited = 0; waited < 60000 && __atomic_load_n(&prof__pf.n_ready, __ATOMIC_RELAXED) < 2; waited++) sleep_us(1000);
    CHECK_EQ_INT(__atomic_load_n(&prof__pf.n_ready, __ATOMIC_RELAXED), 2);
    /* to BIG_AT records into the first full block (blocks of 512 records and twice as many each time) */
    n_from_first = (size_t)PROF__FIRST_BLOCK * 255u;
    total = (long)n_from_first + BIG_AT;
    for (; i < total; i++) { PROF_SCOPE("follow"); }
    t = prof__self();
    b = t ? t->cur : NULL;
    if (!CHECK(b != NULL && b->cap == PROF__MAX_BLOCK && b->map_bytes == (8u << 20))) { prof_events_free(prof_stop()); return; }
    at = (size_t)((char *)t->hot.pos - (char *)b->recs);
    CHECK_EQ_INT(at, (size_t)BIG_AT * sizeof(prof__rec));
    to = ((at + PROF__HUGE) & ~(PROF__HUGE - 1)) + PROF__HUGE; /* the 2 MiB step past this one */
    pthread_mutex_lock(&prof__pf_lock);
    populate = prof__pf.populate;
    pthread_mutex_unlock(&prof__pf_lock);
    if (populate > 0) {
        /* the helper gets to `to` (it looks again at least every 50 ms) */
        for (waited = 0, faulted_to = 0; waited < 60000 && !faulted_to; waited++) {
            pthread_mutex_lock(&prof__pf_lock);
            faulted_to = b->faulted >= to;
            pthread_mutex_unlock(&prof__pf_lock);
            if (!faulted_to) sleep_us(1000);
        }
        CHECK_MSG(faulted_to, "the helper faulted the block in to %zu bytes, not %zu", b->faulted, to);
        CHECK_EQ_INT(resident(b->recs, to), to / 4096);
        CHECK_EQ_INT(resident((char *)b->recs + to, b->map_bytes - to), 0);
        /* every ready block: its first 2 MiB and nothing more */
        pthread_mutex_lock(&prof__pf_lock);
        for (r = prof__pf.ready; r; r = r->next) {
            CHECK_EQ_INT(resident(r->recs, PROF__HUGE), PROF__HUGE / 4096);
            CHECK_EQ_INT(resident((char *)r->recs + PROF__HUGE, r->map_bytes - PROF__HUGE), 0);
        }
        pthread_mutex_unlock(&prof__pf_lock);
    } else {
        printf("# MADV_POPULATE_WRITE not here: blocks are faulted in whole\n");
        CHECK_EQ_INT(resident(b->recs, b->map_bytes), b->map_bytes / 4096);
    }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK_EQ_INT(prof_events_count(ev), (size_t)total);
        CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
        CHECK_EQ_INT(prof_events_stats(ev).blocks_prefaulted, 1);
    }
    prof_events_free(ev);
    /* nothing is followed once the session is over */
    pthread_mutex_lock(&prof__pf_lock);
    CHECK(prof__pf.follow == NULL);
    pthread_mutex_unlock(&prof__pf_lock);
}

int main(void) {
    prof_set_log(check_log, NULL);
    test_follow();
    prof_shutdown();
    return check_report();
}
