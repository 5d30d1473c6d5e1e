/* The JSON trace's sub-ns ends (prof__sub_end): where the 1 ns trim that
   keeps an event's end clear of its parent's written end or its
   follower's start leaves no room, and for zero-length events, dur is
   written with up to three more decimals so that every event keeps a
   positive dur inside its parent, in the doubles a viewer parses:
   - zero-length events at their parent's start, under a chain of events
     that start together (starts.json);
   - a deep chain of events that end together, the deepest ones starting
     in the last ns, a zero-length leaf at the bottom, its root touching
     the next root (deep.json), the same ~9.7 hours from the trace's base
     (deep_far.json, where a ps is a fraction of an ulp);
   - an event that touches its follower, with a child in its last ns
     (touch.json), and 1 ns events back to back (ones.json);
   - zero-length siblings at the same ns (twins.json): what remains. Each
     needs a positive dur not to end before its parent begins, and cannot
     end before the next begins without moving a ts: both are written with
     the same dur, and a viewer shows the later inside the earlier.
   Each file is parsed here (ts + dur as doubles, as a viewer adds them:
   every event strictly inside its parent with dur > 0, ending strictly
   before a touching follower begins), written the same by the fast path
   and prof__w_event, and checked with DevTools' trace engine and
   speedscope when node and tests/js/node_modules are there (cwd = repo
   root), else those checks are skipped. Exact bytes of a few durs pin the
   format: three decimals where a whole ns does, else up to six. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/subns_nest"

/* The "dur" string written for the event named n ("" if none). */
static const char *dur_of(const char *json, const char *n, char *out, size_t cap) {
    char key[64];
    const char *p, *q;
    size_t k = 0;
    snprintf(key, sizeof key, "\"name\": \"%s\"", n);
    out[0] = 0;
    if (!(p = strstr(json, key)) || !(q = strstr(p, "\"dur\": "))) return out;
    for (q += 7; *q && *q != ',' && k + 1 < cap; q++) out[k++] = *q;
    out[k] = 0;
    return out;
}

/* ts and dur as a parser reads them, for each event in list order (names
   are unique), then the nesting the viewers need. */
static void check_nesting(prof_events *ev, const char *json, const char *what, int twins_ok) {
    size_t n = prof_events_count(ev), i;
    double *ts = (double *)calloc(n, sizeof *ts), *du = (double *)calloc(n, sizeof *du);
    prof_event e, f;
    for (i = 0; i < n; i++) {
        char key[64];
        const char *p, *q;
        CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK);
        snprintf(key, sizeof key, "\"name\": \"%s\"", e.name);
        if (!CHECK_MSG((p = strstr(json, key)) != NULL, what)) continue;
        q = strstr(p, "\"ts\": ");
        ts[i] = strtod(q + 6, NULL);
        q = strstr(p, "\"dur\": ");
        du[i] = strtod(q + 7, NULL);
    }
    for (i = 0; i < n; i++) {
        double end = ts[i] + du[i];
        CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK);
        if (!CHECK_MSG(du[i] > 0 && end > ts[i], e.name)) printf("  %s: %s dur %.9g\n", what, e.name, du[i]);
        if (e.parent >= 0) {
            CHECK_EQ_INT(prof_events_get(ev, (size_t)e.parent, &f), PROF_OK);
            if (!CHECK_MSG(ts[i] >= ts[e.parent] && end < ts[e.parent] + du[e.parent], e.name))
                printf("  %s: %s [%.9f, %.9f] not inside %s [%.9f, %.9f]\n", what, e.name, ts[i], end, f.name, ts[e.parent], ts[e.parent] + du[e.parent]);
        }
        if (i + 1 < n && prof_events_get(ev, i + 1, &f) == PROF_OK && f.parent == e.parent && f.start_ns == e.end_ns &&
            !(twins_ok && e.start_ns == e.end_ns && f.start_ns == f.end_ns)) {
            if (!CHECK_MSG(end < ts[i + 1], e.name)) printf("  %s: %s ends at %.9f, its follower %s begins at %.9f\n", what, e.name, end, f.name, ts[i + 1]);
        }
    }
    free(ts);
    free(du);
}

/* Exports ev to OUT/name.json through both paths (same bytes), checks the
   nesting, writes the viewers' expectations (parents by name; for each
   event of ev, its parent in the list's tree unless reparent names one). */
static char *export_checked(prof_events *ev, const char *name, int twins_ok, const char *moved, const char *moved_to) {
    char path[256], path2[256];
    char *a, *b;
    size_t n = prof_events_count(ev), i;
    FILE *f;
    prof_event e, p;
    snprintf(path, sizeof path, OUT "/%s.json", name);
    prof__trace_fast = 0;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    b = check_read_file(path);
    prof__trace_fast = 1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    a = check_read_file(path);
    CHECK_MSG(a && b && strcmp(a, b) == 0, path); /* the fast path and prof__w_event write the same */
    free(b);
    if (a) check_nesting(ev, a, name, twins_ok);
    snprintf(path2, sizeof path2, OUT "/%s.expect.json", name);
    f = fopen(path2, "w");
    if (CHECK(f != NULL)) {
        fprintf(f, "{\"threads\": {\"1\": {\"scopes\": {");
        for (i = 0; i < n; i++) {
            prof_events_get(ev, i, &e);
            fprintf(f, "%s\"%s\": 1", i ? ", " : "", e.name);
        }
        fprintf(f, "},\n  \"parents\": {");
        for (i = 0; i < n; i++) {
            prof_events_get(ev, i, &e);
            if (moved && !strcmp(e.name, moved)) {
                fprintf(f, "%s\"%s\": \"%s\"", i ? ", " : "", e.name, moved_to);
            } else if (e.parent >= 0) {
                prof_events_get(ev, (size_t)e.parent, &p);
                fprintf(f, "%s\"%s\": \"%s\"", i ? ", " : "", e.name, p.name);
            } else {
                fprintf(f, "%s\"%s\": null", i ? ", " : "", e.name);
            }
        }
        fprintf(f, "}}},\n \"exact_threads\": true}\n");
        fclose(f);
    }
    return a;
}

/* Builds one case's list, exports it (export_checked), pins the exact "dur"
   strings it names and runs the viewers on the file. */
typedef struct { const char *name; int64_t start, end; } span;
typedef struct { const char *name, *dur; } dur_want;
typedef struct {
    const char *file;                  /* OUT/file.json */
    const span *spans;                 /* ended by a NULL name; each moved by base */
    int64_t base;
    void (*build)(prof_events *ev);    /* instead of spans */
    int twins_ok;                      /* check_nesting's */
    const char *moved, *moved_to;      /* export_checked's */
    dur_want durs[8];                  /* ended by a NULL name */
} nest_case;

static void run_case(const nest_case *c) {
    prof_events *ev = prof_events_create();
    const span *sp;
    const dur_want *d;
    char *j, s[64];
    if (c->build) c->build(ev);
    for (sp = c->spans; sp && sp->name; sp++) check_add_event(ev, sp->name, 1, c->base + sp->start, c->base + sp->end);
    j = export_checked(ev, c->file, c->twins_ok, c->moved, c->moved_to);
    if (c->durs[0].name && CHECK(j != NULL)) {
        for (d = c->durs; d->name; d++)
            CHECK_MSG(strcmp(dur_of(j, d->name, s, sizeof s), d->dur) == 0, "%s: dur of %s is \"%s\", not \"%s\"", c->file, d->name, s, d->dur);
    }
    free(j);
    check_viewers(OUT, c->file, 1);
    prof_events_free(ev);
}

static const span starts[] = {
    {"Q", 0, 10000}, {"P", 0, 5000}, {"O", 0, 1}, {"Z", 0, 0},
    {"Y", 3000, 3000}, /* alone at its ts: a zero-length event is written with half a ns all the same */
    {"S", 20000, 30000}, {NULL, 0, 0}};
static const span deep[] = {
    {"R", 0, 100000}, {"E1", 60000, 100000}, {"E2", 99990, 100000}, {"E3", 99995, 100000},
    {"E4", 99999, 100000}, {"E5", 99999, 100000}, {"E6", 99999, 100000}, {"Z", 99999, 99999},
    {"N", 100000, 100010}, /* R touches it */
    {NULL, 0, 0}};
static const span touch[] = {
    {"A", 0, 10000}, {"F", 5000, 8000},
    {"G", 9999, 10000}, /* in A's last ns, which A's touch would trim */
    {"H", 9999, 9999}, {"B", 10000, 20000},
    {"C", 10000, 10001}, /* 1 ns, at B's start, back to back */
    {"D", 10001, 10002}, {"E", 10002, 15000}, {NULL, 0, 0}};
static const span twins[] = {{"P", 0, 10000}, {"Z1", 0, 0}, {"Z2", 0, 0}, {"Q", 20000, 30000}, {NULL, 0, 0}};

static void deep40(prof_events *ev) {
    static char names[40][16];
    int k;
    check_add_event(ev, "R", 1, 0, 100000);
    for (k = 0; k < 40; k++) { /* 40 levels in R's last ns, and each ends with it */
        snprintf(names[k], sizeof names[k], "L%d", k);
        check_add_event(ev, names[k], 1, 99999, 100000);
    }
    check_add_event(ev, "N", 1, 100000, 100010);
}

static const nest_case cases[] = {
    {"starts", starts, 0, NULL, 0, NULL, NULL,
     {{"Q", "10.000"}, /* whole ns where they nest, as ever */
      {"P", "5.000"}, {"O", "0.001"}, {"Z", "0.0005"}, {"Y", "0.0005"}, {NULL, NULL}}},
    /* R's last ns (it touches N) holds the starts of E4, E5, E6 and Z: R
       and the 7 levels of its chain below end in 9 steps of 1/9 ns (1 ns
       each took 8 ns, ending E4 before it began) */
    {"deep", deep, 0, NULL, 0, NULL, NULL,
     {{"R", "99.999889"}, {"E1", "39.999778"}, {"E2", "0.009667"}, {"E3", "0.004556"},
      {"E4", "0.000445"}, {"Z", "0.000111"}, {"N", "0.010"}, {NULL, NULL}}},
    {"deep_far", deep, (int64_t)1 << 45, NULL, 0, NULL, NULL, {{NULL, NULL}}},
    {"deep40", NULL, 0, deep40, 0, NULL, NULL,
     {{"R", "99.999977"}, /* 1 ns in 41 steps of 23 or 24 ps */
      {"L39", "0.000024"}, {NULL, NULL}}},
    {"touch", touch, 0, NULL, 0, NULL, NULL,
     {{"A", "9.99975"}, /* G, H in its last ns: 4 steps of 1/4 ns */
      {"G", "0.0005"}, {"H", "0.00025"}, {"F", "3.000"}, {"C", "0.0005"}, {"D", "0.0005"},
      {"E", "4.998"}, {NULL, NULL}}},
    {"twins", twins, 0, NULL, 1, "Z2", "Z1", /* the viewers show Z2 inside Z1 */
     {{"Z1", "0.0005"}, {"Z2", "0.0005"}, {NULL, NULL}}},
};

int main(void) {
    size_t i;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    if (!check_have_viewers()) printf("test_subns_nest: node or tests/js/node_modules missing: viewer checks skipped\n");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
    return check_report();
}
