/* mlp.c - a two-layer perceptron trained in plain C, profiled the way
   torch.profiler profiles a model: operator scopes with input shapes and
   FLOPs, allocations by category, and a wait/warmup/active schedule whose
   windows arrive in on_trace_ready.

   Build and run from the repository root:  make mlp */
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BATCH = 64, IN = 128, HIDDEN = 256, OUT = 10, STEPS = 12 };

typedef struct tensor { float *data; int64_t rows, cols; } tensor;

static tensor tensor_new(int64_t rows, int64_t cols, const char *category) {
    tensor t;
    t.rows = rows;
    t.cols = cols;
    t.data = (float *)calloc((size_t)(rows * cols), sizeof(float));
    prof_alloc_ex(t.data, (size_t)(rows * cols) * sizeof(float), PROF_DEVICE_CPU, 0, category);
    return t;
}
static void tensor_free(tensor *t) {
    prof_dealloc(t->data);
    free(t->data);
    t->data = NULL;
}

static void gemm(tensor *out, const tensor *a, const tensor *b, const tensor *bias) {
    int64_t i, j, k;
    for (i = 0; i < a->rows; i++) {
        float *o = out->data + i * out->cols;
        for (j = 0; j < out->cols; j++) o[j] = bias ? bias->data[j] : 0.0f;
        for (k = 0; k < a->cols; k++) {
            float av = a->data[i * a->cols + k];
            const float *br = b->data + k * b->cols;
            for (j = 0; j < out->cols; j++) o[j] += av * br[j];
        }
    }
}

/* out[m,n] = a[m,k] @ b[k,n] + bias[n], an operator scope with input
   shapes and FLOPs (aten::addmm) */
static void addmm(tensor *out, const tensor *a, const tensor *b, const tensor *bias) {
    int64_t shapes[] = { 1, 0, 2, 0, 0, 2, 0, 0 };
    prof_args args;
    shapes[1] = bias->cols;
    shapes[3] = a->rows; shapes[4] = a->cols;
    shapes[6] = b->rows; shapes[7] = b->cols;
    memset(&args, 0, sizeof args);
    args.shapes = shapes;
    args.shapes_len = 8;
    args.flops = prof_flops_addmm(a->rows, a->cols, b->cols);
    args.overload_name = "default";
    {
        PROF_SCOPE_ARGS("aten::addmm", &args);
        gemm(out, a, b, bias);
    }
}

/* a^T @ b, for weight gradients */
static void mm_tn(tensor *out, const tensor *a, const tensor *b) {
    PROF_SCOPE_SHAPES("aten::mm", 2, a->cols, a->rows, 2, b->rows, b->cols);
    int64_t i, j, k;
    memset(out->data, 0, sizeof(float) * (size_t)(out->rows * out->cols));
    for (k = 0; k < a->rows; k++)
        for (i = 0; i < a->cols; i++) {
            float av = a->data[k * a->cols + i];
            for (j = 0; j < b->cols; j++) out->data[i * out->cols + j] += av * b->data[k * b->cols + j];
        }
}

static void relu_(tensor *t) {
    PROF_SCOPE_SHAPES("aten::relu_", 2, t->rows, t->cols);
    int64_t i;
    for (i = 0; i < t->rows * t->cols; i++) if (t->data[i] < 0) t->data[i] = 0;
}

static float cross_entropy(const tensor *logits, const int *labels, tensor *grad) {
    PROF_SCOPE_SHAPES("aten::cross_entropy_loss", 2, logits->rows, logits->cols, 1, logits->rows);
    float loss = 0;
    int64_t i, j;
    for (i = 0; i < logits->rows; i++) {
        const float *z = logits->data + i * logits->cols;
        float mx = z[0], sum = 0;
        for (j = 1; j < logits->cols; j++) if (z[j] > mx) mx = z[j];
        for (j = 0; j < logits->cols; j++) sum += expf(z[j] - mx);
        for (j = 0; j < logits->cols; j++) {
            float p = expf(z[j] - mx) / sum;
            grad->data[i * grad->cols + j] = (p - (j == labels[i])) / (float)logits->rows;
        }
        loss -= logf(expf(z[labels[i]] - mx) / sum);
    }
    return loss / (float)logits->rows;
}

static void sgd_(tensor *w, const tensor *g, float lr) {
    PROF_SCOPE_SHAPES("aten::add_", 2, w->rows, w->cols, 2, g->rows, g->cols);
    int64_t i;
    for (i = 0; i < w->rows * w->cols; i++) w->data[i] -= lr * g->data[i];
}

static int windows, export_failed;
static void on_trace_ready(prof_events *ev, void *user) {
    prof_averages *avg;
    prof_table_options opt;
    prof_group_options g;
    (void)user;
    windows++;
    memset(&g, 0, sizeof g);
    g.group_by_input_shapes = 1;
    avg = prof_key_averages(ev, &g);
    memset(&opt, 0, sizeof opt);
    opt.sort_by = "cpu_time_total";
    opt.row_limit = 12;
    printf("== window %d: %zu events (steps profiled with record_shapes, profile_memory, with_flops)\n", windows, prof_events_count(ev));
    prof_averages_print_table(stdout, avg, &opt);
    prof_averages_free(avg);
    if (windows == 1) {
        /* (an error is logged with its reason; main says the files are not there) */
        if (prof_export_chrome_trace(ev, "mlp_trace.json") != PROF_OK) export_failed = 1;
        if (prof_export_memory_timeline(ev, "mlp_memory.json", PROF_DEVICE_CPU, 0) != PROF_OK) export_failed = 1;
    }
}

int main(void) {
    tensor x = tensor_new(BATCH, IN, "input"), w1 = tensor_new(IN, HIDDEN, "parameter"), b1 = tensor_new(1, HIDDEN, "parameter");
    tensor w2 = tensor_new(HIDDEN, OUT, "parameter"), b2 = tensor_new(1, OUT, "parameter");
    int labels[BATCH];
    prof_config cfg;
    prof_events *last;
    int step;
    int64_t i;
    unsigned seed = 1;
    for (i = 0; i < IN * HIDDEN; i++) { seed = seed * 1103515245u + 12345u; w1.data[i] = ((float)(seed >> 16) / 65536.0f - 0.5f) * 0.1f; }
    for (i = 0; i < HIDDEN * OUT; i++) { seed = seed * 1103515245u + 12345u; w2.data[i] = ((float)(seed >> 16) / 65536.0f - 0.5f) * 0.1f; }

    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    cfg.profile_memory = 1;
    cfg.with_flops = 1;
    cfg.schedule.wait = 1;      /* torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2) */
    cfg.schedule.warmup = 1;
    cfg.schedule.active = 2;
    cfg.schedule.repeat = 2;
    cfg.on_trace_ready = on_trace_ready;
    prof_start(&cfg);
    for (step = 0; step < STEPS; step++) {
        tensor h, logits, dlogits, dh, gw1, gw2;
        float loss;
        for (i = 0; i < BATCH * IN; i++) { seed = seed * 1103515245u + 12345u; x.data[i] = (float)(seed >> 16) / 65536.0f; }
        for (i = 0; i < BATCH; i++) labels[i] = (int)(i % OUT);
        {
            PROF_SCOPE("forward");
            h = tensor_new(BATCH, HIDDEN, "activation");
            logits = tensor_new(BATCH, OUT, "activation");
            dlogits = tensor_new(BATCH, OUT, "gradient");
            addmm(&h, &x, &w1, &b1);
            relu_(&h);
            addmm(&logits, &h, &w2, &b2);
            loss = cross_entropy(&logits, labels, &dlogits);
        }
        {
            PROF_SCOPE("backward");
            dh = tensor_new(BATCH, HIDDEN, "gradient");
            gw1 = tensor_new(IN, HIDDEN, "gradient");
            gw2 = tensor_new(HIDDEN, OUT, "gradient");
            mm_tn(&gw2, &h, &dlogits);
            {
                /* dh = dlogits @ w2^T, masked by relu */
                PROF_SCOPE_SHAPES("aten::mm", 2, (int64_t)BATCH, (int64_t)OUT, 2, (int64_t)OUT, (int64_t)HIDDEN);
                int64_t r, c, k;
                for (r = 0; r < BATCH; r++)
                    for (c = 0; c < HIDDEN; c++) {
                        float s = 0;
                        for (k = 0; k < OUT; k++) s += dlogits.data[r * OUT + k] * w2.data[c * OUT + k];
                        dh.data[r * HIDDEN + c] = h.data[r * HIDDEN + c] > 0 ? s : 0;
                    }
            }
            mm_tn(&gw1, &x, &dh);
        }
        {
            PROF_SCOPE("optimizer.step");
            sgd_(&w1, &gw1, 0.1f);
            sgd_(&w2, &gw2, 0.1f);
        }
        PROF_COUNTER("loss", loss);
        tensor_free(&h); tensor_free(&logits); tensor_free(&dlogits); tensor_free(&dh); tensor_free(&gw1); tensor_free(&gw2);
        prof_step();
    }
    last = prof_stop();
    if (export_failed) printf("%d windows delivered; the files were not all written (see the error above)\n", windows);
    else printf("%d windows delivered; wrote mlp_trace.json and mlp_memory.json\n", windows);
    prof_events_free(last);
    tensor_free(&x); tensor_free(&w1); tensor_free(&b1); tensor_free(&w2); tensor_free(&b2);
    prof_shutdown();
    return export_failed;
}
