/* PROF_SCOPE_DYN's names at their edges: the wrapper takes the length and
   the recorder copies the name into the record stream in words, so a name
   must come back whole whatever its length (around the word and record
   sizes, around the 4 KiB limit past which it is interned per site
   instead, huge), whatever is left of the thread's block when it is copied
   (many names of mixed lengths cross block ends), a NULL name is an empty
   one, at the cap the dropped scopes' names cost nothing and the kept
   ones are intact, and many call sites sharing names keep their own. */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static prof_config config(void) {
    prof_config c;
    memset(&c, 0, sizeof c);
    c.log = check_log;
    return c;
}
/* Name number i of length len: distinct per (i, len), no NUL inside. */
static void fill(char *s, size_t len, size_t i) {
    size_t k;
    for (k = 0; k < len; k++) s[k] = (char)('!' + (k * 13 + i * 7 + len) % 93);
    s[len] = 0;
}
static void dyn(const char *name) { PROF_SCOPE_DYN(name); }

/* Every event's name against fill(i, lens[i]); returns the mismatches. */
static size_t compare(prof_events *ev, const size_t *lens, size_t n, char *want) {
    size_t i, bad = 0;
    for (i = 0; i < n && i < prof_events_count(ev); i++) {
        prof_event e;
        memset(&e, 0, sizeof e);
        prof_events_get(ev, i, &e);
        fill(want, lens[i], i);
        if (!e.name || strcmp(e.name, want) != 0) {
            if (bad++ < 3) fprintf(stderr, "event %zu: a name of %zu bytes came back as %zu bytes\n", i, lens[i], e.name ? strlen(e.name) : 0);
        }
    }
    return bad;
}

static void test_lengths(void) {
    enum { HUGE_LEN = 1 << 20 };
    static const size_t edges[] = { 0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 23, 24, 25, 47, 48, 49,
                                    4071, 4072, 4073, 4087, 4088, 4094, 4095, 4096, 4097, 4119, 4120, 4121, 8191, HUGE_LEN };
    enum { NE = sizeof edges / sizeof edges[0] };
    prof_config c = config();
    prof_events *ev;
    char *name = (char *)malloc(HUGE_LEN + 1), *want = (char *)malloc(HUGE_LEN + 1);
    size_t i;
    if (!CHECK(name && want)) { free(name); free(want); return; }
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < NE; i++) {
        fill(name, edges[i], i);
        dyn(name);
        memset(name, 'x', edges[i]); /* the copy must already be taken */
    }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK_EQ_INT(prof_events_count(ev), NE);
        CHECK_EQ_INT(compare(ev, edges, NE, want), 0);
        prof_events_free(ev);
    }
    free(name);
    free(want);
}

/* 30000 names of 1-300 bytes: about 9 MB of records, so names are copied
   at every offset of several blocks, and fall back where one does not fit. */
static void test_block_ends(void) {
    enum { N = 30000 };
    prof_config c = config();
    prof_events *ev;
    size_t *lens = (size_t *)malloc(N * sizeof *lens), i;
    char name[512], want[512];
    uint32_t r = 12345;
    if (!CHECK(lens != NULL)) return;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < N; i++) {
        r = r * 1103515245u + 12345u;
        lens[i] = 1 + (r >> 8) % 300;
        fill(name, lens[i], i);
        dyn(name);
    }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        CHECK_EQ_INT(prof_events_count(ev), N);
        CHECK_EQ_INT(compare(ev, lens, N, want), 0);
        prof_events_free(ev);
    }
    free(lens);
}

static void test_null_name(void) {
    prof_config c = config();
    prof_events *ev;
    const char *none = NULL;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    dyn(none);
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        prof_event e;
        CHECK_EQ_INT(prof_events_count(ev), 1);
        if (CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK)) CHECK_EQ_STR(e.name, "");
        prof_events_free(ev);
    }
}

/* The cap: 5000 scopes with 200-byte names, room for 300 events. The kept
   ones' names are whole, and the scopes add up. */
static void test_cap(void) {
    enum { N = 5000, LEN = 200 };
    prof_config c = config();
    prof_events *ev;
    size_t lens[N], i;
    char name[LEN + 1], want[LEN + 1];
    c.max_events = 300;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (i = 0; i < N; i++) {
        lens[i] = LEN;
        fill(name, LEN, i);
        dyn(name);
    }
    ev = prof_stop();
    if (CHECK(ev != NULL)) {
        prof_stats s = prof_events_stats(ev);
        CHECK(prof_events_count(ev) > 0 && prof_events_count(ev) <= 300);
        CHECK_EQ_INT(s.scopes_entered, N);
        CHECK_EQ_INT(s.scopes_recorded + s.scopes_dropped, N);
        CHECK_EQ_INT(s.scopes_recorded, prof_events_count(ev));
        CHECK_EQ_INT(compare(ev, lens, prof_events_count(ev), want), 0);
        prof_events_free(ev);
    }
    check_log_reset();
}

/* 20 call sites (more than prof_stop keeps each site's interned file and
   function for) in turn, with names shared between them and names of
   their own: each event has its own call site's function and line, and
   equal names are one interned string. */
#define SITE(k) static int site_##k(const char *n) { PROF_SCOPE_DYN(n); return __LINE__; }
SITE(0)
SITE(1)
SITE(2)
SITE(3)
SITE(4)
SITE(5)
SITE(6)
SITE(7)
SITE(8)
SITE(9)
SITE(10)
SITE(11)
SITE(12)
SITE(13)
SITE(14)
SITE(15)
SITE(16)
SITE(17)
SITE(18)
SITE(19)
#undef SITE
static void test_call_sites(void) {
    typedef int (*site_fn)(const char *);
    static const site_fn sites[] = { site_0, site_1, site_2, site_3, site_4, site_5, site_6, site_7, site_8, site_9,
                                     site_10, site_11, site_12, site_13, site_14, site_15, site_16, site_17, site_18, site_19 };
    enum { NS = sizeof sites / sizeof sites[0], ROUNDS = 3, PER = 3, N = ROUNDS * NS * PER };
    prof_config c = config();
    prof_events *ev;
    int lines[N], site[N];
    char names[N][16];
    const char *alpha = NULL;
    size_t i, bad = 0;
    int r, k, j, n = 0;
    CHECK_EQ_INT(prof_start(&c), PROF_OK);
    for (r = 0; r < ROUNDS; r++)
        for (k = 0; k < NS; k++)
            for (j = 0; j < PER; j++, n++) {
                if (j == 0) snprintf(names[n], sizeof names[n], "alpha");
                else if (j == 1) snprintf(names[n], sizeof names[n], "own_%d", k);
                else snprintf(names[n], sizeof names[n], "r%d", r);
                site[n] = k;
                lines[n] = sites[k](names[n]);
            }
    ev = prof_stop();
    if (CHECK(ev != NULL) && CHECK_EQ_INT(prof_events_count(ev), N)) {
        for (i = 0; i < (size_t)N; i++) {
            prof_event e;
            char func[16];
            memset(&e, 0, sizeof e);
            prof_events_get(ev, i, &e);
            snprintf(func, sizeof func, "site_%d", site[i]);
            if (!e.name || strcmp(e.name, names[i]) != 0 || !e.func || strcmp(e.func, func) != 0 || e.line != lines[i] ||
                !e.file || !strstr(e.file, "test_dyn_names.c")) {
                if (bad++ < 3) fprintf(stderr, "event %zu: %s in %s line %d, want %s in %s line %d\n", i, e.name ? e.name : "(null)", e.func ? e.func : "(null)", e.line, names[i], func, lines[i]);
            } else if (strcmp(e.name, "alpha") == 0) {
                if (!alpha) alpha = e.name;
                else if (e.name != alpha) bad++; /* one interned copy */
            }
        }
        CHECK_EQ_INT(bad, 0);
    }
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    test_lengths();
    test_block_ends();
    test_null_name();
    test_cap();
    test_call_sites();
    prof_shutdown();
    return check_report();
}
