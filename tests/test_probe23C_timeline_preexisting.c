/* A block allocated before prof_start (tracked: prof_malloc) and freed
   during the session. Its free is charged -100 to the scope around it, as
   in PyTorch. But the memory timeline and the trace's memory counter
   start from zero at the session start, so both go negative:
       timeline: [[t1, t2], [[-100], [-50]]]
       trace:    "Total Allocated": -100, then -50
   "Bytes live" cannot be negative. PyTorch's MemoryProfile.timeline turns
   a free of an allocation it did not see into a PREEXISTING action at
   t = -1 with the block's size, which _coalesce_timeline puts first, at
   the earliest time: [[t1, t1, t2], [[100], [0], [50]]]. Kineto's "Total
   Allocated" is the allocator's running total (c10's
   ProfiledCPUMemoryReporter keeps it since reporting began), never below
   zero: 0 after the free, 50 after the allocation (nothing else is
   tracked in this process). */
#include "prof.h"
#include "check.h"

#define TL "build/test_probe23C_timeline_preexisting.json"
#define TR "build/test_probe23C_timeline_preexisting_trace.json"

/* The numbers of the timeline's sizes part (after the times), in order. */
static int sizes_of(const char *text, long long *out, int max) {
    const char *s = strstr(text, "], [");
    int n = 0;
    if (!s) return -1;
    s += 3;
    while (*s && n < max) {
        char *end;
        long long v;
        if (*s == '-' || (*s >= '0' && *s <= '9')) {
            v = strtoll(s, &end, 10);
            out[n++] = v;
            s = end;
        } else {
            s++;
        }
    }
    return n;
}
static int times_of(const char *text, double *out, int max) {
    const char *s = text + 2; /* past "[[" */
    int n = 0;
    while (*s && *s != ']' && n < max) {
        char *end;
        out[n] = strtod(s, &end);
        if (end == s) break;
        n++;
        s = end;
        while (*s == ',' || *s == ' ') s++;
    }
    return n;
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    void *p, *q;
    char *text;
    mkdir("build", 0777); /* (the files go to build/, as the suite's, cwd = repo root) */
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    p = prof_malloc(100);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    {
        PROF_SCOPE("frees");
        prof_free(p);
    }
    {
        PROF_SCOPE("allocates");
        q = prof_malloc(50);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_stats(ev).unknown_frees, 0);

    if (CHECK_EQ_INT(prof_export_memory_timeline(ev, TL, PROF_DEVICE_CPU, 0), PROF_OK) && CHECK((text = check_read_file(TL)) != NULL)) {
        long long sz[16];
        double ts[16];
        int n = sizes_of(text, sz, 16), nt = times_of(text, ts, 16), i;
        fprintf(stderr, "timeline: %s", text);
        for (i = 0; i < n; i++) CHECK(sz[i] >= 0); /* bytes live */
        /* PyTorch: [[t1, t1, t2], [[100], [0], [50]]] */
        if (CHECK_EQ_INT(n, 3)) {
            CHECK_EQ_INT(sz[0], 100);
            CHECK_EQ_INT(sz[1], 0);
            CHECK_EQ_INT(sz[2], 50);
        }
        if (CHECK_EQ_INT(nt, 3)) CHECK(ts[0] == ts[1] && ts[1] < ts[2]);
        free(text);
        remove(TL);
    }
    if (CHECK_EQ_INT(prof_export_chrome_trace(ev, TR), PROF_OK) && CHECK((text = check_read_file(TR)) != NULL)) {
        const char *s = text;
        long long tot[4];
        int n = 0;
        while (n < 4 && (s = strstr(s, "\"Total Allocated\": ")) != NULL) {
            s += strlen("\"Total Allocated\": ");
            tot[n++] = strtoll(s, NULL, 10);
        }
        if (CHECK_EQ_INT(n, 2)) {
            CHECK_EQ_INT(tot[0], 0);  /* after the free of the 100 bytes */
            CHECK_EQ_INT(tot[1], 50); /* after the allocation of 50 */
        }
        free(text);
        remove(TR);
    }
    prof_events_free(ev);
    prof_free(q);
    return check_report();
}
