/* The Perfetto file at its edges, read back field by field (check_pb_*;
   field numbers from perfetto_trace.proto):
   - async lanes: A [0, 10 us] and B [5, 15 us] overlap, C [10, 20 us]
     starts as A ends: C takes A's lane (the leftmost free one, free at
     an end equal to the start), and the second lane is "async (2)";
   - the memory counters: the CPU's records are one track "[memory] CPU"
     whatever device_index they carry; a CUDA device's track is
     "[memory] device N";
   - the metadata instant: a key set as JSON is a json_value (field 9), a
     plain one a string_value (6); distributedInfo, for a list without a
     node id, says rank 0 and world_size 1;
   - an event's "flops" annotation only for flops > 0 (not for -5);
   - the clocks of a recorded list whose first event was added by hand
     1 ms before the session's start: sequence 1's snapshot holds
     BOOTTIME (6) at the first time and REALTIME (1) at the wall clock of
     that same time, the JSON's baseTimeNanoseconds less 1 ms; the times
     are BOOTTIME, not the wall clock's;
   - a recorded list holding an event added by hand 4e18 ns before the
     session: neither anchor keeps every time in [0, INT64_MAX], so the
     times start from 0 at the first event (no packet time past
     INT64_MAX, which trace_processor reads as negative and drops) and
     the snapshot has no REALTIME.
   Found by mutation testing (fourth pass): each of these, changed alone,
   left every other test passing. */
#define _GNU_SOURCE 1
#include "prof.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define OUT "build/test_edges4_perfetto.pftrace"
#define JSON "build/test_edges4_perfetto.json"

/* ----- the trace, decoded ----- */
typedef struct track { uint64_t uuid, parent; char name[64]; } track;
typedef struct ann { char name[64]; int64_t i; char s[128]; int has_i, is_json, is_str; } ann;
typedef struct tev { uint64_t seq, ts, type, track; char name[64]; ann a[8]; int na; } tev;
typedef struct clk { uint64_t id, ts; } clk;
static track g_tr[64];
static int g_ntr;
static tev g_ev[128];
static int g_nev;
static char g_names[64][64]; /* event_names: iid -> name */
static char g_anames[32][64]; /* debug_annotation_names: iid -> name */
static uint64_t g_defaults[32]; /* sequence -> its default track */
static uint64_t g_max_ts, g_first_ts;
static int g_nts;
static clk g_clk[8]; /* sequence 1's (the first) clock snapshot */
static int g_nclk, g_snapshots;

static void copy_str(char *dst, size_t n, const check_pb *s) {
    size_t k = (size_t)(s->end - s->p);
    if (k >= n) k = n - 1;
    memcpy(dst, s->p, k);
    dst[k] = 0;
}
static void read_iid_name(check_pb sub, char (*tab)[64], size_t ntab) {
    unsigned g; int w; uint64_t x, iid = 0; check_pb s, nm;
    nm.p = nm.end = NULL;
    while (check_pb_next(&sub, &g, &w, &x, &s)) {
        if (g == 1 && w == 0) iid = x;
        if (g == 2 && w == 2) nm = s;
    }
    if (iid < ntab && nm.p) copy_str(tab[iid], 64, &nm);
}
static void read_interned(check_pb in) {
    unsigned f; int wt; uint64_t v; check_pb sub;
    while (check_pb_next(&in, &f, &wt, &v, &sub)) {
        if (f == 2 && wt == 2) read_iid_name(sub, g_names, 64);  /* event_names */
        if (f == 3 && wt == 2) read_iid_name(sub, g_anames, 32); /* debug_annotation_names */
    }
}
static void read_track(check_pb d) {
    unsigned f; int wt; uint64_t v; check_pb sub;
    track *t;
    if (g_ntr >= 64) return;
    t = &g_tr[g_ntr++];
    memset(t, 0, sizeof *t);
    while (check_pb_next(&d, &f, &wt, &v, &sub)) {
        if (f == 1 && wt == 0) t->uuid = v;
        else if (f == 5 && wt == 0) t->parent = v;
        else if (f == 2 && wt == 2) copy_str(t->name, sizeof t->name, &sub);
    }
}
static void read_ann(tev *e, check_pb sub) {
    unsigned f; int wt; uint64_t v; check_pb s;
    ann *a;
    if (e->na >= 8) return;
    a = &e->a[e->na++];
    memset(a, 0, sizeof *a);
    while (check_pb_next(&sub, &f, &wt, &v, &s)) {
        if (f == 1 && wt == 0 && v < 32) snprintf(a->name, sizeof a->name, "%s", g_anames[v]);
        else if (f == 10 && wt == 2) copy_str(a->name, sizeof a->name, &s);
        else if (f == 4 && wt == 0) { a->i = (int64_t)v; a->has_i = 1; }
        else if (f == 6 && wt == 2) { copy_str(a->s, sizeof a->s, &s); a->is_str = 1; }
        else if (f == 9 && wt == 2) { copy_str(a->s, sizeof a->s, &s); a->is_json = 1; }
    }
}
static void read_snapshot(check_pb cs) {
    unsigned h; int w; uint64_t y; check_pb c;
    if (g_snapshots++) return;
    while (check_pb_next(&cs, &h, &w, &y, &c)) {
        unsigned k; int w2; uint64_t z; check_pb s;
        if (h != 1 || w != 2 || g_nclk >= 8) continue;
        g_clk[g_nclk].id = g_clk[g_nclk].ts = 0;
        while (check_pb_next(&c, &k, &w2, &z, &s)) {
            if (k == 1 && w2 == 0) g_clk[g_nclk].id = z;
            if (k == 2 && w2 == 0) g_clk[g_nclk].ts = z;
        }
        g_nclk++;
    }
}
static void read_trace(const char *path) {
    size_t len = 0;
    char *data = check_read_file_n(path, &len);
    check_pb b, pkt;
    unsigned f; int wt; uint64_t v;
    int bad = check_pb_bad;
    memset(g_names, 0, sizeof g_names);
    memset(g_anames, 0, sizeof g_anames);
    memset(g_defaults, 0, sizeof g_defaults);
    g_ntr = g_nev = g_nts = g_nclk = g_snapshots = 0;
    g_max_ts = g_first_ts = 0;
    if (!CHECK(data != NULL)) return;
    b.p = (const unsigned char *)data;
    b.end = b.p + len;
    while (check_pb_next(&b, &f, &wt, &v, &pkt)) {
        unsigned g; int w2; uint64_t x; check_pb sub, te;
        uint64_t seq = 0, ts = 0;
        int has_te = 0, has_ts = 0;
        te.p = te.end = NULL;
        if (f != 1 || wt != 2) continue;
        while (check_pb_next(&pkt, &g, &w2, &x, &sub)) { /* (interned data comes before the event that uses it) */
            if (g == 10 && w2 == 0) seq = x;
            else if (g == 8 && w2 == 0) { ts = x; has_ts = 1; }
            else if (g == 12 && w2 == 2) read_interned(sub);
            else if (g == 60 && w2 == 2) read_track(sub);
            else if (g == 6 && w2 == 2) read_snapshot(sub);
            else if (g == 11 && w2 == 2) { te = sub; has_te = 1; }
            else if (g == 59 && w2 == 2) { /* defaults: track_event_defaults.track_uuid */
                unsigned h; int w3; uint64_t y; check_pb s3, s4;
                while (check_pb_next(&sub, &h, &w3, &y, &s3))
                    if (h == 11 && w3 == 2) {
                        unsigned k; int w4; uint64_t z;
                        while (check_pb_next(&s3, &k, &w4, &z, &s4)) if (k == 11 && w4 == 0 && seq < 32) g_defaults[seq] = z;
                    }
            }
        }
        if (has_ts) {
            if (!g_nts++) g_first_ts = ts;
            if (ts > g_max_ts) g_max_ts = ts;
        }
        if (has_te && g_nev < 128) {
            tev *e = &g_ev[g_nev++];
            memset(e, 0, sizeof *e);
            e->seq = seq;
            e->ts = ts;
            e->track = seq < 32 ? g_defaults[seq] : 0;
            while (check_pb_next(&te, &g, &w2, &x, &sub)) {
                if (g == 9 && w2 == 0) e->type = x;
                else if (g == 11 && w2 == 0) e->track = x;
                else if (g == 10 && w2 == 0 && x < 64) snprintf(e->name, sizeof e->name, "%s", g_names[x]);
                else if (g == 23 && w2 == 2) copy_str(e->name, sizeof e->name, &sub);
                else if (g == 4 && w2 == 2) read_ann(e, sub);
            }
        }
    }
    free(data);
    CHECK_EQ_INT(check_pb_bad, bad);
    CHECK(b.p == b.end);
}
static const track *track_uuid(uint64_t uuid) {
    int i;
    for (i = 0; i < g_ntr; i++) if (g_tr[i].uuid == uuid) return &g_tr[i];
    return NULL;
}
static int tracks_named(const char *name) {
    int i, n = 0;
    for (i = 0; i < g_ntr; i++) n += strcmp(g_tr[i].name, name) == 0;
    return n;
}
static const tev *event_named(const char *name, uint64_t type) {
    int i;
    for (i = 0; i < g_nev; i++) if (g_ev[i].type == type && strcmp(g_ev[i].name, name) == 0) return &g_ev[i];
    return NULL;
}
static const char *track_name_of(const tev *e) {
    const track *t = e ? track_uuid(e->track) : NULL;
    return t ? t->name : "(no track)";
}
static const ann *ann_named(const tev *e, const char *name) {
    int i;
    for (i = 0; e && i < e->na; i++) if (strcmp(e->a[i].name, name) == 0) return &e->a[i];
    return NULL;
}
static uint64_t snapshot_clock(uint64_t id) {
    int i;
    for (i = 0; i < g_nclk; i++) if (g_clk[i].id == id) return g_clk[i].ts;
    return 0;
}

static void add(prof_events *e, const char *name, int64_t start, int64_t end, unsigned set, int64_t flops) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = start;
    d.end_ns = end;
    d.set = set;
    d.flops = flops;
    CHECK(prof_events_add(e, &d) >= 0);
}

static void lanes(void) {
    prof_events *e = prof_events_create();
    const tev *a, *b, *c;
    int i, nlanes = 0;
    if (!CHECK(e != NULL)) return;
    add(e, "A", 0, 10000, PROF_EVENT_ASYNC, 0);
    add(e, "B", 5000, 15000, PROF_EVENT_ASYNC, 0);
    add(e, "C", 10000, 20000, PROF_EVENT_ASYNC, 0);
    if (CHECK_EQ_INT(prof_export_perfetto(e, OUT), PROF_OK)) {
        read_trace(OUT);
        a = event_named("A", 1);
        b = event_named("B", 1);
        c = event_named("C", 1);
        if (CHECK(a && b && c)) {
            CHECK_EQ_STR(track_name_of(a), "async");
            CHECK_EQ_STR(track_name_of(b), "async (2)");
            CHECK_EQ_STR(track_name_of(c), "async");
            CHECK_EQ_INT(c->track, a->track);
            CHECK(b->track != a->track);
        }
        for (i = 0; i < g_ntr; i++) nlanes += strncmp(g_tr[i].name, "async", 5) == 0;
        CHECK_EQ_INT(nlanes, 2);
        CHECK_EQ_INT(tracks_named("async (1)"), 0);
    }
    prof_events_free(e);
}

static void memory_metadata_flops(void) {
    prof_events *e = prof_events_create();
    const tev *m;
    const ann *x;
    int i, ncpu = 0, ndev = 0;
    uint64_t cpu_track = 0;
    if (!CHECK(e != NULL)) return;
    add(e, "parent", 0, 10000, 0, 0);
    add(e, "negative_flops", 10000, 12000, 0, -5);
    add(e, "positive_flops", 13000, 14000, 0, 7);
    CHECK_EQ_INT(prof_events_add_memory(e, 1, 3000, 256, PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(e, 1, 4000, 512, PROF_DEVICE_CPU, 2), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(e, 1, 5000, 1024, PROF_DEVICE_CUDA, 1), PROF_OK);
    CHECK_EQ_INT(prof_events_add_metadata_json(e, "cfg", "{\"a\": 1}"), PROF_OK);
    CHECK_EQ_INT(prof_events_add_metadata(e, "note", "{plain}"), PROF_OK);
    if (!CHECK_EQ_INT(prof_export_perfetto(e, OUT), PROF_OK)) { prof_events_free(e); return; }
    read_trace(OUT);
    /* memory: one CPU track, whatever the index; CUDA's named by its device */
    CHECK_EQ_INT(tracks_named("[memory] CPU"), 1);
    CHECK_EQ_INT(tracks_named("[memory] device 1"), 1);
    for (i = 0; i < g_ntr; i++) {
        if (strcmp(g_tr[i].name, "[memory] CPU") == 0) cpu_track = g_tr[i].uuid;
        CHECK_MSG(strncmp(g_tr[i].name, "[memory]", 8) != 0 || strcmp(g_tr[i].name, "[memory] CPU") == 0 ||
                      strcmp(g_tr[i].name, "[memory] device 1") == 0,
                  "unexpected memory track \"%s\"", g_tr[i].name);
    }
    for (i = 0; i < g_nev; i++) {
        if (g_ev[i].type != 4) continue;
        if (g_ev[i].track == cpu_track) ncpu++;
        else if (strcmp(track_name_of(&g_ev[i]), "[memory] device 1") == 0) ndev++;
    }
    CHECK_EQ_INT(ncpu, 2);
    CHECK_EQ_INT(ndev, 1);
    /* metadata: JSON as JSON, text as text, distributedInfo's defaults */
    m = event_named("metadata", 3);
    if (CHECK(m != NULL)) {
        if (CHECK((x = ann_named(m, "cfg")) != NULL)) {
            CHECK_EQ_INT(x->is_json, 1);
            CHECK_EQ_INT(x->is_str, 0);
            CHECK_EQ_STR(x->s, "{\"a\": 1}");
        }
        if (CHECK((x = ann_named(m, "note")) != NULL)) {
            CHECK_EQ_INT(x->is_json, 0);
            CHECK_EQ_INT(x->is_str, 1);
            CHECK_EQ_STR(x->s, "{plain}");
        }
        if (CHECK((x = ann_named(m, "distributedInfo")) != NULL)) {
            CHECK_EQ_INT(x->is_json, 1);
            CHECK_EQ_STR(x->s, "{\"backend\": \"prof.h\", \"rank\": 0, \"world_size\": 1}");
        }
    }
    /* flops: only > 0 */
    if (CHECK((m = event_named("negative_flops", 1)) != NULL)) CHECK(ann_named(m, "flops") == NULL);
    if (CHECK((m = event_named("positive_flops", 1)) != NULL) && CHECK((x = ann_named(m, "flops")) != NULL)) {
        CHECK_EQ_INT(x->has_i, 1);
        CHECK_EQ_INT(x->i, 7);
    }
    prof_events_free(e);
}

static int64_t now_ns(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
/* the JSON's baseTimeNanoseconds: the session's wall clock at time 0 */
static long long base_time(prof_events *e) {
    long long base = 0;
    char *js;
    if (CHECK_EQ_INT(prof_export_chrome_trace(e, JSON), PROF_OK) && CHECK((js = check_read_file(JSON)) != NULL)) {
        const char *p = strstr(js, "\"baseTimeNanoseconds\": ");
        if (CHECK(p != NULL)) sscanf(p + strlen("\"baseTimeNanoseconds\": "), "%lld", &base);
        free(js);
    }
    return base;
}

static void clocks_recorded(void) {
    prof_events *e;
    int64_t b0, b1;
    long long base;
    uint64_t real, boot;
    b0 = now_ns(CLOCK_BOOTTIME);
    if (!CHECK_EQ_INT(prof_start(NULL), PROF_OK)) return;
    { PROF_SCOPE("work"); }
    e = prof_stop();
    b1 = now_ns(CLOCK_BOOTTIME);
    if (!CHECK(e != NULL)) return;
    add(e, "before_start", -1000000, -999000, 0, 0); /* the list's first time: 1 ms before time 0 */
    base = base_time(e);
    CHECK(base > 0);
    if (CHECK_EQ_INT(prof_export_perfetto(e, OUT), PROF_OK)) {
        read_trace(OUT);
        real = snapshot_clock(1);
        boot = snapshot_clock(6);
        CHECK_EQ_INT(g_nclk, 2);
        /* REALTIME: the wall clock at the first time */
        CHECK_EQ_INT((long long)real, base - 1000000);
        /* BOOTTIME: the first time on the boot clock, the first packet's */
        CHECK_MSG((int64_t)boot >= b0 - 1000000 && (int64_t)boot <= b1, "BOOTTIME %llu not in [%lld, %lld]", (unsigned long long)boot,
                  (long long)(b0 - 1000000), (long long)b1);
        CHECK_EQ_INT(g_first_ts, boot);
        CHECK(g_max_ts < (uint64_t)b1 + 1000000000);
    }
    prof_events_free(e);
}

static void clocks_ancient(void) {
    prof_events *e;
    int i;
    if (!CHECK_EQ_INT(prof_start(NULL), PROF_OK)) return;
    { PROF_SCOPE("work"); }
    e = prof_stop();
    if (!CHECK(e != NULL)) return;
    add(e, "ancient", -4000000000000000000LL, -4000000000000000000LL + 1000, 0, 0);
    if (CHECK_EQ_INT(prof_export_perfetto(e, OUT), PROF_OK)) {
        read_trace(OUT);
        CHECK_MSG(g_max_ts <= (uint64_t)INT64_MAX, "a packet at %llu, past INT64_MAX", (unsigned long long)g_max_ts);
        CHECK_EQ_INT(g_first_ts, 0); /* from 0 at the first time */
        CHECK_EQ_INT(snapshot_clock(6), 0);
        CHECK_EQ_INT(snapshot_clock(1), 0); /* no REALTIME */
        for (i = 0; i < g_nclk; i++) CHECK_MSG(g_clk[i].id != 1 && g_clk[i].ts <= (uint64_t)INT64_MAX, "clock %llu at %llu", (unsigned long long)g_clk[i].id, (unsigned long long)g_clk[i].ts);
        CHECK(event_named("ancient", 1) != NULL);
    }
    prof_events_free(e);
}

int main(void) {
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    lanes();
    memory_metadata_flops();
    clocks_recorded();
    clocks_ancient();
    unlink(OUT);
    unlink(JSON);
    return check_report();
}
