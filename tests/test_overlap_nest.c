/* The JSON trace's "X" events nest in doubles on threads that have events
   overlapping without nesting (written as "b"/"e" pairs). A viewer nests
   the "X" events of a thread by time alone, the pairs on tracks of their
   own, and that nesting is not the tree's: the dur trims that keep an end
   clear of its parent's end or its follower's start were taken from the
   tree, so an event could end an ulp after one it lies inside, or after
   the start of one that follows it on the lane:
   - P [1290, 1400], A [1380, 1750] overlapping it (a pair), B [1400, 1740]
     A's child: B begins where P ends, but B is no sibling of P: P was
     written to end at 1.4000000000000001, after B's ts 1.4;
   - Q [2130, 2180], O [2140, 2190] overlapping it, C [2140, 2180] O's child
     in the tree but inside Q on the lane, ending with Q: C ended after Q.
   Expected: the bounds come from the lane (prof__lane_durs). Checked on
   these two (exact durs), and on 2000 seeded random lists (touching,
   equal, zero-length and overlapping events; whole ns and 10 ns steps,
   2^44 ns from the base, and just below 2^50 ns): every "X" event's dur > 0, and on each
   thread, in (ts, -dur) order, each ends within the innermost one still
   open at its ts, as the doubles a parser reads add up; and the fast
   runs of the writer write the same bytes as prof__w_event alone. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/overlap_nest.json"

typedef struct xev { long pid, tid; double ts, dur; char name[16]; } xev;
static int xev_less(const void *a, const void *b) {
    const xev *x = (const xev *)a, *y = (const xev *)b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->dur > y->dur ? -1 : x->dur < y->dur;
}
/* The "X" events of the trace at OUT (one per line), nested per lane (a
   thread, or a device's stream: pid and tid);
   returns the number of faults (printed, the first few). */
static int check_lanes(const char *what) {
    char *text = check_read_file(OUT), *line, *next;
    xev *x = NULL, *st[256];
    size_t n = 0, cap = 0, i;
    int bad = 0, d = 0;
    if (!CHECK_MSG(text != NULL, "%s", what)) return 1;
    for (line = text; line && *line; line = next) {
        const char *p;
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (!strstr(line, "\"ph\": \"X\"") || !(p = strstr(line, "\"tid\": "))) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            x = (xev *)realloc(x, cap * sizeof *x);
            if (!x) abort();
        }
        x[n].tid = strtol(p + 7, NULL, 10);
        if (!CHECK_MSG((p = strstr(line, "\"pid\": ")) != NULL, "%s", what)) break;
        x[n].pid = strtol(p + 7, NULL, 10);
        if (!CHECK_MSG((p = strstr(line, "\"ts\": ")) != NULL, "%s", what)) break;
        x[n].ts = strtod(p + 6, NULL);
        if (!CHECK_MSG((p = strstr(line, "\"dur\": ")) != NULL, "%s", what)) break;
        x[n].dur = strtod(p + 7, NULL);
        p = strstr(line, "\"name\": \"");
        snprintf(x[n].name, sizeof x[n].name, "%.*s", p ? (int)strcspn(p + 9, "\"") : 1, p ? p + 9 : "?");
        n++;
    }
    qsort(x, n, sizeof *x, xev_less);
    for (i = 0; i < n; i++) {
        const double end = x[i].ts + x[i].dur;
        if (i && (x[i].tid != x[i - 1].tid || x[i].pid != x[i - 1].pid)) d = 0;
        if (!(x[i].dur > 0)) {
            if (bad++ < 5) printf("  %s: %s has dur %.17g\n", what, x[i].name, x[i].dur);
        }
        while (d > 0 && x[i].ts >= st[d - 1]->ts + st[d - 1]->dur) d--;
        if (d > 0 && end > st[d - 1]->ts + st[d - 1]->dur) {
            if (bad++ < 5)
                printf("  %s: %s [%.17g, %.17g] begins inside %s [%.17g, %.17g] and ends after it\n", what, x[i].name, x[i].ts, end, st[d - 1]->name,
                       st[d - 1]->ts, st[d - 1]->ts + st[d - 1]->dur);
        }
        if (d < 256) st[d++] = &x[i];
    }
    free(x);
    free(text);
    return bad;
}
/* The "dur" written for the event named n ("" if none). */
static const char *dur_of(const char *n, char *out, size_t cap) {
    char key[64], *json = check_read_file(OUT);
    const char *p, *q;
    size_t k = 0;
    snprintf(key, sizeof key, "\"name\": \"%s\"", n);
    out[0] = 0;
    if (json && (p = strstr(json, key)) && (q = strstr(p, "\"dur\": ")))
        for (q += 7; *q && *q != ',' && k + 1 < cap; q++) out[k++] = *q;
    out[k] = 0;
    free(json);
    return out;
}
static uint64_t rng;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
static int64_t R(int n) { return (int64_t)(rnd() % (uint32_t)n); }
/* A seeded random list (touching, equal, zero-length and overlapping
   events; whole ns and 10 ns steps; from 1 us, 2^44 ns, or just below 2^50
   ns, where a double's step in us is 2^-12, a quarter ns: sub-ns ends
   there came out an ulp late) on two threads, a third of its events
   kernels on two streams where `kernels`. */
static prof_events *seeded_list(uint64_t seed, uint64_t salt, int kernels) {
    const int64_t g = seed % 3 == 0 ? 1 : 10;
    int64_t base;
    int n, i;
    prof_events *ev = prof_events_create();
    rng = seed * 0x9E3779B97F4A7C15ull + salt;
    base = (seed % 7 == 0 && !kernels ? ((int64_t)1 << 50) - 10000 : seed % 5 == 0 ? (int64_t)1 << 44 : 1000) + g * R(100);
    n = 2 + (int)R(60);
    for (i = 0; i < n; i++) {
        char name[16];
        const int64_t st = base + g * R(40), len = R(3) ? g * R(6) : g * R(30);
        snprintf(name, sizeof name, "e%d", i);
        if (kernels && R(3) == 0) check_add_kernel(ev, name, 0, 7 + R(2), st, st + len);
        else check_add_event(ev, name, 1 + (uint64_t)R(2), st, st + len);
    }
    return ev;
}

int main(void) {
    prof_events *ev;
    char s[64];
    uint64_t seed;
    int bad = 0, with_pairs = 0;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);

    ev = prof_events_create();
    check_add_event(ev, "P", 1, 1290, 1400);
    check_add_event(ev, "A", 1, 1380, 1750); /* overlaps P: a pair */
    check_add_event(ev, "B", 1, 1400, 1740); /* A's child, begins where P ends */
    check_add_event(ev, "Q", 1, 2130, 2180);
    check_add_event(ev, "O", 1, 2140, 2190); /* overlaps Q */
    check_add_event(ev, "C", 1, 2140, 2180); /* O's child in the tree; inside Q, ends with Q */
    check_add_event(ev, "D", 2, 2140, 2180); /* another thread, as the tree has it */
    check_add_event(ev, "E", 2, 2150, 2180);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT), PROF_OK);
    CHECK_EQ_INT(check_lanes("P, A, B; Q, O, C"), 0);
    CHECK_EQ_STR(dur_of("P", s, sizeof s), "0.109"); /* 1 ns short of B */
    CHECK_EQ_STR(dur_of("B", s, sizeof s), "0.340");
    CHECK_EQ_STR(dur_of("Q", s, sizeof s), "0.050");
    CHECK_EQ_STR(dur_of("C", s, sizeof s), "0.039"); /* 1 ns short of Q's end */
    CHECK_EQ_STR(dur_of("D", s, sizeof s), "0.040");
    CHECK_EQ_STR(dur_of("E", s, sizeof s), "0.029"); /* (as ever) */
    prof_events_free(ev);

    /* a chain that ends together at its follower's start just below 2^50 ns
       (a fuzz's list, reduced): its sub-ns ends, a quarter ns apart where
       a double's step is a quarter ns, came out with E3 ending an ulp after
       E2, which it lies in */
    {
        const int64_t b = 1125899906833689; /* > 2^40 us */
        ev = prof_events_create();
        check_add_event(ev, "E0", 1, b, b + 5);
        check_add_event(ev, "E1", 1, b + 3, b + 5);
        check_add_event(ev, "E2", 1, b + 3, b + 5);
        check_add_event(ev, "E3", 1, b + 4, b + 5);
        check_add_event(ev, "E4", 1, b + 4, b + 5);
        check_add_event(ev, "E5", 1, b + 4, b + 4);
        check_add_event(ev, "E6", 1, b + 5, b + 6);
        CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT), PROF_OK);
        CHECK_EQ_INT(check_lanes("a chain below 2^50 ns"), 0);
        prof_events_free(ev);
    }

    /* an event in the near range inside a lane parent that begins in the
       far one (before -2^40 us), both ending at the same ns, on a stream
       and on a thread with a pair: the parent had no written dur on the
       lane, and the child was not bounded by it at all */
    {
        const int64_t far = 1099511627776000; /* 2^40 us in ns */
        int dev;
        for (dev = 0; dev < 2; dev++) {
            ev = prof_events_create();
            if (dev) {
                check_add_kernel(ev, "OUTER", 0, 7, -far - 10, -far + 70);
                check_add_kernel(ev, "INNER", 0, 7, -far + 20, -far + 70);
            } else {
                check_add_event(ev, "OUTER", 1, -far - 10, -far + 70);
                check_add_event(ev, "INNER", 1, -far + 20, -far + 70);
                check_add_event(ev, "OVL", 1, -far + 60, -far + 100); /* overlaps OUTER: a pair */
            }
            CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT), PROF_OK);
            CHECK_EQ_INT(check_lanes(dev ? "a far kernel's child" : "a far lane parent's child"), 0);
            CHECK_EQ_STR(dur_of("INNER", s, sizeof s), "0.049"); /* 1 ns short of OUTER's end */
            prof_events_free(ev);
        }
    }

    /* kernels nested on one stream that end together where the next one
       begins: each was trimmed as if alone (K0 and K1 to 1 ns short of
       K3's start, K2 to half a ns): K2 ended after K1 and K0. A device's
       events have no tree; their stream's nesting bounds them. */
    ev = prof_events_create();
    check_add_kernel(ev, "K0", 0, 7, 1000, 1030);
    check_add_kernel(ev, "K1", 0, 7, 1010, 1030);
    check_add_kernel(ev, "K2", 0, 7, 1029, 1030);
    check_add_kernel(ev, "K3", 0, 7, 1030, 1040);
    check_add_kernel(ev, "K4", 0, 8, 1000, 1030); /* another stream: alone */
    check_add_kernel(ev, "K5", 0, 8, 1030, 1031);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT), PROF_OK);
    CHECK_EQ_INT(check_lanes("kernels nested on a stream"), 0);
    /* K2 begins in the last ns: the chain's ends are spread over it in
       quarter-ns steps, as a thread's chain is (prof__sub_end) */
    CHECK_EQ_STR(dur_of("K0", s, sizeof s), "0.02975");
    CHECK_EQ_STR(dur_of("K1", s, sizeof s), "0.0195");
    CHECK_EQ_STR(dur_of("K2", s, sizeof s), "0.00025");
    CHECK_EQ_STR(dur_of("K3", s, sizeof s), "0.010");
    CHECK_EQ_STR(dur_of("K4", s, sizeof s), "0.029");
    prof_events_free(ev);

    /* 500 seeded lists with a third of their events kernels on two streams */
    for (seed = 1; seed <= (uint64_t)check_scale(500, 10); seed++) {
        char what[64];
        ev = seeded_list(seed, 11, 1);
        CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT), PROF_OK);
        snprintf(what, sizeof what, "device seed %llu", (unsigned long long)seed);
        bad += check_lanes(what);
        prof_events_free(ev);
    }

    for (seed = 1; seed <= (uint64_t)check_scale(2000, 10); seed++) {
        char what[64], *slow;
        ev = seeded_list(seed, 7, 0);
        prof__trace_fast = 0; /* every event through prof__w_event ... */
        CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT), PROF_OK);
        slow = check_read_file(OUT);
        prof__trace_fast = 1; /* ... and through the fast runs where they may: the same bytes */
        CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT), PROF_OK);
        {
            char *t = check_read_file(OUT);
            if (t && strstr(t, "\"ph\": \"b\"")) with_pairs++;
            if (!CHECK(t && slow && strcmp(t, slow) == 0)) printf("  seed %llu: the fast path wrote other bytes\n", (unsigned long long)seed);
            free(t);
            free(slow);
        }
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
        bad += check_lanes(what);
        prof_events_free(ev);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(with_pairs * 2 > (int)check_scale(2000, 10)); /* the lists do overlap (1804 of 2000) */
    printf("%d of the lists had pairs\n", with_pairs);
    return check_report();
}
