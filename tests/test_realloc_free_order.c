/* prof_realloc recorded the old block's free after realloc() returned,
   though realloc had already given the block back: another thread's
   allocator can hand out that address in between, and its allocation's
   record then came first. The memory timeline and the trace's "Total
   Allocated" had both blocks live at once ([[100], [200], [177], ...]
   for one block of 100 bytes and the other thread's 77), a sum the
   program never reached (found by a helper's hostile memory tests). The
   manual has prof_dealloc come before the block goes back, "as the
   wrappers do". Here libc's realloc is wrapped so that the other thread
   allocates at the old address exactly in that window. */
#define _GNU_SOURCE 1 /* (system headers come before prof.h here) */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

static sem_t g_go, g_done;
static void *volatile g_old;
static volatile int g_hook;
static void *volatile g_pending;
static void *hooked_realloc(void *p, size_t n) {
    void *r;
    g_pending = p; /* its value only, kept before (gcc's -Wuse-after-free) */
    r = realloc(p, n);
    if (g_hook && r) { /* realloc moved or kept the block: the old address is free */
        g_hook = 0;
        g_old = g_pending;
        sem_post(&g_go);
        sem_wait(&g_done);
    }
    return r;
}
#define realloc hooked_realloc
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef realloc
#include "check.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define TIMELINE "build/test_realloc_free_order.json"

static void *other(void *arg) {
    (void)arg;
    sem_wait(&g_go);
    prof_alloc(g_old, 77); /* this thread's malloc got the address realloc freed */
    sem_post(&g_done);
    return NULL;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    char *p, *q, *t;
    mkdir("build", 0777);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    cfg.log = check_log;
    sem_init(&g_go, 0, 0);
    sem_init(&g_done, 0, 0);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    if (!CHECK_EQ_INT(pthread_create(&th, NULL, other, NULL), 0)) return check_report();
    p = (char *)prof_malloc(100);
    g_hook = 1;
    q = (char *)prof_realloc(p, (size_t)1 << 20); /* 1 MiB: moved (mapped on its own) */
    pthread_join(th, NULL);
    CHECK(q != NULL && q != p);
    prof_free(q);
    prof_dealloc(p); /* the other thread's 77-byte block at the old address */
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_stats(ev).unknown_frees, 0);
    if (CHECK_EQ_INT(prof_export_memory_timeline(ev, TIMELINE, PROF_DEVICE_CPU, 0), PROF_OK) && CHECK((t = check_read_file(TIMELINE)) != NULL)) {
        const char *v = strstr(t, "[[100], ");
        CHECK_MSG(v && strncmp(v, "[[100], [0], [77], [1048653], [77], [0]]]", 41) == 0, "the CPU timeline's values: %s (wanted [[100], [0], [77], [1048653], [77], [0]])",
                  v ? v : t);
        free(t);
    }
    prof_events_free(ev);
    remove(TIMELINE);
    sem_destroy(&g_go);
    sem_destroy(&g_done);
    return check_report();
}
