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

static void add(prof_events *ev, const char *n, int64_t s, int64_t e) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = n; d.thread = 1; d.start_ns = s; d.end_ns = e;
    CHECK(prof_events_add(ev, &d) >= 0);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    char *b;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = (char *)malloc((size_t)n + 1);
    if (b) b[fread(b, 1, (size_t)n, f)] = 0;
    fclose(f);
    return b;
}

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
    b = slurp(path);
    prof__trace_fast = 1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    a = slurp(path);
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

static int g_node;
static void viewers(const char *name) {
    char cmd[512];
    if (!g_node) return;
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "cd tests/js && node check_trace.mjs ../../" OUT "/%s.json ../../" OUT "/%s.expect.json", name, name);
    CHECK_MSG(system(cmd) == 0, cmd);
    snprintf(cmd, sizeof cmd, "cd tests/js && node check_speedscope.mjs ../../" OUT "/%s.json ../../" OUT "/%s.expect.json", name, name);
    CHECK_MSG(system(cmd) == 0, cmd);
}

static void deep(prof_events *ev, int64_t b) {
    add(ev, "R", b, b + 100000);
    add(ev, "E1", b + 60000, b + 100000);
    add(ev, "E2", b + 99990, b + 100000);
    add(ev, "E3", b + 99995, b + 100000);
    add(ev, "E4", b + 99999, b + 100000);
    add(ev, "E5", b + 99999, b + 100000);
    add(ev, "E6", b + 99999, b + 100000);
    add(ev, "Z", b + 99999, b + 99999);
    add(ev, "N", b + 100000, b + 100010); /* R touches it */
}

int main(void) {
    prof_events *ev;
    struct stat st;
    char *j, s[64], names[40][16];
    int k;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    g_node = system("node --version >/dev/null 2>&1") == 0 && stat("tests/js/node_modules/speedscope", &st) == 0;
    if (!g_node) printf("test_subns_nest: node or tests/js/node_modules missing: viewer checks skipped\n");

    ev = prof_events_create();
    add(ev, "Q", 0, 10000);
    add(ev, "P", 0, 5000);
    add(ev, "O", 0, 1);
    add(ev, "Z", 0, 0);
    add(ev, "Y", 3000, 3000); /* alone at its ts: a zero-length event is written with half a ns all the same */
    add(ev, "S", 20000, 30000);
    j = export_checked(ev, "starts", 0, NULL, NULL);
    if (CHECK(j != NULL)) {
        CHECK_EQ_STR(dur_of(j, "Q", s, sizeof s), "10.000"); /* whole ns where they nest, as ever */
        CHECK_EQ_STR(dur_of(j, "P", s, sizeof s), "5.000");
        CHECK_EQ_STR(dur_of(j, "O", s, sizeof s), "0.001");
        CHECK_EQ_STR(dur_of(j, "Z", s, sizeof s), "0.0005");
        CHECK_EQ_STR(dur_of(j, "Y", s, sizeof s), "0.0005");
    }
    free(j);
    viewers("starts");
    prof_events_free(ev);

    ev = prof_events_create();
    deep(ev, 0);
    j = export_checked(ev, "deep", 0, NULL, NULL);
    if (CHECK(j != NULL)) {
        /* R's last ns (it touches N) holds the starts of E4, E5, E6 and Z:
           R and the 7 levels of its chain below end in 9 steps of 1/9 ns
           (1 ns each took 8 ns, ending E4 before it began) */
        CHECK_EQ_STR(dur_of(j, "R", s, sizeof s), "99.999889");
        CHECK_EQ_STR(dur_of(j, "E1", s, sizeof s), "39.999778");
        CHECK_EQ_STR(dur_of(j, "E2", s, sizeof s), "0.009667");
        CHECK_EQ_STR(dur_of(j, "E3", s, sizeof s), "0.004556");
        CHECK_EQ_STR(dur_of(j, "E4", s, sizeof s), "0.000445");
        CHECK_EQ_STR(dur_of(j, "Z", s, sizeof s), "0.000111");
        CHECK_EQ_STR(dur_of(j, "N", s, sizeof s), "0.010");
    }
    free(j);
    viewers("deep");
    prof_events_free(ev);

    ev = prof_events_create();
    deep(ev, (int64_t)1 << 45);
    free(export_checked(ev, "deep_far", 0, NULL, NULL));
    viewers("deep_far");
    prof_events_free(ev);

    ev = prof_events_create();
    add(ev, "R", 0, 100000);
    for (k = 0; k < 40; k++) { /* 40 levels in R's last ns, and each ends with it */
        snprintf(names[k], sizeof names[k], "L%d", k);
        add(ev, names[k], 99999, 100000);
    }
    add(ev, "N", 100000, 100010);
    j = export_checked(ev, "deep40", 0, NULL, NULL);
    if (CHECK(j != NULL)) {
        CHECK_EQ_STR(dur_of(j, "R", s, sizeof s), "99.999977"); /* 1 ns in 41 steps of 23 or 24 ps */
        CHECK_EQ_STR(dur_of(j, "L39", s, sizeof s), "0.000024");
    }
    free(j);
    viewers("deep40");
    prof_events_free(ev);

    ev = prof_events_create();
    add(ev, "A", 0, 10000);
    add(ev, "F", 5000, 8000);
    add(ev, "G", 9999, 10000); /* in A's last ns, which A's touch would trim */
    add(ev, "H", 9999, 9999);
    add(ev, "B", 10000, 20000);
    add(ev, "C", 10000, 10001); /* 1 ns, at B's start, back to back */
    add(ev, "D", 10001, 10002);
    add(ev, "E", 10002, 15000);
    j = export_checked(ev, "touch", 0, NULL, NULL);
    if (CHECK(j != NULL)) {
        CHECK_EQ_STR(dur_of(j, "A", s, sizeof s), "9.99975"); /* G, H in its last ns: 4 steps of 1/4 ns */
        CHECK_EQ_STR(dur_of(j, "G", s, sizeof s), "0.0005");
        CHECK_EQ_STR(dur_of(j, "H", s, sizeof s), "0.00025");
        CHECK_EQ_STR(dur_of(j, "F", s, sizeof s), "3.000");
        CHECK_EQ_STR(dur_of(j, "C", s, sizeof s), "0.0005");
        CHECK_EQ_STR(dur_of(j, "D", s, sizeof s), "0.0005");
        CHECK_EQ_STR(dur_of(j, "E", s, sizeof s), "4.998");
    }
    free(j);
    viewers("touch");
    prof_events_free(ev);

    ev = prof_events_create();
    add(ev, "P", 0, 10000);
    add(ev, "Z1", 0, 0);
    add(ev, "Z2", 0, 0);
    add(ev, "Q", 20000, 30000);
    j = export_checked(ev, "twins", 1, "Z2", "Z1"); /* the viewers show Z2 inside Z1 */
    if (CHECK(j != NULL)) {
        CHECK_EQ_STR(dur_of(j, "Z1", s, sizeof s), "0.0005");
        CHECK_EQ_STR(dur_of(j, "Z2", s, sizeof s), "0.0005");
    }
    free(j);
    viewers("twins");
    prof_events_free(ev);
    return check_report();
}
