/* CUDA 13's CUPTI keeps an activity buffer per thread that calls CUDA
   (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, "The default value is
   1" in cupti_activity.h; the fake's per_thread_buffers): each such thread
   asks bufferRequested for its own buffer and holds it until it is full or
   flushed. prof__cu_requested hands out 1 MiB buffers and at most
   PROF__CUPTI_MAX_BUFFERS (256) of them until prof_stop frees them, so it
   caps the number of threads, not the memory: in a session where 300
   threads each launch one kernel (a server's request threads, a pool of
   workers), the first 256 get a buffer and the other 44 get NULL, and
   CUPTI drops every record of theirs: 44 kernels and their launches are
   missing, with the warning "CUPTI dropped 88 activity records (buffers
   full)", while the 256 buffers hold two records (some 256 bytes) each.
   Wanted: every kernel in the profile, each in the scope of the thread
   that launched it; nothing dropped. A fix: cap the bytes held rather than
   the buffers (a buffer completed with `valid` bytes counts those, and can
   be shrunk to them), and hand out smaller buffers (say 64 KiB, CUPTI
   accepts any size that holds a record) once many are open. */
#define _GNU_SOURCE 1
#include <pthread.h>
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

#define THREADS 300

static pthread_barrier_t g_bar;
static int64_t g_t0;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *worker(void *p) {
    (void)p;
    {
        PROF_SCOPE("request");
        /* a cudaLaunchKernel stamped by CUPTI (through prof.h's timestamp
           callback) and its kernel, on this thread's buffer */
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "request_kernel", (uint64_t)(g_t0 + 1000), (uint64_t)(g_t0 + 2000));
    }
    pthread_barrier_wait(&g_bar); /* every thread alive at once, each with its buffer */
    return NULL;
}

int main(void) {
    prof_config c;
    prof_events *ev;
    fake_cupti_delivery d;
    static pthread_t th[THREADS];
    size_t i, kernels = 0, owned = 0, started = 0;
    prof_set_log(check_log, NULL);
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    memset(&d, 0, sizeof d);
    d.per_thread_buffers = 1; /* as CUDA 13's CUPTI */
    fake_cupti_set_delivery(&d);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    g_t0 = now_ns();
    CHECK_EQ_INT(pthread_barrier_init(&g_bar, NULL, THREADS), 0);
    for (i = 0; i < THREADS; i++)
        if (CHECK_EQ_INT(pthread_create(&th[i], NULL, worker, NULL), 0)) started++;
    if (started != THREADS) return check_report(); /* (the barrier would wait forever) */
    for (i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    while (now_ns() < g_t0 + 10000) {} /* the kernels are over */
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK) continue;
        if (e.device_type == PROF_DEVICE_CUDA && strcmp(e.name, "request_kernel") == 0) kernels++;
        if (strcmp(e.name, "request") == 0) owned += e.n_kernels;
    }
    CHECK_MSG(kernels == THREADS, "%zu of the %d kernels (one per thread) are in the profile; prof_stats.dropped = %llu%s", kernels, THREADS,
              (unsigned long long)prof_events_stats(ev).dropped,
              check_log_has(PROF_E_DROPPED, "buffers full") ? " (\"CUPTI dropped ... (buffers full)\": each buffer held two records)" : "");
    CHECK_EQ_INT(owned, THREADS);
    CHECK_EQ_INT(prof_events_stats(ev).dropped, 0);
    prof_events_free(ev);
    pthread_barrier_destroy(&g_bar);
    prof_shutdown();
    return check_report();
}
