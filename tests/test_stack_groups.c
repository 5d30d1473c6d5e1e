/* Stacks at scale: prof_export_stacks, prof_export_stacks_merged and
   key_averages(group_by_stack_n) on lists with thousands of distinct
   stacks (frames that print alike once cleaned, empty frames, separators,
   multi-byte and invalid UTF-8), compared byte for byte / row for row with
   slow references written here from the public per-event view
   (prof_events_get: name, stack array, self CPU time): each event's whole
   stack formatted as text and looked up as text. The library shares work
   per stack node and per frame instead (a trie of cleaned frames, per-node
   memos), so these catch a line or a row that the sharing gets wrong. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frames: some print alike once cleaned ("a b" and "a_b"), some hold every
   kind of byte the folded format rewrites. */
static const char *const FRAMES[] = {
    "a b", "a_b", "x;y", "", "\xe2\x80\xa8z", "bad\xff", "tab\there", "ok (f.c:1)",
    "\xc3\xa9t\xc3\xa9", "_", "x_y", "del\x7f", "main (m.c:10)", "step (m.c:20)",
};
enum { NFRAMES = sizeof FRAMES / sizeof FRAMES[0] };
/* Frames that all print differently once cleaned (some are rewritten, none
   into another's text): prof_export_stacks_merged then writes a stack
   node's line from its frames, without its trie of lines. */
static const char *const DISTINCT_FRAMES[] = {
    "p q", "x;y", "", "\xe2\x80\xa8z", "bad\xff", "tab\there", "ok (f.c:1)", "\xc3\xa9t\xc3\xa9",
    "del\x7f", "main (m.c:10)", "step (m.c:20)", "run (m.c:30)",
};
enum { NDISTINCT = sizeof DISTINCT_FRAMES / sizeof DISTINCT_FRAMES[0] };
static const char *const *frames = FRAMES; /* make_list's */
static uint32_t nframes = NFRAMES;
static const char *const NAMES[] = { "alpha", "beta", "gamma", "delta", "eps" };
enum { NNAMES = sizeof NAMES / sizeof NAMES[0] };

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* The folded format's cleaning of one frame, for the bytes FRAMES holds. */
static void clean_frame(char *out, size_t *n, const char *f) {
    const unsigned char *p = (const unsigned char *)f;
    if (!*p) { out[(*n)++] = '_'; return; }
    while (*p) {
        if (*p < 0x80) {
            out[(*n)++] = (*p == ' ' || *p == ';' || *p < 0x20 || *p == 0x7f) ? '_' : (char)*p;
            p++;
        } else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
            out[(*n)++] = '_';
            p += 3;
        } else if (p[0] == 0xc3 && p[1] >= 0x80 && p[1] <= 0xbf) {
            out[(*n)++] = (char)p[0];
            out[(*n)++] = (char)p[1];
            p += 2;
        } else {
            memcpy(out + *n, "\xef\xbf\xbd", 3);
            *n += 3;
            p++;
        }
    }
}
/* A stack (innermost first) as a folded line, outermost first. */
static char *folded_text(const char *const *stack, int depth) {
    size_t n = 0;
    int k;
    char *t = (char *)malloc((size_t)depth * 64 + 1);
    for (k = depth - 1; k >= 0; k--) {
        clean_frame(t, &n, stack[k]);
        if (k) t[n++] = ';';
    }
    t[n] = 0;
    return t;
}

/* A string -> index table for the references (open addressing). */
typedef struct table { char **keys; size_t *vals; size_t cap, n; } table;
static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}
/* The index of s, adding it as `next` (and taking ownership) if absent;
   *added says which. */
static size_t table_get(table *t, char *s, size_t next, int *added) {
    size_t j;
    if ((t->n + 1) * 2 > t->cap) {
        table nt;
        size_t i;
        nt.cap = t->cap ? t->cap * 2 : 1024;
        nt.n = t->n;
        nt.keys = (char **)calloc(nt.cap, sizeof *nt.keys);
        nt.vals = (size_t *)calloc(nt.cap, sizeof *nt.vals);
        for (i = 0; i < t->cap; i++) {
            if (!t->keys[i]) continue;
            for (j = hash_str(t->keys[i]) & (nt.cap - 1); nt.keys[j]; j = (j + 1) & (nt.cap - 1)) {}
            nt.keys[j] = t->keys[i];
            nt.vals[j] = t->vals[i];
        }
        free(t->keys);
        free(t->vals);
        *t = nt;
    }
    for (j = hash_str(s) & (t->cap - 1); t->keys[j]; j = (j + 1) & (t->cap - 1))
        if (strcmp(t->keys[j], s) == 0) { free(s); *added = 0; return t->vals[j]; }
    t->keys[j] = s;
    t->vals[j] = next;
    t->n++;
    *added = 1;
    return next;
}
static void table_free(table *t) {
    size_t i;
    for (i = 0; i < t->cap; i++) free(t->keys[i]);
    free(t->keys);
    free(t->vals);
    memset(t, 0, sizeof *t);
}

/* Some events differ in what else their row's key holds (node_id, user
   annotation), some carry memory and FLOPs (an extra record each). */
static int with_extras = 1; /* 0: no event has an extra record (key_averages' self times by parents) */
static void vary(prof_event_desc *d) {
    uint32_t r = rnd(16);
    if (r == 2 && !with_extras) r = 3;
    if (r == 0) { d->set |= PROF_EVENT_NODE_ID; d->node_id = (int)rnd(2); }
    if (r == 1) d->set |= PROF_EVENT_USER_ANNOTATION;
    if (r == 2) { d->cpu_memory_usage = (int64_t)rnd(5000) - 2500; d->flops = (int64_t)rnd(1000); }
}
/* n events on 2 threads: parents with 0-2 children (other names, so
   _remove_dup_nodes keeps them), random stacks of depth 0-7 (a child's
   stack is its parent's with frames added, as scope stacks are), times in
   whole and odd nanoseconds. */
static prof_events *make_list(size_t n) {
    prof_events *ev = prof_events_create();
    int64_t t[2] = { 1000, 5000 };
    size_t i = 0;
    while (ev && i < n) {
        const char *st[16];
        prof_event_desc d;
        int th = (int)rnd(2), depth = (int)rnd(8), k, nc = (int)rnd(3), c;
        int pname = (int)rnd(NNAMES);
        int64_t start = t[th], len = 200 + (int64_t)rnd(40000);
        for (k = 0; k < depth; k++) st[k] = frames[rnd(nframes)];
        memset(&d, 0, sizeof d);
        d.name = NAMES[pname];
        d.thread = 100 + (uint64_t)th;
        d.start_ns = start;
        d.end_ns = start + len * (nc + 1) + 7;
        d.stack = depth ? st : NULL;
        d.stack_depth = depth;
        vary(&d);
        if (prof_events_add(ev, &d) < 0) break;
        i++;
        for (c = 0; c < nc && i < n; c++) {
            const char *cs[16];
            int cd = depth + 1 + (int)rnd(3), j;
            for (j = 0; j < cd - depth; j++) cs[j] = frames[rnd(nframes)];
            for (j = 0; j < depth; j++) cs[cd - depth + j] = st[j];
            memset(&d, 0, sizeof d);
            d.name = NAMES[(pname + 1 + (int)rnd(NNAMES - 1)) % NNAMES];
            d.thread = 100 + (uint64_t)th;
            d.start_ns = start + 3 + len * c;
            d.end_ns = d.start_ns + len - (int64_t)rnd(150);
            d.stack = cs;
            d.stack_depth = cd;
            vary(&d);
            if (prof_events_add(ev, &d) < 0) break;
            i++;
        }
        t[th] = start + len * (nc + 1) + 100;
    }
    return ev;
}

typedef struct sbuf { char *p; size_t n, cap; } sbuf;
static void sb_add(sbuf *b, const char *s, long long v) {
    char num[32];
    size_t ls = strlen(s), ln = (size_t)snprintf(num, sizeof num, " %lld\n", v);
    if (b->n + ls + ln + 1 > b->cap) {
        b->cap = (b->n + ls + ln + 1) * 2;
        b->p = (char *)realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, s, ls);
    memcpy(b->p + b->n + ls, num, ln);
    b->n += ls + ln;
    b->p[b->n] = 0;
}

/* export_stacks (each event's line, whole microseconds) and
   export_stacks_merged (lines that print alike summed in ns, first-seen
   order) against the references. */
static void check_folded(prof_events *ev, size_t *lines_out) {
    const char *path = "test_stack_groups.folded";
    size_t i, n = prof_events_count(ev), nlines = 0;
    sbuf each, merged;
    table lines;
    int64_t *sums = (int64_t *)calloc(n + 1, sizeof *sums);
    char **texts = (char **)calloc(n + 1, sizeof *texts);
    char *got;
    memset(&each, 0, sizeof each);
    memset(&merged, 0, sizeof merged);
    memset(&lines, 0, sizeof lines);
    for (i = 0; i < n; i++) {
        prof_event e;
        int added;
        size_t k;
        char *text;
        if (prof_events_get(ev, i, &e) != PROF_OK || !e.stack_depth || e.self_cpu_time_total_ns <= 0) continue;
        text = folded_text(e.stack, e.stack_depth);
        if (e.self_cpu_time_total_ns / 1000 > 0) sb_add(&each, text, (long long)(e.self_cpu_time_total_ns / 1000));
        k = table_get(&lines, text, nlines, &added);
        if (added) texts[nlines++] = text;
        sums[k] += e.self_cpu_time_total_ns;
    }
    for (i = 0; i < nlines; i++)
        if (sums[i] / 1000 > 0) sb_add(&merged, texts[i], (long long)(sums[i] / 1000));
    CHECK(nlines > 1000); /* the point: many distinct lines */
    CHECK_EQ_INT(prof_export_stacks(ev, path, "self_cpu_time_total"), PROF_OK);
    got = check_read_file(path);
    if (CHECK(got != NULL)) CHECK(each.p && strcmp(got, each.p) == 0);
    free(got);
    CHECK_EQ_INT(prof_export_stacks_merged(ev, path, "self_cpu_time_total"), PROF_OK);
    got = check_read_file(path);
    if (CHECK(got != NULL)) CHECK(merged.p && strcmp(got, merged.p) == 0);
    free(got);
    remove(path);
    *lines_out = nlines;
    table_free(&lines);
    free(texts);
    free(sums);
    free(each.p);
    free(merged.p);
}

/* FunctionEventAvg.add's sums, as prof.h keeps them: saturating, event by
   event in the list's order. */
static void sat_add(int64_t *a, int64_t b) {
    if (b > 0 && *a > INT64_MAX - b) *a = INT64_MAX;
    else if (b < 0 && *a < INT64_MIN - b) *a = INT64_MIN;
    else *a += b;
}
/* key_averages(group_by_stack_n = sn): the key is the name, node_id, user
   annotation and the first min(sn, depth) frames (innermost first, as
   evt.stack[:n]); rows in first-seen order, sums over their events, the
   stack the first event's. */
enum { NSUMS = 6 };
static void check_grouped(prof_events *ev, int sn) {
    prof_group_options g;
    prof_averages *a;
    size_t i, n = prof_events_count(ev), nrows = 0, bad = 0;
    table keys;
    int64_t *count = (int64_t *)calloc(n + 1, sizeof *count), *cpu = (int64_t *)calloc(n + 1, sizeof *cpu),
            *self = (int64_t *)calloc(n + 1, sizeof *self), *sums = (int64_t *)calloc((n + 1) * NSUMS, sizeof *sums);
    size_t *first = (size_t *)calloc(n + 1, sizeof *first);
    memset(&keys, 0, sizeof keys);
    memset(&g, 0, sizeof g);
    g.group_by_stack_n = sn;
    for (i = 0; i < n; i++) {
        prof_event e;
        int added, k, d;
        size_t len, r;
        char *key;
        if (prof_events_get(ev, i, &e) != PROF_OK) continue;
        d = e.stack_depth < sn ? e.stack_depth : sn;
        len = strlen(e.name) + 32;
        for (k = 0; k < d; k++) len += strlen(e.stack[k]) + 1;
        key = (char *)malloc(len);
        snprintf(key, len, "%s\x03%d\x03%d", e.name, e.node_id, e.is_user_annotation);
        for (k = 0; k < d; k++) { strcat(key, "\x01"); strcat(key, e.stack[k]); }
        if (d == 0) strcat(key, "\x02");
        r = table_get(&keys, key, nrows, &added);
        if (added) first[nrows++] = i;
        count[r]++;
        sat_add(&cpu[r], e.cpu_time_total_ns);
        sat_add(&self[r], e.self_cpu_time_total_ns);
        sat_add(&sums[r * NSUMS + 0], e.cpu_memory_usage);
        sat_add(&sums[r * NSUMS + 1], e.self_cpu_memory_usage);
        sat_add(&sums[r * NSUMS + 2], e.flops);
        sat_add(&sums[r * NSUMS + 3], e.device_memory_usage);
        sat_add(&sums[r * NSUMS + 4], e.device_time_total_ns);
        sat_add(&sums[r * NSUMS + 5], e.self_device_time_total_ns);
    }
    a = prof_key_averages(ev, &g);
    if (!CHECK(a != NULL)) return;
    CHECK_EQ_INT(prof_averages_count(a), nrows);
    for (i = 0; i < nrows && i < prof_averages_count(a); i++) {
        const prof_avg *r = prof_averages_get(a, i);
        prof_event e;
        int k, d;
        prof_events_get(ev, first[i], &e);
        d = e.stack_depth < sn ? e.stack_depth : sn;
        if (strcmp(r->key, e.name) != 0 || r->count != count[i] || r->cpu_time_total_ns != cpu[i] ||
            r->self_cpu_time_total_ns != self[i] || r->stack_depth != d || r->node_id != e.node_id ||
            r->is_user_annotation != e.is_user_annotation || r->cpu_memory_usage != sums[i * NSUMS + 0] ||
            r->self_cpu_memory_usage != sums[i * NSUMS + 1] || r->flops != sums[i * NSUMS + 2] ||
            r->device_memory_usage != sums[i * NSUMS + 3] || r->device_time_total_ns != sums[i * NSUMS + 4] ||
            r->self_device_time_total_ns != sums[i * NSUMS + 5]) {
            bad++;
            continue;
        }
        for (k = 0; k < d; k++)
            if (strcmp(r->stack[k], e.stack[k]) != 0) { bad++; break; }
    }
    if (bad) fprintf(stderr, "group_by_stack_n = %d: %zu rows differ from the reference\n", sn, bad);
    CHECK_EQ_INT(bad, 0);
    prof_averages_free(a);
    table_free(&keys);
    free(count);
    free(cpu);
    free(self);
    free(sums);
    free(first);
}

/* Nested steps of depth 1-7 on 3 threads, names drawn with repeats (a
   parent and its only child alike: _remove_dup_nodes), each event's stack
   its parent's with 0-2 frames added, or none, or one of its own; no extra
   records, so key_averages takes self times from the parents' side. Added
   in time order, or backwards (`back`: a parent after its children in the
   list as added). */
typedef struct deep_ev { prof_event_desc d; const char *st[24]; } deep_ev;
static size_t deep_step(deep_ev *out, size_t at, size_t n, int level, int64_t start, int64_t len, const char *const *pst, int pd, uint64_t th) {
    deep_ev *x = &out[at];
    int k, nc = level < 7 ? (int)rnd(4) : 0, c, d;
    size_t next = at + 1;
    uint32_t how = rnd(8);
    memset(&x->d, 0, sizeof x->d);
    x->d.name = NAMES[rnd(3)];
    x->d.thread = th;
    x->d.start_ns = start;
    x->d.end_ns = start + len;
    d = how == 0 ? 0 : how == 1 ? 1 + (int)rnd(3) : pd + (int)rnd(3);
    if (d > 20) d = 20;
    for (k = 0; k < d; k++) x->st[k] = how == 1 || k < d - pd ? frames[rnd(nframes)] : pst[k - (d - pd)];
    x->d.stack = d ? x->st : NULL;
    x->d.stack_depth = d;
    vary(&x->d);
    for (c = 0; c < nc && next < n && len > 8 * (nc + 1); c++) {
        int64_t clen = len / (nc + 1) - (int64_t)rnd(3);
        next = deep_step(out, next, n, level + 1, start + 1 + (len / (nc + 1)) * c, clen, x->st, d, th);
    }
    return next;
}
static prof_events *make_deep(size_t n, int back) {
    deep_ev *evs = (deep_ev *)calloc(n, sizeof *evs);
    prof_events *ev = prof_events_create();
    int64_t t[3] = { 0, 7, 13 };
    size_t i = 0, j;
    while (evs && i < n) {
        int th = (int)rnd(3);
        int64_t len = 50000 + (int64_t)rnd(400000);
        i = deep_step(evs, i, n, 1, t[th], len, NULL, 0, 200 + (uint64_t)th);
        t[th] += len + 1 + (int64_t)rnd(100);
    }
    for (j = 0; ev && evs && j < n; j++) {
        deep_ev *x = &evs[back ? n - 1 - j : j];
        x->d.stack = x->d.stack_depth ? x->st : NULL;
        CHECK(prof_events_add(ev, &x->d) >= 0);
    }
    free(evs);
    return ev;
}

/* A row whose self time saturates, its events at two stack nodes with the
   same innermost frame (one row with group_by_stack_n = 1), in this order:
   +B at node X, +B at node Y, 4 - B at X (an event whose two overlapping
   children take more than its time). Event by event, the row's self time
   stops at INT64_MAX and ends at INT64_MAX + 4 - B; a sum per node first
   would give B + 4. */
static prof_events *make_saturating(void) {
    const int64_t B = (int64_t)0x4c00000000000000ll;
    const char *x[] = { "f", "a" }, *y[] = { "f", "b" };
    struct { const char *name; uint64_t thread; int64_t start, end; const char *const *stack; } evs[] = {
        { "op", 1, 0, B, x }, { "op", 2, 1, B + 1, y }, { "op", 3, 2, B + 2, x },
        { "kid", 3, 3, B + 1, NULL }, { "kid", 3, 4, B + 2, NULL },
    };
    prof_events *ev = prof_events_create();
    size_t i;
    for (i = 0; ev && i < sizeof evs / sizeof evs[0]; i++) {
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = evs[i].name;
        d.thread = evs[i].thread;
        d.start_ns = evs[i].start;
        d.end_ns = evs[i].end;
        d.stack = evs[i].stack;
        d.stack_depth = evs[i].stack ? 2 : 0;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    return ev;
}

/* The table's sort (prof__tb_sort: each row's key made once into an
   ordered integer, then merged) against sorted(reverse=True) written
   plainly: a stable insertion sort comparing the rows' fields as
   prof_averages_table documents them (integers exactly, cpu_time and
   device_time as the averages' doubles), on random rows with many ties,
   negative values, the int64 extremes and counts of 0, for every key. */
static int ref_above(const prof_avg *a, const prof_avg *b, int key) {
    const int64_t *fa, *fb;
    switch (key) {
    case 0: return prof__avg_us(a->cpu_time_total_ns, a->count) > prof__avg_us(b->cpu_time_total_ns, b->count);
    case 1: return prof__avg_us(a->device_time_total_ns, a->count) > prof__avg_us(b->device_time_total_ns, b->count);
    case 2: fa = &a->cpu_time_total_ns; fb = &b->cpu_time_total_ns; break;
    case 3: fa = &a->device_time_total_ns; fb = &b->device_time_total_ns; break;
    case 4: fa = &a->self_cpu_time_total_ns; fb = &b->self_cpu_time_total_ns; break;
    case 5: fa = &a->self_device_time_total_ns; fb = &b->self_device_time_total_ns; break;
    case 6: fa = &a->cpu_memory_usage; fb = &b->cpu_memory_usage; break;
    case 7: fa = &a->device_memory_usage; fb = &b->device_memory_usage; break;
    case 8: fa = &a->self_cpu_memory_usage; fb = &b->self_cpu_memory_usage; break;
    case 9: fa = &a->self_device_memory_usage; fb = &b->self_device_memory_usage; break;
    case 10: fa = &a->count; fb = &b->count; break;
    case 11: fa = &a->flops; fb = &b->flops; break;
    default: return a->node_id > b->node_id;
    }
    return *fa > *fb;
}
static int64_t rnd_value(void) {
    static const int64_t special[] = { 0, 1, -1, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, (int64_t)1 << 53, ((int64_t)1 << 53) + 1 };
    uint32_t r = rnd(4);
    if (r == 0) return special[rnd(sizeof special / sizeof special[0])];
    if (r == 1) return (int64_t)rnd(7) - 3;                                  /* ties */
    return (int64_t)(((uint64_t)rnd(UINT32_MAX) << 32) | rnd(UINT32_MAX)) >> rnd(64); /* any size, either sign */
}
static void check_table_sort(void) {
    enum { N = 3000 };
    prof_avg *rows = (prof_avg *)calloc(N, sizeof *rows);
    const prof_avg **ref = (const prof_avg **)malloc(N * sizeof *ref);
    prof__table *t = (prof__table *)calloc(1, sizeof *t);
    size_t i, j, bad = 0;
    int key;
    if (!CHECK(rows && ref && t)) { free(rows); free(ref); free(t); return; }
    for (i = 0; i < N; i++) {
        rows[i].cpu_time_total_ns = rnd_value();
        rows[i].device_time_total_ns = rnd_value();
        rows[i].self_cpu_time_total_ns = rnd_value();
        rows[i].self_device_time_total_ns = rnd_value();
        rows[i].cpu_memory_usage = rnd_value();
        rows[i].device_memory_usage = rnd_value();
        rows[i].self_cpu_memory_usage = rnd_value();
        rows[i].self_device_memory_usage = rnd_value();
        rows[i].count = rnd(3) ? (int64_t)rnd(5) : rnd_value();
        rows[i].flops = rnd_value();
        rows[i].node_id = (int)rnd(9) - 4;
    }
    for (key = 0; key <= 12; key++) {
        for (i = 0; i < N; i++) ref[i] = &rows[i];
        for (i = 1; i < N; i++) { /* stable: a row moves up past rows it is above, only */
            const prof_avg *r = ref[i];
            for (j = i; j > 0 && ref_above(r, ref[j - 1], key); j--) ref[j] = ref[j - 1];
            ref[j] = r;
        }
        t->key = (uint64_t *)malloc(N * sizeof *t->key);
        if (!CHECK(t->key != NULL)) break;
        for (i = 0; i < N; i++) t->key[i] = prof__sort_key_of(&rows[i], (int)key); /* (as prof__tb_scan makes them) */
        t->rows_in = rows;
        t->n = N;
        t->sort_key = key;
        t->order = NULL;
        CHECK_EQ_INT(prof__tb_sort(t), 0);
        if (CHECK(t->order != NULL))
            for (i = 0; i < N; i++) bad += &rows[t->order[i]] != ref[i];
        free(t->key);
        free(t->order);
    }
    if (bad) fprintf(stderr, "the table's sort: %zu rows out of place\n", bad);
    CHECK_EQ_INT(bad, 0);
    free(rows);
    free(ref);
    free(t);
}

int main(void) {
    prof_events *ev;
    size_t lines = 0;
    prof_set_log(check_log, NULL);
    ev = make_list(20000);
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    check_folded(ev, &lines);
    printf("%zu events, %zu distinct folded lines\n", prof_events_count(ev), lines);
    check_grouped(ev, 1);
    check_grouped(ev, 2);
    check_grouped(ev, 3);
    check_grouped(ev, 5);
    check_grouped(ev, 12);
    prof_events_free(ev);
    /* big enough for key_averages' memos, reserved rows and rows' stacks
       to be the huge-page allocations (2 MB and more each) */
    ev = make_list(150000);
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK((ev->nnodes + 1) * sizeof(prof__gmemo) >= PROF__HUGE && (prof_events_count(ev) / 8 + 64) * sizeof(prof_avg) >= PROF__HUGE);
    check_grouped(ev, 5);
    prof_events_free(ev);
    check_table_sort();
    frames = DISTINCT_FRAMES;
    nframes = NDISTINCT;
    ev = make_list(20000);
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    check_folded(ev, &lines);
    printf("%zu events, %zu distinct folded lines (frames that print apart)\n", prof_events_count(ev), lines);
    check_grouped(ev, 2);
    check_grouped(ev, 5);
    prof_events_free(ev);
    /* without extra records: self times by parents, and the same rows */
    frames = FRAMES;
    nframes = NFRAMES;
    with_extras = 0;
    {
        int back;
        for (back = 0; back < 2; back++) {
            ev = make_deep(60000, back);
            if (!CHECK(ev != NULL)) return check_report();
            CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
            CHECK(ev->nex <= 1 && ev->nnodes > ev->nsites); /* the case meant */
            check_grouped(ev, 1);
            check_grouped(ev, 3);
            check_grouped(ev, 5);
            check_grouped(ev, 9);
            prof_events_free(ev);
        }
        ev = make_list(150000);
        if (!CHECK(ev != NULL)) return check_report();
        CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
        CHECK(ev->nex <= 1 && ev->nnodes > ev->nsites);
        check_grouped(ev, 2);
        check_grouped(ev, 5);
        prof_events_free(ev);
    }
    ev = make_saturating();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    check_grouped(ev, 1);
    {
        prof_event e;
        CHECK_EQ_INT(prof_events_get(ev, 2, &e), PROF_OK);
        CHECK_EQ_INT(e.self_cpu_time_total_ns, 4 - (int64_t)0x4c00000000000000ll); /* the list is as meant */
    }
    prof_events_free(ev);
    return check_report();
}
