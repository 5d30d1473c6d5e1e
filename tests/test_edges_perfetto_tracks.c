/* The Perfetto file's tracks and sequences, read back field by field
   (check_pb_*; field numbers from perfetto_trace.proto):
   - every packet sequence's first packet says SEQ_INCREMENTAL_STATE_CLEARED
     (sequence_flags 1) and first_packet_on_sequence;
   - the threads' descriptors rank them 0, 1, ... (sibling_order_rank,
     under the process track's child_ordering EXPLICIT) in the order of
     their ids, as the JSON's thread_sort_index (Kineto's: the id), so the
     main thread comes before the workers it starts (it came last: the
     threads went in the order prof_stop read them, exited ones first);
   - a PROF_COUNTER series is a counter track (a CounterDescriptor), a
     child of the process track (parent_uuid 1), and its samples are
     TYPE_COUNTER events of category "counter";
   - the memory track is a counter track in bytes (UNIT_SIZE_BYTES, 3);
   - async ranges take the first lane free at their start: A holding B and
     then C (B ended before C began) takes two lanes, C reusing B's; no
     two ranges of one lane overlap.
   Found by mutation testing: each of these, changed alone, left every
   other test passing. */
#define _GNU_SOURCE 1 /* before any system header: the test's own POSIX and GNU calls */
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define OUT "build/test_edges_perfetto_tracks.pftrace"

typedef struct desc { uint64_t uuid, parent, unit, tid; int64_t rank; int has_counter, has_thread; char name[64]; } desc;
typedef struct tev { uint64_t seq, ts, type, track, cat; } tev;
static desc g_desc[256];
static int g_ndesc;
static tev g_ev[1024];
static int g_nev;
static char g_cat[32][32]; /* iid -> name */
static int g_seq_first_ok = 1, g_nseq;
static uint64_t g_seqs[64];

static void name_copy(char *dst, size_t n, const check_pb *s) {
    size_t k = (size_t)(s->end - s->p);
    if (k >= n) k = n - 1;
    memcpy(dst, s->p, k);
    dst[k] = 0;
}
static void read_interned(check_pb in) {
    unsigned f; int wt; uint64_t v; check_pb sub;
    while (check_pb_next(&in, &f, &wt, &v, &sub)) {
        if (f == 1 && wt == 2) { /* EventCategory */
            unsigned g; int w2; uint64_t x, iid = 0; check_pb s2, nm; nm.p = nm.end = NULL;
            while (check_pb_next(&sub, &g, &w2, &x, &s2)) {
                if (g == 1 && w2 == 0) iid = x;
                if (g == 2 && w2 == 2) nm = s2;
            }
            if (iid < 32 && nm.p) name_copy(g_cat[iid], sizeof g_cat[iid], &nm);
        }
    }
}
static void read_desc(check_pb d) {
    unsigned f; int wt; uint64_t v; check_pb sub;
    desc *x;
    if (g_ndesc >= 256) return;
    x = &g_desc[g_ndesc++];
    memset(x, 0, sizeof *x);
    x->rank = -1;
    while (check_pb_next(&d, &f, &wt, &v, &sub)) {
        if (f == 1 && wt == 0) x->uuid = v;
        else if (f == 5 && wt == 0) x->parent = v;
        else if (f == 2 && wt == 2) name_copy(x->name, sizeof x->name, &sub);
        else if (f == 12 && wt == 0) x->rank = (int64_t)v;
        else if (f == 4 && wt == 2) { /* ThreadDescriptor: tid is field 2 */
            unsigned g; int w2; uint64_t u; check_pb s2;
            x->has_thread = 1;
            while (check_pb_next(&sub, &g, &w2, &u, &s2)) if (g == 2 && w2 == 0) x->tid = u;
        }
        else if (f == 8 && wt == 2) {
            unsigned g; int w2; uint64_t u; check_pb s2;
            x->has_counter = 1;
            while (check_pb_next(&sub, &g, &w2, &u, &s2)) if (g == 3 && w2 == 0) x->unit = u;
        }
    }
}
static void read_trace(const char *path) {
    size_t len = 0;
    char *data = check_read_file_n(path, &len);
    check_pb b;
    unsigned f; int wt; uint64_t v; check_pb pkt;
    if (!CHECK(data != NULL)) return;
    b.p = (const unsigned char *)data;
    b.end = b.p + len;
    while (check_pb_next(&b, &f, &wt, &v, &pkt)) {
        unsigned g; int w2; uint64_t x; check_pb sub, te;
        uint64_t seq = 0, ts = 0, flags = 0, first = 0;
        int has_te = 0, k;
        te.p = te.end = NULL;
        if (f != 1 || wt != 2) continue;
        while (check_pb_next(&pkt, &g, &w2, &x, &sub)) {
            if (g == 10 && w2 == 0) seq = x;
            else if (g == 8 && w2 == 0) ts = x;
            else if (g == 13 && w2 == 0) flags = x;
            else if (g == 87 && w2 == 0) first = x;
            else if (g == 12 && w2 == 2) read_interned(sub);
            else if (g == 60 && w2 == 2) read_desc(sub);
            else if (g == 11 && w2 == 2) { te = sub; has_te = 1; }
        }
        for (k = 0; k < g_nseq && g_seqs[k] != seq; k++) {}
        if (k == g_nseq && g_nseq < 64) { /* the sequence's first packet */
            g_seqs[g_nseq++] = seq;
            if (flags != 1 || first != 1) g_seq_first_ok = 0;
        }
        if (has_te && g_nev < 1024) {
            tev *e = &g_ev[g_nev++];
            memset(e, 0, sizeof *e);
            e->seq = seq;
            e->ts = ts;
            while (check_pb_next(&te, &g, &w2, &x, &sub)) {
                if (g == 9 && w2 == 0) e->type = x;
                else if (g == 11 && w2 == 0) e->track = x;
                else if (g == 3 && w2 == 0) e->cat = x;
            }
        }
    }
    free(data);
}
static const desc *desc_named(const char *prefix) {
    int i;
    for (i = 0; i < g_ndesc; i++) if (strncmp(g_desc[i].name, prefix, strlen(prefix)) == 0) return &g_desc[i];
    return NULL;
}

static void pause_us(void) {
    struct timespec t = { 0, 20000 };
    nanosleep(&t, NULL);
}
static void *worker(void *p) {
    (void)p;
    { PROF_SCOPE("worker_op"); }
    return NULL;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    static char block[64];
    int i, nthr = 0, ranks = 0, ncounter = 0;
    uint64_t lanes[8];
    int nlanes = 0;
    const desc *d;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    { PROF_SCOPE("main_op"); }
    if (CHECK(pthread_create(&th, NULL, worker, NULL) == 0)) pthread_join(th, NULL);
    PROF_COUNTER("my_counter", 1.0);
    pause_us();
    PROF_COUNTER("my_counter", 2.0);
    prof_alloc(block, sizeof block);
    pause_us();
    prof_dealloc(block);
    PROF_ASYNC_BEGIN("range_a", 1);
    pause_us();
    PROF_ASYNC_BEGIN("range_b", 2);
    pause_us();
    PROF_ASYNC_END(2);
    pause_us();
    PROF_ASYNC_BEGIN("range_c", 3);
    pause_us();
    PROF_ASYNC_END(3);
    pause_us();
    PROF_ASYNC_END(1);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_stats(ev).unmatched_async, 0);
    if (!CHECK_EQ_INT(prof_export_perfetto(ev, OUT), PROF_OK)) { prof_events_free(ev); return check_report(); }
    prof_events_free(ev);
    read_trace(OUT);
    CHECK_EQ_INT(check_pb_bad, 0);
    CHECK(g_nseq >= 3); /* the misc sequence and one per thread */
    CHECK(g_seq_first_ok);
    /* threads ranked 0 and 1 */
    for (i = 0; i < g_ndesc; i++)
        if (g_desc[i].has_thread) {
            nthr++;
            if (g_desc[i].rank >= 0 && g_desc[i].rank < 8) ranks |= 1 << g_desc[i].rank;
        }
    CHECK_EQ_INT(nthr, 2);
    CHECK_EQ_INT(ranks, 3);
    { /* ... the lower id first (the main thread's, unless ids wrapped) */
        const desc *t[2] = { NULL, NULL };
        for (i = 0; i < g_ndesc; i++) if (g_desc[i].has_thread && g_desc[i].rank >= 0 && g_desc[i].rank < 2) t[g_desc[i].rank] = &g_desc[i];
        if (CHECK(t[0] && t[1])) CHECK_MSG(t[0]->tid < t[1]->tid, "thread %llu ranked before thread %llu", (unsigned long long)t[0]->tid, (unsigned long long)t[1]->tid);
    }
    /* the counter: a counter track under the process, samples of "counter" */
    if (CHECK((d = desc_named("my_counter")) != NULL)) {
        CHECK(d->has_counter);
        CHECK_EQ_INT(d->parent, 1);
        for (i = 0; i < g_nev; i++)
            if (g_ev[i].track == d->uuid) {
                ncounter++;
                CHECK_EQ_INT(g_ev[i].type, 4); /* TYPE_COUNTER */
                CHECK(g_ev[i].cat < 32 && strcmp(g_cat[g_ev[i].cat], "counter") == 0);
            }
        CHECK_EQ_INT(ncounter, 2);
    }
    /* the memory track: bytes */
    if (CHECK((d = desc_named("[memory]")) != NULL)) {
        CHECK(d->has_counter);
        CHECK_EQ_INT(d->unit, 3);
    }
    /* the async ranges: two lanes, no overlap within one */
    for (i = 0; i < g_nev; i++) {
        int k;
        if (g_ev[i].type != 1 || g_ev[i].cat >= 32 || strcmp(g_cat[g_ev[i].cat], "blink.user_timing") != 0) continue;
        for (k = 0; k < nlanes && lanes[k] != g_ev[i].track; k++) {}
        if (k == nlanes && nlanes < 8) lanes[nlanes++] = g_ev[i].track;
    }
    CHECK_EQ_INT(nlanes, 2);
    for (i = 0; i < nlanes; i++) { /* begins and ends of a lane alternate in time */
        int k, open = 0, ok = 1;
        for (k = 0; k < g_nev; k++) {
            if (g_ev[k].track != lanes[i] || (g_ev[k].type != 1 && g_ev[k].type != 2)) continue;
            open += g_ev[k].type == 1 ? 1 : -1;
            if (open < 0 || open > 1) ok = 0;
        }
        CHECK_MSG(ok && open == 0, "async lane %d holds overlapping ranges", i);
    }
    return check_report();
}
