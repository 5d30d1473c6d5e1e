/* bench/churn.c - what threads that exit hold until prof_stop: a thread per
   task, each recording a few scopes (one PROF_SCOPE_DYN with a name of its
   own, one PROF_BEGIN left open), 8 at a time. Prints the resident memory
   the session gained per exited thread (RSS, /proc/self/statm, read while
   the session still records), then prof_stop's time and the events.
   Usage: churn [threads] (default 10000). */
#define PROF_IMPLEMENTATION
#include "../prof.h"
#include "common.h"

#include <pthread.h>

static void *task(void *arg) {
    char name[32];
    snprintf(name, sizeof name, "req-%ld", (long)(intptr_t)arg);
    PROF_SCOPE("task");
    {
        PROF_SCOPE_DYN(name);
        { PROF_SCOPE("work"); }
    }
    PROF_BEGIN("left open"); /* exits with the range open */
    return NULL;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? (long)bench_count("churn: threads", argv[1]) : 10000, k, j;
    prof_config cfg;
    prof_events *ev;
    double before, after, t0;
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    { PROF_SCOPE("warm"); }
    before = rss_bytes();
    for (k = 0; k < n; k += 8) {
        pthread_t th[8];
        for (j = 0; j < 8 && k + j < n; j++) pthread_create(&th[j], NULL, task, (void *)(intptr_t)(k + j));
        for (j = 0; j < 8 && k + j < n; j++) pthread_join(th[j], NULL);
    }
    after = rss_bytes();
    t0 = now_s();
    ev = prof_stop();
    t0 = now_s() - t0;
    if (!ev) return 1;
    printf("churn_threads %ld\n", n);
    printf("churn_rss_held %.1f MB\n", (after - before) / 1e6);
    printf("churn_rss_per_thread %.0f B\n", (after - before) / (double)n);
    printf("churn_stop %.1f ms\n", t0 * 1e3);
    printf("churn_events %zu (open at stop %llu)\n", prof_events_count(ev), (unsigned long long)prof_events_stats(ev).open_at_stop);
    prof_events_free(ev);
    return 0;
}
