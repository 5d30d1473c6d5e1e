/* prof_stats.threads counts threads that recorded, each once, also when
   the kernel hands a finished thread's id to a new one (after pid_max
   threads: 32768 by default). It counted distinct ids (40000 short threads
   made 32439) when their scopes were kept, and every thread when the cap
   dropped them all (40000): the same workload, two answers. Here threads
   run one at a time until an id comes back; with and without a cap that
   drops nearly all, threads is the number of threads run. (A system whose
   pid_max is past the test's limit gives no id twice: then only the
   count is checked. Under valgrind, which makes 30000 threads slow, the
   test is skipped.) */
#define _GNU_SOURCE
#include "prof.h"
#include "check.h"
#include <sys/syscall.h>

#define MAX_THREADS 40000
static pid_t tids[MAX_THREADS];
static size_t ran;

static void *task(void *arg) {
    PROF_SCOPE("task");
    *(pid_t *)arg = (pid_t)syscall(SYS_gettid);
    return NULL;
}
static int under_valgrind(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int v = 0;
    if (!f) return 0;
    while (!v && fgets(line, sizeof line, f)) v = strstr(line, "vgpreload") != NULL;
    fclose(f);
    return v;
}
/* Runs threads until one gets an id an earlier one had (and 10 more), or
   MAX_THREADS; returns whether an id came back. */
static int run_until_reuse(void) {
    static unsigned char seen[1u << 22]; /* ids below 2^22 (pid_max's ceiling) */
    size_t extra = 0;
    int reused = 0;
    memset(seen, 0, sizeof seen);
    for (ran = 0; ran < MAX_THREADS && extra < 10; ran++) {
        pthread_t t;
        if (!CHECK_EQ_INT(pthread_create(&t, NULL, task, &tids[ran]), 0)) break;
        pthread_join(t, NULL);
        if ((uint32_t)tids[ran] < sizeof seen && seen[tids[ran]]++) reused = 1;
        if (reused) extra++;
    }
    return reused;
}

int main(void) {
    static const uint64_t caps[] = { 0, 10 };
    size_t k;
    if (under_valgrind()) {
        printf("test_threads_tid_reuse: skipped under valgrind (tens of thousands of threads)\n");
        return 0;
    }
    prof_set_log(check_log, NULL);
    for (k = 0; k < 2; k++) {
        prof_config cfg;
        prof_events *ev;
        prof_stats st;
        int reused;
        memset(&cfg, 0, sizeof cfg);
        cfg.max_events = caps[k];
        if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) break;
        reused = run_until_reuse();
        ev = prof_stop();
        if (!CHECK(ev != NULL)) break;
        st = prof_events_stats(ev);
        printf("cap %llu: %zu threads run (an id came back: %s), prof_stats.threads %llu, scopes entered %llu\n",
               (unsigned long long)caps[k], ran, reused ? "yes" : "no", (unsigned long long)st.threads,
               (unsigned long long)st.scopes_entered);
        CHECK_EQ_INT(st.threads, ran);
        CHECK_EQ_INT(st.scopes_entered, ran);
        CHECK_EQ_INT(st.scopes_recorded + st.scopes_dropped, ran);
        prof_events_free(ev);
    }
    return check_report();
}
