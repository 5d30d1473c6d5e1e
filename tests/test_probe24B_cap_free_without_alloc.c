/* The other half of test_probe24B_cap_keeps_alloc_loses_free: past
   max_events a free can be recorded whose allocation was dropped. The
   live table (prof__live_put) tracks every block whether or not its
   allocation's record was admitted, and prof__dealloc_addr records the
   free with the block's bytes on its own admission (prof__mem_record ->
   prof__admit_x), from the freeing thread's share of the cap.

   In pigz, buffers are allocated by one thread (get_space on the reader)
   and freed by another (drop_space on the write thread); a capped profile
   then holds frees of blocks it never saw allocated: "[memory]" rows and
   CPU Mem sums go negative, a sum no program can reach.

   Here thread B records once early (so it holds a share of the cap), the
   main thread then uses up the cap with alloc/free churn and allocates 40
   blocks of 1000 bytes (dropped: past the cap), and B frees them: 23 of
   the 40 frees were recorded on the current header, "[memory]" summing to
   -22990 bytes, and the timeline ended with 10 bytes live (a churn block
   whose free was dropped). A capped profile may miss blocks, but an
   allocation and its free should be kept or dropped together. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe24B_cap_free"

static char blocks[40][16], churn[16], early[16];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage;
static void wait_stage(int s) { pthread_mutex_lock(&mu); while (stage < s) pthread_cond_wait(&cv, &mu); pthread_mutex_unlock(&mu); }
static void set_stage(int s) { pthread_mutex_lock(&mu); stage = s; pthread_cond_broadcast(&cv); pthread_mutex_unlock(&mu); }

static void *freer(void *arg) {
    (void)arg;
    prof_alloc(early, 5);        /* B's first records: it takes a share of the cap */
    prof_dealloc(early);
    set_stage(1);
    wait_stage(2);
    for (int i = 0; i < 40; i++) prof_dealloc(blocks[i]);
    return NULL;
}

int main(void) {
    prof_config cfg = {0};
    cfg.max_events = 300;
    cfg.profile_memory = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, freer, NULL), 0);
    wait_stage(1);
    for (int i = 0; i < 2000; i++) { prof_alloc(churn, 10); prof_dealloc(churn); }
    for (int i = 0; i < 40; i++) prof_alloc(blocks[i], 1000);
    set_stage(2);
    pthread_join(t, NULL);
    prof_events *ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return 1;
    prof_stats st = prof_events_stats(ev);
    CHECK(st.allocs_dropped > 0);

    int64_t net = 0, allocs1000 = 0, frees1000 = 0;
    for (size_t i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK || strcmp(e.name, "[memory]") != 0) continue;
        net += e.cpu_memory_usage;
        if (e.cpu_memory_usage == 1000) allocs1000++;
        if (e.cpu_memory_usage == -1000) frees1000++;
    }
    CHECK_EQ_INT(frees1000, allocs1000);  /* no free kept whose allocation was dropped */
    CHECK_EQ_INT(net, 0);                 /* kept allocations and frees balance: all was freed */

    mkdir("build", 0777);
    mkdir(OUT, 0777);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, OUT "/timeline.json", PROF_DEVICE_CPU, 0), PROF_OK);
    FILE *f = fopen(OUT "/timeline.json", "r");
    CHECK(f != NULL);
    if (f) {
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        char *last = strrchr(buf, '[');
        CHECK(last != NULL);
        if (last) CHECK_MSG(strtoll(last + 1, NULL, 10) == 0, "timeline ends with %s live", last);
    }
    prof_events_free(ev);
    return check_failures() != 0;
}
