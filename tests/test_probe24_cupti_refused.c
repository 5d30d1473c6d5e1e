/* CUPTI's activity buffers that prof.h cannot give (no memory for them, or
   its budget spent): CUPTI drops the records it had for them, and
   prof_stop must say that prof.h refused the buffers, not that CUPTI's
   own buffers were full. A PROF_MALLOC that fails every allocation of 64
   KiB and more stands for the lack of memory; three threads each launch
   one kernel (CUDA 13's per-thread buffers: a buffer each, asked for on
   the launching thread, where the hook fails), so their buffers
   are refused and six records (a launch and its kernel each)
   dropped. After the hook lets them through, a second session records
   every kernel; after each stop the budget's count of bytes held is back
   at zero (a buffer shrunk when CUPTI completed it counts what it kept). */
#define _GNU_SOURCE 1
#include <stddef.h> /* (a compiler header: prof.h comes before the system's) */
void *probe_malloc(size_t n);
#define PROF_MALLOC(n) probe_malloc(n)
#define PROF_REALLOC(p, n) realloc(p, n)
#define PROF_FREE(p) free(p)
#include <pthread.h>
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

#define THREADS 3
static int g_fail_big;
static __thread int t_worker; /* only the launching threads' buffers fail: prof_stop's own arrays are allocated */
void *probe_malloc(size_t n) { return g_fail_big && t_worker && n >= ((size_t)64 << 10) ? NULL : malloc(n); }

static int64_t g_t0;
static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static void *worker(void *p) {
    (void)p;
    t_worker = 1;
    {
        PROF_SCOPE("request");
        fake_cupti_launch(FAKE_CUPTI_LAUNCH_RUNTIME, "request_kernel", (uint64_t)(g_t0 + 1000), (uint64_t)(g_t0 + 2000));
    }
    return NULL;
}

static size_t session(prof_stats *st) {
    prof_config c;
    prof_events *ev;
    pthread_t th[THREADS];
    size_t i, kernels = 0;
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return 0;
    g_t0 = now_ns();
    for (i = 0; i < THREADS; i++) CHECK_EQ_INT(pthread_create(&th[i], NULL, worker, NULL), 0);
    for (i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    while (now_ns() < g_t0 + 10000) {} /* the kernels are over */
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return 0;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type == PROF_DEVICE_CUDA && strcmp(e.name, "request_kernel") == 0) kernels++;
    }
    *st = prof_events_stats(ev);
    prof_events_free(ev);
    CHECK_EQ_INT(prof__cu.bytes, 0); /* every buffer's bytes given back (those shrunk at completion too) */
    return kernels;
}

int main(void) {
    fake_cupti_delivery d;
    prof_stats st;
    size_t k;
    prof_set_log(check_log, NULL);
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    memset(&d, 0, sizeof d);
    d.per_thread_buffers = 1; /* as CUDA 13's CUPTI */
    fake_cupti_set_delivery(&d);

    g_fail_big = 1;
    memset(&st, 0, sizeof st);
    k = session(&st);
    CHECK_EQ_INT(k, 0);
    CHECK_EQ_INT(st.dropped, 2 * THREADS);
    CHECK(check_log_has(PROF_E_DROPPED, "CUPTI dropped 6 activity records: prof.h refused "));
    CHECK(!check_log_has(PROF_E_DROPPED, "its own buffers were full"));

    g_fail_big = 0;
    check_log_reset();
    memset(&st, 0, sizeof st);
    k = session(&st);
    CHECK_EQ_INT(k, THREADS);
    CHECK_EQ_INT(st.dropped, 0);
    CHECK_EQ_INT(check_log_count(PROF_E_DROPPED), 0);
    prof_shutdown();
    return check_report();
}
