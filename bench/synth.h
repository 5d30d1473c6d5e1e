/* bench/synth.h - deterministic synthetic profiles for bench/analysis.c and
   bench/export.c, and the file that hands the same events to PyTorch
   (bench/analysis_torch.py, bench/export_torch.py).

   Shape of a profile: `threads` threads, each a sequence of "step" scopes;
   a step holds 2-4 phases (forward, backward, ...), each 2-6 modules, each
   1-4 aten ops, each 0-3 inner ops, each 0-2 leaf ops: depth up to 6 and
   51 distinct names, about 140 events per step. Steps of the threads are
   interleaved in the list, each step in pre-order (parents first), times
   in whole microseconds (ns = us * 1000 on the C side). The last events
   are padded with top-level leaf ops so the count is exact.

   With `full`, events also carry what makes Kineto's args complete: input
   shapes, a Python-like stack, a sequence number and (matmul-like ops)
   FLOPs; all are functions of the name, given in the file's name table.

   File format (little-endian):
     line "prof-synth 1"
     line n_names, then per name one line: name \t shapes \t stack \t flops
       (shapes: Python repr, "-" = None; stack: frames joined by '|', "-" = none)
     line n_events, then n_events records of 5 int64:
       name index, thread, start_us, end_us, sequence_nr (-1 = none) */
#ifndef BENCH_SYNTH_H
#define BENCH_SYNTH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct synth_ev {
    int32_t name;       /* index into synth_names */
    int32_t level;
    uint64_t thread;
    int64_t start_us, end_us;
    int64_t seq;        /* sequence_nr, -1 = none */
} synth_ev;

/* Names by level: 0 step, 1 phase, 2 module, 3 op, 4 inner op, 5 leaf. */
static const char *const synth_names[] = {
    "step",
    "forward", "backward", "optimizer.step", "data_loader",
    "nn.Module: Linear", "nn.Module: Conv2d", "nn.Module: LayerNorm", "nn.Module: Attention",
    "nn.Module: MLP", "nn.Module: Embedding", "nn.Module: Dropout", "nn.Module: GELU",
    "aten::linear", "aten::conv2d", "aten::layer_norm", "aten::matmul", "aten::softmax",
    "aten::dropout", "aten::gelu", "aten::add", "aten::mul", "aten::embedding", "aten::cat",
    "aten::view", "aten::reshape", "aten::transpose", "aten::contiguous", "aten::sum", "aten::mean",
    "aten::addmm", "aten::mm", "aten::bmm", "aten::t", "aten::convolution", "aten::_convolution",
    "aten::native_layer_norm", "aten::_softmax", "aten::copy_", "aten::expand", "aten::clone",
    "aten::empty_like", "aten::fill_", "aten::zero_",
    "aten::empty", "aten::as_strided", "aten::resize_", "aten::empty_strided", "aten::_reshape_alias",
    "aten::to", "aten::detach",
};
#define SYNTH_N_NAMES ((int)(sizeof synth_names / sizeof synth_names[0]))
static const int synth_level_first[7] = { 0, 1, 5, 13, 30, 44, 51 };
/* children per node at each level: min, max */
static const int synth_kids[6][2] = { { 2, 4 }, { 2, 6 }, { 1, 4 }, { 0, 3 }, { 0, 2 }, { 0, 0 } };

/* Per-name extras for `full` profiles. */
static const char *synth_shapes(int name) {
    static const char *const tab[] = { "[[64, 512], [512, 512], [512]]", "[[64, 128, 56, 56], [128, 128, 3, 3], [128], [], [], [], []]",
                                       "[[64, 512], [], [512], [512], [], []]", "[[64, 8, 128, 64], [64, 8, 64, 128]]", "[[64, 8, 128, 128], [], []]",
                                       "[[64, 512], [], []]", "[[64, 512], []]", "[[64, 512], [64, 512], []]", "[]" };
    if (name < synth_level_first[3]) return NULL; /* user scopes have no shapes */
    return tab[(unsigned)name * 7u % (sizeof tab / sizeof tab[0])];
}
static int synth_stack(int name, const char **frames, int max) {
    static const char *const tab[] = { "train.py(88): train_step", "model.py(142): forward", "torch/nn/modules/module.py(1190): _call_impl",
                                       "model.py(77): attention", "torch/nn/functional.py(1850): linear", "model.py(51): mlp",
                                       "torch/nn/modules/linear.py(114): forward", "train.py(120): main" };
    int depth = 2 + name % 4, i;
    if (depth > max) depth = max;
    for (i = 0; i < depth; i++) frames[i] = tab[((unsigned)name * 3u + (unsigned)i * 5u) % (sizeof tab / sizeof tab[0])];
    return depth;
}
static int64_t synth_flops(int name) {
    const char *n = synth_names[name];
    if (!strcmp(n, "aten::addmm") || !strcmp(n, "aten::mm")) return 2LL * 64 * 512 * 512;
    if (!strcmp(n, "aten::bmm")) return 2LL * 64 * 8 * 128 * 64 * 128;
    if (!strcmp(n, "aten::conv2d") || !strcmp(n, "aten::convolution")) return 2LL * 64 * 128 * 56 * 56 * 128 * 9;
    return 0;
}

typedef struct synth_rng { uint64_t s; } synth_rng;
static uint32_t synth_next(synth_rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}
static int synth_range(synth_rng *r, int lo, int hi) { return lo + (int)(synth_next(r) % (uint32_t)(hi - lo + 1)); }

typedef void (*synth_emit_fn)(const synth_ev *ev, void *ctx);

typedef struct synth_step { synth_ev *ev; size_t n, cap; } synth_step;
static void synth_push(synth_step *s, const synth_ev *e) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->ev = (synth_ev *)realloc(s->ev, s->cap * sizeof *s->ev);
        if (!s->ev) { fprintf(stderr, "synth: out of memory\n"); exit(1); }
    }
    s->ev[s->n++] = *e;
}
/* One node and its subtree, in pre-order; returns its end time. */
static int64_t synth_node(synth_step *s, synth_rng *r, int level, uint64_t thread, int64_t start, int64_t *seq) {
    size_t me = s->n;
    synth_ev e;
    int k, kids = synth_range(r, synth_kids[level][0], synth_kids[level][1]);
    int64_t t = start;
    e.name = synth_range(r, synth_level_first[level], synth_level_first[level + 1] - 1);
    e.level = level;
    e.thread = thread;
    e.start_us = start;
    e.end_us = 0;
    e.seq = level >= 3 ? (*seq)++ : -1;
    synth_push(s, &e);
    if (kids == 0) {
        s->ev[me].end_us = start + synth_range(r, 1, 20);
        return s->ev[me].end_us;
    }
    t += synth_range(r, 1, 3);
    for (k = 0; k < kids; k++) {
        t = synth_node(s, r, level + 1, thread, t, seq);
        t += synth_range(r, 0, 2);
    }
    s->ev[me].end_us = t + synth_range(r, 1, 5);
    return s->ev[me].end_us;
}

/* Emits exactly n events of `threads` threads (at most 16). */
static void synth_generate(size_t n, int threads, synth_emit_fn emit, void *ctx) {
    synth_rng r;
    synth_step s;
    int64_t cursor[16], seq = 0;
    size_t done = 0, i;
    int th;
    r.s = 12345;
    memset(&s, 0, sizeof s);
    for (th = 0; th < threads; th++) cursor[th] = 1000000 + 7 * th;
    while (done < n) {
        for (th = 0; th < threads && done < n; th++) {
            uint64_t tid = 4000 + (uint64_t)th;
            s.n = 0;
            cursor[th] = synth_node(&s, &r, 0, tid, cursor[th], &seq) + synth_range(&r, 5, 50);
            if (done + s.n <= n) {
                for (i = 0; i < s.n; i++) emit(&s.ev[i], ctx);
                done += s.n;
            } else {
                /* pad with top-level leaves to the exact count */
                while (done < n) {
                    synth_ev e;
                    e.name = synth_level_first[5];
                    e.level = 5;
                    e.thread = tid;
                    e.start_us = cursor[th];
                    e.end_us = cursor[th] + 2;
                    e.seq = -1;
                    cursor[th] += 5;
                    emit(&e, ctx);
                    done++;
                }
            }
        }
    }
    free(s.ev);
}

/* ----- the file for the Python side ----- */
typedef struct synth_file { FILE *f; size_t n; } synth_file;
static void synth_file_emit(const synth_ev *e, void *ctx) {
    synth_file *sf = (synth_file *)ctx;
    int64_t rec[5];
    rec[0] = e->name;
    rec[1] = (int64_t)e->thread;
    rec[2] = e->start_us;
    rec[3] = e->end_us;
    rec[4] = e->seq;
    if (fwrite(rec, sizeof rec, 1, sf->f) != 1) { perror("synth: write"); exit(1); }
    sf->n++;
}
static int synth_write_file(const char *path, size_t n, int threads) {
    synth_file sf;
    int i;
    sf.f = fopen(path, "wb");
    sf.n = 0;
    if (!sf.f) { perror(path); return -1; }
    fprintf(sf.f, "prof-synth 1\n%d\n", SYNTH_N_NAMES);
    for (i = 0; i < SYNTH_N_NAMES; i++) {
        const char *frames[8], *sh = synth_shapes(i);
        int d = synth_stack(i, frames, 8), k;
        fprintf(sf.f, "%s\t%s\t", synth_names[i], sh ? sh : "-");
        for (k = 0; k < d; k++) fprintf(sf.f, "%s%s", k ? "|" : "", frames[k]);
        fprintf(sf.f, "\t%lld\n", (long long)synth_flops(i));
    }
    fprintf(sf.f, "%zu\n", n);
    synth_generate(n, threads, synth_file_emit, &sf);
    if (fclose(sf.f) != 0) { perror(path); return -1; }
    return 0;
}

#endif
