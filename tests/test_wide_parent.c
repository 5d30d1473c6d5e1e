/* The JSON trace's sub-ns ends under a parent of more than 4096 children.
   An event that touches its bound (its parent's written end, or its
   follower's start) is trimmed by the chain of last children that end
   with it (prof__sub_end). The tree links first children and next
   siblings only, and the walk to a last child once gave up past 4096
   siblings: a 1 ns last child in such a parent's last ns, the parent
   touching its follower, was then written with dur 0, ending exactly at
   its parent's end (HTA drops dur <= 0; every other event of a trace
   keeps a positive dur inside its parent). Past 4096 siblings the path now
   indexes every event's last child once.
   Shapes, each parsed as doubles (ts + dur, as a viewer adds them) and
   loaded by DevTools' trace engine where node and tests/js are there
   (cwd = repo root):
   - wide.json: P with N children, its last child LAST 1 ns in P's last
     ns, P touching its follower F;
   - wide_chain.json: G with N children whose last, Q, has N children whose
     last is 1 ns in the last ns of both, G touching its follower H (the
     walk passes two wide parents; the index is made once);
   - both through the fast path and prof__w_event (the same bytes). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/wide_parent"
#define KIDS 5000

static char names[2][KIDS][16];

/* n children of [s, s + n * 100) named prefix%d, 50 ns each */
static void kids(prof_events *ev, int set, char prefix, int64_t s, int n) {
    int i;
    for (i = 0; i < n; i++) {
        snprintf(names[set][i], sizeof names[set][i], "%c%d", prefix, i);
        check_add_event(ev, names[set][i], 1, s + (int64_t)i * 100, s + (int64_t)i * 100 + 50);
    }
}

static const check_xev *find(const check_xev *x, int n, const char *name) {
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(x[i].name, name) == 0) return &x[i];
    (void)CHECK_MSG(0, "event %s not in the trace", name);
    return NULL;
}

/* a strictly inside b, with a positive dur */
static void inside(const check_xev *a, const check_xev *b, const char *file) {
    if (!a || !b) return;
    CHECK_MSG(a->end > a->ts, "%s: %s has dur %.9f", file, a->name, a->end - a->ts);
    CHECK_MSG(a->ts >= b->ts && a->end < b->end, "%s: %s [%.9f, %.9f] not strictly inside %s [%.9f, %.9f]", file, a->name, a->ts, a->end, b->name, b->ts, b->end);
}

/* Exports ev both ways (same bytes) and returns its X events (*n of them). */
static check_xev *export_read(prof_events *ev, const char *name, int *n) {
    char path[256];
    char *a, *b;
    check_xev *x = (check_xev *)malloc((2 * KIDS + 16) * sizeof *x);
    snprintf(path, sizeof path, OUT "/%s.json", name);
    prof__trace_fast = 0;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    b = check_read_file(path);
    prof__trace_fast = 1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    a = check_read_file(path);
    CHECK_MSG(a && b && strcmp(a, b) == 0, "%s: the fast path and prof__w_event differ", path);
    *n = a && x ? check_read_x(a, x, 2 * KIDS + 16) : 0;
    CHECK_EQ_INT(*n, (int)prof_events_count(ev));
    free(a);
    free(b);
    check_viewers_any(OUT, name);
    return x;
}

static void wide(void) {
    prof_events *ev = prof_events_create();
    check_xev *x;
    int n, i;
    check_add_event(ev, "P", 1, 0, 1000000);
    kids(ev, 0, 'k', 10, KIDS);
    check_add_event(ev, "LAST", 1, 999999, 1000000);
    check_add_event(ev, "F", 1, 1000000, 2000000);
    x = export_read(ev, "wide", &n);
    if (x && n == KIDS + 3) {
        const check_xev *p = find(x, n, "P"), *last = find(x, n, "LAST"), *f = find(x, n, "F");
        inside(last, p, "wide");
        if (p && f) CHECK_MSG(p->end < f->ts, "wide: P ends at %.9f, its follower F begins at %.9f", p->end, f->ts);
        for (i = 0; i < KIDS; i += 499) inside(find(x, n, names[0][i]), p, "wide");
    }
    free(x);
    prof_events_free(ev);
}

static void wide_chain(void) {
    prof_events *ev = prof_events_create();
    check_xev *x;
    int n;
    check_add_event(ev, "G", 1, 0, 2000000);
    kids(ev, 0, 'g', 10, KIDS);
    check_add_event(ev, "Q", 1, 600000, 2000000);
    kids(ev, 1, 'q', 600010, KIDS);
    check_add_event(ev, "LAST", 1, 1999999, 2000000);
    check_add_event(ev, "H", 1, 2000000, 3000000);
    x = export_read(ev, "wide_chain", &n);
    if (x && n == 2 * KIDS + 4) {
        const check_xev *g = find(x, n, "G"), *q = find(x, n, "Q"), *last = find(x, n, "LAST"), *h = find(x, n, "H");
        inside(q, g, "wide_chain");
        inside(last, q, "wide_chain");
        if (g && h) CHECK_MSG(g->end < h->ts, "wide_chain: G ends at %.9f, its follower H begins at %.9f", g->end, h->ts);
    }
    free(x);
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    wide();
    wide_chain();
    return check_report();
}
