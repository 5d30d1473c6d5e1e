/* demo.c - a small program profiled with prof.h: a loader thread feeds a
   training loop on the main thread. Prints the PyTorch-style table and
   writes trace.json (open in https://ui.perfetto.dev or chrome://tracing)
   and profile.stacks (flamegraph.pl, inferno or speedscope).

   Build and run from the repository root:  make demo */
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { N = 96, BATCHES = 24 };

typedef struct queue {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    float *items[4];
    int head, count, done;
} queue;

static void fill(float *x, int n, unsigned seed) {
    PROF_FUNC();
    int i;
    for (i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)(seed >> 16) / 65536.0f - 0.5f;
    }
}

static void normalize(float *x, int n) {
    PROF_FUNC();
    double sum = 0, sq = 0;
    int i;
    for (i = 0; i < n; i++) { sum += x[i]; sq += (double)x[i] * x[i]; }
    {
        double mean = sum / n, sd = sqrt(sq / n - mean * mean) + 1e-6;
        for (i = 0; i < n; i++) x[i] = (float)((x[i] - mean) / sd);
    }
}

static void *loader(void *arg) {
    queue *q = (queue *)arg;
    int b;
    PROF_THREAD_NAME("loader");
    for (b = 0; b < BATCHES; b++) {
        float *x = (float *)malloc(sizeof(float) * N * N);
        {
            PROF_SCOPE("load_batch");
            fill(x, N * N, (unsigned)b);
            normalize(x, N * N);
        }
        PROF_SCOPE("enqueue");
        pthread_mutex_lock(&q->lock);
        while (q->count == 4) pthread_cond_wait(&q->cond, &q->lock);
        q->items[(q->head + q->count) % 4] = x;
        q->count++;
        pthread_cond_broadcast(&q->cond);
        pthread_mutex_unlock(&q->lock);
    }
    pthread_mutex_lock(&q->lock);
    q->done = 1;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

static float *dequeue(queue *q) {
    PROF_SCOPE("wait_for_batch");
    float *x = NULL;
    pthread_mutex_lock(&q->lock);
    while (q->count == 0 && !q->done) pthread_cond_wait(&q->cond, &q->lock);
    if (q->count) {
        x = q->items[q->head];
        q->head = (q->head + 1) % 4;
        q->count--;
        pthread_cond_broadcast(&q->cond);
    }
    pthread_mutex_unlock(&q->lock);
    return x;
}

static void matmul(const float *a, const float *b, float *c, int n) {
    PROF_SCOPE_SHAPES("matmul", 2, n, n, 2, n, n);
    int i, j, k;
    memset(c, 0, sizeof(float) * (size_t)n * (size_t)n);
    for (i = 0; i < n; i++)
        for (k = 0; k < n; k++)
            for (j = 0; j < n; j++) c[i * n + j] += a[i * n + k] * b[k * n + j];
}

static void relu(float *x, int n) {
    PROF_FUNC();
    int i;
    for (i = 0; i < n; i++) if (x[i] < 0) x[i] = 0;
}

static float train_step(const float *x, float *w, float *h, float *y) {
    PROF_SCOPE("train_step");
    float loss = 0;
    int i;
    {
        PROF_SCOPE("forward");
        matmul(x, w, h, N);
        relu(h, N * N);
        matmul(h, w, y, N);
    }
    {
        PROF_SCOPE("backward");
        matmul(y, w, h, N);
        for (i = 0; i < N * N; i++) loss += y[i] * y[i];
    }
    {
        PROF_SCOPE("optimizer_step");
        for (i = 0; i < N * N; i++) w[i] -= 1e-7f * h[i];
    }
    return loss / (N * N);
}

int main(void) {
    prof_config cfg;
    prof_report_options report;
    prof_result rc;
    prof_events *ev;
    pthread_t th;
    queue q;
    float *w = (float *)malloc(sizeof(float) * N * N), *h = (float *)malloc(sizeof(float) * N * N), *y = (float *)malloc(sizeof(float) * N * N);
    float *x;
    int step = 0;

    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    cfg.with_stack = PROF_STACK_SCOPES; /* for profile.stacks */
    prof_start(&cfg);
    PROF_THREAD_NAME("trainer");

    memset(&q, 0, sizeof q);
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.cond, NULL);
    fill(w, N * N, 7u);
    pthread_create(&th, NULL, loader, &q);
    while ((x = dequeue(&q)) != NULL) {
        float loss = train_step(x, w, h, y);
        PROF_COUNTER("loss", loss);
        if (++step % 8 == 0) PROF_MARK("checkpoint");
        free(x);
    }
    pthread_join(th, NULL);
    ev = prof_stop();

    /* the table (10 rows by self CPU time) and three files, in one call */
    memset(&report, 0, sizeof report);
    report.table.sort_by = "self_cpu_time_total";
    report.table.row_limit = 10;
    report.chrome_trace = "trace.json";
    report.perfetto = "trace.pftrace";
    report.stacks = "profile.stacks";
    rc = prof_report(ev, &report);
    if (rc == PROF_OK)
        printf("wrote trace.json (%zu events; chrome://tracing, ui.perfetto.dev), trace.pftrace (Perfetto's own format: ui.perfetto.dev, trace_processor) and profile.stacks (flamegraph.pl, speedscope)\n",
               prof_events_count(ev));
    prof_events_free(ev);
    prof_shutdown();
    free(w); free(h); free(y);
    pthread_mutex_destroy(&q.lock);
    pthread_cond_destroy(&q.cond);
    return rc == PROF_OK ? 0 : 1;
}
