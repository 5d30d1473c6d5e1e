/* prof_stop's ordering of one thread's run (prof__run_place) against a
   frozen copy of it (session 16's: three passes over the whole run,
   forward, backward, each event to its place), for any change of the
   ordering: session 17 tried placing subtrees window by window as the
   forward pass went (shifting those an enclosing scope took, putting
   them back when a check failed later), passed this, and was dropped:
   ~3% faster on flat runs, 35% slower under one enclosing scope; and a
   placement cycle holding two events in turns (6 instructions an event
   fewer, ~0.8 ns slower on random trees: its exits mispredicted). Random
   runs in end order: forests of random depth and fan-out, one scope
   enclosing all, epochs of steps, many leaves under one root, chains 10k
   deep, ties (zero gaps, zero lengths, a child sharing its parent's
   start or end), names shared by two sites (PROF__T_DUPS), backward
   scopes (PROF__T_BACKWARD); and the same runs with one event's times
   broken somewhere (not nested: the reference fails, prof__run_place
   must fail too with the run back in end order). Both must give
   byte-identical events and the same flags. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ref_order_ok(const prof__ev *ev, const prof__place_ent *s, const prof__place_ent *v) {
    /* v follows sibling s: PyTorch's stack drops s (and its subtree), and
       the last event of s's subtree comes before v in (start, -end) order */
    const prof__ev *se = &ev[s->k], *ve = &ev[v->k], *su = &ev[s->u];
    return (ve->start >= se->end || ve->end > se->end) && (su->start < ve->start || (su->start == ve->start && su->end >= ve->end));
}
static int ref_run_place(const prof_events *e, prof__ev *ev, size_t n, prof__place_ent **stk, size_t *capstk, unsigned *seen) {
    size_t top = 0, k, i;
    prof__place_ent *s = *stk;
    int32_t node_id;
    unsigned f = 0;
    if (!n) return 1;
    for (k = 0; k < n; k++) {
        int64_t start = ev[k].start, end = ev[k].end;
        size_t p = top, j;
        prof__place_ent *t;
        uint32_t lo = (uint32_t)k;
        while (p > 0 && ev[s[p - 1].k].start >= start) p--;
        if (p < top) {
            lo = s[p].lo;
            for (j = p; j < top; j++) {
                if (!(ev[s[j].k].start < end && ev[s[j].k].end <= end)) return 0;
                if (j > p && !ref_order_ok(ev, &s[j - 1], &s[j])) return 0;
                ev[s[j].k].parent = (int32_t)k;
            }
        }
        if (ev[k].scope == 1) f |= PROF__T_BACKWARD;
        ev[k].parent = -1;
        ev[k].first_child = (int32_t)lo;
        if (top == p && p + 1 > *capstk) { /* (children popped: room already) */
            if (!prof__grow((void *)stk, capstk, p + 1, sizeof **stk)) return -1;
            s = *stk;
        }
        t = &s[p];
        t->u = p < top ? s[top - 1].u : (uint32_t)k; /* read before t (s[p]) is written */
        t->k = (uint32_t)k;
        t->lo = lo;
        top = p + 1;
    }
    for (k = 1; k < top; k++) /* the roots */
        if (!ref_order_ok(ev, &s[k - 1], &s[k])) return 0;
    /* backward: depth in node_id, final links */
    for (i = n; i-- > 0;) {
        prof__ev *v = &ev[i];
        int32_t p = v->parent, lo = v->first_child, depth = 0, prep = -1, pre;
        if (p >= 0) {
            prep = ev[p].first_child - 1; /* p has a child: its first is at its place + 1 */
            depth = ev[p].node_id + 1;
        }
        pre = lo + depth;
        if (p >= 0 && pre == prep + 1 && prof__same_name(e, &ev[p], v)) f |= PROF__T_DUPS;
        v->parent = prep;
        v->first_child = lo < (int32_t)i ? pre + 1 : -1;
        v->next_sibling = p >= 0 && (int32_t)i + 1 < p ? pre + (int32_t)i - lo + 1 : -1;
        v->node_id = depth;
    }
    /* each to its place: an event not moved yet is at its end-order index */
    node_id = e->with_node_id ? e->node_id : -1;
    for (i = 0; i < n; i++) {
        prof__ev t;
        size_t d, from = i;
        if (ev[i].flags & PROF__F_PLACED) { ev[i].flags = (uint16_t)(ev[i].flags & ~PROF__F_PLACED); continue; }
        t = ev[i];
        for (;;) {
            prof__ev u;
            d = t.first_child >= 0 ? (size_t)t.first_child - 1 : from + (size_t)t.node_id;
            t.node_id = node_id;
            if (d == i) { ev[i] = t; break; }
            u = ev[d];
            t.flags = (uint16_t)(t.flags | PROF__F_PLACED);
            ev[d] = t;
            t = u;
            from = d;
        }
    }
    *seen |= f;
    return 1;
}

static uint64_t g_seed = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    g_seed ^= g_seed << 13;
    g_seed ^= g_seed >> 7;
    g_seed ^= g_seed << 17;
    return g_seed;
}
static unsigned rn(unsigned m) { return m ? (unsigned)(rnd() % m) : 0; }

static prof__ev *g_ev;
static size_t g_n, g_cap;
static int64_t g_cur;
static int32_t g_node0; /* the decode's node_id */
static int g_ties;      /* zero gaps allowed */

static void emit(int64_t start, int64_t end) {
    prof__ev *v;
    if (g_n == g_cap) {
        g_cap = g_cap ? 2 * g_cap : 1024;
        g_ev = (prof__ev *)realloc(g_ev, g_cap * sizeof *g_ev);
        if (!g_ev) abort();
    }
    v = &g_ev[g_n++];
    memset(v, 0, sizeof *v);
    v->start = start;
    v->end = end;
    v->site = rn(4);
    v->thread = 0;
    v->parent = v->first_child = v->next_sibling = -1;
    v->node_id = g_node0;
    v->extra = (uint32_t)g_n;
    v->scope = rn(50) == 0 ? 1 : 0;
    v->flags = (uint16_t)(rn(2) ? PROF__F_USER_ANN : 0);
}
static int64_t gap(void) { return g_ties ? (int64_t)rn(3) : 1 + (int64_t)rn(3); }
/* a subtree in end order (its children first); fan[d]: children at depth d */
static void tree(int d, const unsigned *fan, int maxd, size_t budget) {
    int64_t start = g_cur;
    unsigned c, nc = d < maxd ? rn(fan[d] + 1) : 0;
    g_cur += gap();
    for (c = 0; c < nc && g_n < budget; c++) tree(d + 1, fan, maxd, budget);
    g_cur += gap();
    emit(start, g_cur);
    g_cur += gap();
}
/* a chain `depth` deep (each scope the only child of the next), end order */
static void chain(size_t depth) {
    size_t i, first = g_n;
    int64_t s0 = g_cur;
    for (i = 0; i < depth; i++) emit(0, 0);
    for (i = 0; i < depth; i++) { /* the innermost first */
        g_ev[first + i].start = s0 + (int64_t)(depth - i);
        g_ev[first + i].end = s0 + 2 * (int64_t)depth + (int64_t)i + 2;
    }
    g_cur = s0 + 3 * (int64_t)depth + 4;
}

static prof_site g_sites[4];
static prof_events g_e;

static int same_ev(const prof__ev *a, const prof__ev *b, int links) {
    if (links) return memcmp(a, b, sizeof *a) == 0;
    return a->start == b->start && a->end == b->end && a->site == b->site && a->thread == b->thread && a->node_id == b->node_id &&
           a->extra == b->extra && a->device_type == b->device_type && a->scope == b->scope && a->flags == b->flags;
}
static size_t g_runs, g_fails, g_large;
#define LARGE 32768 /* events: a run past the caches (where a change would go another way) */
/* both on copies of g_ev[0..g_n) */
static void compare(const char *what) {
    size_t n = g_n, i, cap1 = 0, cap2 = 0, bad = 0;
    prof__ev *a = (prof__ev *)malloc(n * sizeof *a + 1), *b = (prof__ev *)malloc(n * sizeof *b + 1);
    prof__place_ent *s1 = NULL, *s2 = NULL;
    unsigned seen1 = 0, seen2 = 0;
    int r1, r2;
    if (!a || !b) abort();
    memcpy(a, g_ev, n * sizeof *a);
    memcpy(b, g_ev, n * sizeof *b);
    r1 = ref_run_place(&g_e, a, n, &s1, &cap1, &seen1);
    r2 = prof__run_place(&g_e, b, n, &s2, &cap2, &seen2);
    g_runs++;
    g_fails += r1 == 0;
    g_large += n >= LARGE;
    CHECK_EQ_INT(r2, r1);
    if (r1 == 1) CHECK_EQ_INT((int)seen2, (int)seen1);
    for (i = 0; i < n; i++)
        if (!same_ev(&a[i], &b[i], r1 == 1)) bad++;
    if (r1 == 0) /* the input's order, untouched but for the links */
        for (i = 0; i < n; i++)
            if (!same_ev(&g_ev[i], &b[i], 0)) bad++;
    if (bad) fprintf(stderr, "%s: n %zu, r %d: %zu events differ\n", what, n, r1, bad);
    CHECK(bad == 0);
    free(a);
    free(b);
    free(s1);
    free(s2);
}
/* the run as it is, then with one event's times broken */
static void both(const char *what) {
    size_t i, k;
    prof__ev keep;
    compare(what);
    for (i = 0; i < 3 && g_n > 1; i++) {
        k = i == 0 ? g_n - 1 - rn((unsigned)(g_n < 50 ? g_n : 50)) : rn((unsigned)g_n);
        keep = g_ev[k];
        switch (rn(3)) {
        case 0: g_ev[k].start -= 1 + (int64_t)rn(20); break;
        case 1: g_ev[k].end += 1 + (int64_t)rn(20); break;
        default: g_ev[k].start = g_ev[k].end + 1 + (int64_t)rn(5); break; /* ends before it starts */
        }
        compare(what);
        g_ev[k] = keep;
    }
}
static void begin(void) {
    g_n = 0;
    g_cur = 1000;
    g_ties = rn(3) == 0;
    g_e.with_node_id = (int)rn(2);
    g_e.node_id = (int)rn(100);
    g_node0 = g_e.with_node_id ? g_e.node_id : -1;
}

int main(void) {
    static const unsigned bench[4] = { 4, 4, 4, 0 }, wide[3] = { 2000, 6, 3 }, flat[1] = { 60000 };
    unsigned fan[8];
    int it, d;
    prof_set_log(check_log, NULL);
    g_sites[0].name = "x";
    g_sites[1].name = "y";
    g_sites[2].name = g_sites[0].name; /* another site, the same name */
    g_sites[3].name = "z";
    g_e.sites = g_sites;
    g_e.nsites = 4;
    for (it = 0; it < check_scale(40, 5); it++) { /* fewer under valgrind and the sanitizers */
        size_t target = it < 8 ? 200 + rn(30000) : 33000 + rn(120000);
        int maxd = 1 + (int)rn(8);
        for (d = 0; d < 8; d++) fan[d] = 1 + rn(d == 0 ? 50 : 8);
        /* a random forest */
        begin();
        while (g_n < target) tree(0, fan, maxd, target);
        both("forest");
        /* the same under one enclosing scope */
        begin();
        while (g_n < target) tree(1, fan, maxd, target);
        emit(0, g_cur + 1);
        both("enclosed");
    }
    for (it = 0; it < check_scale(6, 3); it++) {
        /* the bench's loop, with and without an enclosing scope */
        begin();
        while (g_n < 100000) tree(0, bench, 3, 100000);
        both("bench");
        emit(0, g_cur + 1);
        both("bench enclosed");
        /* epochs of steps: scopes that take placed subtrees mid-run */
        begin();
        while (g_n < 150000) tree(0, wide, 2, 150000);
        both("epochs");
        emit(0, g_cur + 1);
        both("epochs enclosed");
        /* leaves under one root */
        begin();
        tree(0, flat, 1, 60001);
        both("flat");
        /* chains 10k deep, with forests between */
        begin();
        chain(10000);
        while (g_n < 20000) tree(0, bench, 3, 20000);
        chain(10000);
        chain(5000 + rn(5000));
        while (g_n < 50000) tree(0, bench, 3, 50000);
        both("chains");
        emit(0, g_cur + 1);
        both("chains enclosed");
    }
    printf("# %zu runs, %zu not nested, %zu of %d events or more\n", g_runs, g_fails, g_large, LARGE);
    CHECK(g_fails > 0 && g_large > 0);
    free(g_ev);
    return check_report();
}
