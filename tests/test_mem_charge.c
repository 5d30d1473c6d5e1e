/* The memory charged to each event (cpu_memory_usage,
   device_memory_usage: the records of its thread in [start, end], as
   PyTorch's _parse_kineto_results charges them, per thread here), against
   a brute-force sum over every record, on seeded random lists:
   - several threads, nested, overlapping and zero-length events, records
     at the events' exact bounds, CPU and device records, frees;
   - events added in start order and in reverse or shuffled order (the
     charge keeps a cursor per thread that moves on in start order; a list
     read out of order must come out the same);
   - the list read, then added to and read again.
   A per-event binary search over all records once made prof_stop 4x
   slower with profile_memory; the cursor that replaced it must give the
   same sums. And the CPU's running total (cpu_indexes). */
#include "prof.h"
#include "check.h"

#include <stdlib.h>
#include <sys/stat.h>

typedef struct { uint64_t thread; int64_t start, end; } span;
typedef struct { uint64_t thread; int64_t ts, bytes; prof_device_type dev; } rec;

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(uint64_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng % n;
}

/* Each CPU event but the [memory] rows against the sums of its thread's
   records in [start, end]. */
static void check_charges(prof_events *ev, const rec *r, int nr, const char *what) {
    size_t i, n = prof_events_count(ev);
    int k, bad = 0;
    prof_event e;
    for (i = 0; i < n && bad < 5; i++) {
        int64_t cpu = 0, dev = 0;
        if (prof_events_get(ev, i, &e) != PROF_OK || e.device_type != PROF_DEVICE_CPU || strcmp(e.name, "[memory]") == 0) continue;
        for (k = 0; k < nr; k++) {
            if (r[k].thread != e.thread || r[k].ts < e.start_ns || r[k].ts > e.end_ns) continue;
            if (r[k].dev == PROF_DEVICE_CPU) cpu += r[k].bytes;
            else dev += r[k].bytes;
        }
        if (!CHECK_MSG(e.cpu_memory_usage == cpu && e.device_memory_usage == dev, "%s: %s [%lld, %lld] on %llu holds cpu %lld dev %lld, not %lld %lld", what, e.name,
                       (long long)e.start_ns, (long long)e.end_ns, (unsigned long long)e.thread, (long long)e.cpu_memory_usage, (long long)e.device_memory_usage,
                       (long long)cpu, (long long)dev))
            bad++;
    }
}

static void one_case(int seed, int order) {
    enum { NS = 300, NR = 400 };
    static span s[NS];
    static rec r[NR];
    static char names[NS][16];
    static int perm[NS];
    int nthreads = 1 + (int)rnd(4), i, k;
    char what[64];
    prof_events *ev = prof_events_create();
    snprintf(what, sizeof what, "seed %d order %d", seed, order);
    for (i = 0; i < NS; i++) {
        /* chains of nested events and some that overlap them; zero-length
           ones; bounds on a coarse grid so that records hit them */
        s[i].thread = 1 + rnd((uint64_t)nthreads);
        s[i].start = (int64_t)rnd(100) * 10;
        s[i].end = s[i].start + (rnd(8) == 0 ? 0 : (int64_t)rnd(40) * 10);
        snprintf(names[i], sizeof names[i], "e%d", i);
        perm[i] = i;
    }
    for (i = 0; i < NR; i++) {
        r[i].thread = 1 + rnd((uint64_t)nthreads + 1); /* (one thread with records and no events) */
        r[i].ts = (int64_t)rnd(140) * 10 - (rnd(4) == 0 ? 5 : 0);
        r[i].bytes = (int64_t)rnd(1000) + 1;
        if (rnd(3) == 0) r[i].bytes = -r[i].bytes;
        r[i].dev = rnd(4) == 0 ? PROF_DEVICE_CUDA : PROF_DEVICE_CPU;
    }
    for (i = NS - 1; order == 2 && i > 0; i--) { /* shuffled */
        int j = (int)rnd((uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (i = 0; i < NS; i++) {
        const span *p = &s[order == 1 ? NS - 1 - i : perm[i]];
        check_add_event(ev, names[p - s], p->thread, p->start, p->end);
    }
    for (i = 0; i < NR / 2; i++) CHECK_EQ_INT(prof_events_add_memory(ev, r[i].thread, r[i].ts, r[i].bytes, r[i].dev, 0), PROF_OK);
    check_charges(ev, r, NR / 2, what);
    /* read, then more records: charged afresh */
    for (k = NR / 2; k < NR; k++) CHECK_EQ_INT(prof_events_add_memory(ev, r[k].thread, r[k].ts, r[k].bytes, r[k].dev, 0), PROF_OK);
    check_charges(ev, r, NR, what);
    prof_events_free(ev);
}

/* The CPU's running total (the trace's Total Allocated, the Perfetto
   memory counter) is one, whatever index a CPU record gives: the trace
   writes them all as Device Id -1 on one counter, and the timeline of the
   CPU counts every index. Index 1 once had a total of its own, so the one
   counter went 100, 50, 110. */
static void cpu_indexes(void) {
    static char a[100], b[50], c[10];
    prof_config cfg;
    prof_events *ev;
    char *j;
    const char *p;
    long long want[3] = {100, 150, 160};
    int k = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    {
        PROF_SCOPE("op");
        prof_alloc(a, sizeof a);
        prof_alloc_ex(b, sizeof b, PROF_DEVICE_CPU, 1, NULL);
        prof_alloc(c, sizeof c);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    mkdir("build", 0777);
    mkdir("build/mem_charge", 0777);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/mem_charge/cpu_indexes.json"), PROF_OK);
    j = check_read_file("build/mem_charge/cpu_indexes.json");
    for (p = j; p && (p = strstr(p, "\"Total Allocated\": ")) != NULL; p++, k++)
        if (k < 3) CHECK_MSG(strtoll(p + 19, NULL, 10) == want[k], "record %d: Total Allocated %lld, not %lld", k, strtoll(p + 19, NULL, 10), want[k]);
    CHECK_EQ_INT(k, 3);
    free(j);
    prof_events_free(ev);
}

int main(void) {
    int seed, order;
    prof_set_log(check_log, NULL);
    cpu_indexes();
    for (seed = 0; seed < 40; seed++)
        for (order = 0; order < 3; order++) one_case(seed, order);
    return check_report();
}
