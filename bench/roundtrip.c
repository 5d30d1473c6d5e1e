/* bench/roundtrip.c - what a user feels: a real workload of this project's
   own (a small LZ77 compressor: hash-chain match search over generated
   text, one PROF_SCOPE per match search, a few per block), run with
   recording off and with the whole round trip (prof_start, the work,
   prof_stop, key_averages, the table), each in a fresh child process.
   Figures: CPU time (user + system) and peak RSS of each run, and their
   ratios (the goal: <= 1.15x CPU, <= 2x peak memory). Beside them,
   the floor of the memory ratio: a third run records the same work and
   takes its peak RSS before prof_stop, i.e. what the records alone cost
   (24 bytes each, in the recorder's blocks), which no collector avoids.
   PROF_BENCH_MB: MiB of input (default 8; at least 1). PROF_BENCH_PHASES=1
   also breaks the round trip down (a fourth child): per phase its CPU
   time, page faults, and resident and peak memory at its end (the peak
   reset before each phase through /proc/self/clear_refs), and the same
   for the work with recording off. PROF_BENCH_CHAIN (default 16): the
   candidates a match search tries, i.e. the work per event (16: about
   170 ns an event here; 64: about 420, the density of the program issue
   13 measured, 4M events in 1.35 s). PROF_BENCH_REPEAT (default 5): off
   and on runs alternate that many times; the figures are the medians,
   and the CPU ratio is the median of each pair's (with its range): one
   run's CPU time moves by up to 30% on this shared VM. */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define WIN 32768
#define HBITS 15
static int g_chain = 16; /* PROF_BENCH_CHAIN: candidates a match search tries at most */

static unsigned char *make_input(size_t n) {
    static const char *const words[] = { "the ", "profiler ", "records ", "scopes ", "and ", "events ", "of ", "a ",
                                         "program ", "tree ", "with ", "self ", "time ", "in ", "table ", "rows " };
    unsigned char *p = (unsigned char *)malloc(n);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    size_t i = 0;
    if (!p) return NULL;
    while (i < n) {
        const char *w;
        size_t l;
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        w = words[s & 15];
        l = strlen(w);
        if (l > n - i) l = n - i;
        memcpy(p + i, w, l);
        i += l;
    }
    return p;
}

static size_t find_match(const unsigned char *in, size_t pos, size_t n, const int32_t *head, const int32_t *prev, size_t *dist) {
    size_t best = 0;
    int32_t cand;
    int chain = 0;
    PROF_SCOPE("find_match");
    cand = head[((in[pos] << 10) ^ (in[pos + 1] << 5) ^ in[pos + 2]) & ((1 << HBITS) - 1)];
    while (cand >= 0 && pos - (size_t)cand < WIN && chain++ < g_chain) {
        size_t l = 0;
        while (pos + l < n && l < 258 && in[(size_t)cand + l] == in[pos + l]) l++;
        if (l > best) { best = l; *dist = pos - (size_t)cand; }
        cand = prev[(size_t)cand & (WIN - 1)];
    }
    return best;
}

static size_t compress_block(const unsigned char *in, size_t n, int32_t *head, int32_t *prev) {
    size_t pos = 0, out = 0;
    PROF_SCOPE("compress_block");
    memset(head, 0xff, sizeof(int32_t) << HBITS);
    while (pos + 3 <= n) {
        size_t dist = 0, len = find_match(in, pos, n, head, prev, &dist), k, step = len >= 3 ? len : 1;
        for (k = 0; k < step && pos + 3 <= n; k++, pos++) {
            size_t h = (size_t)(((in[pos] << 10) ^ (in[pos + 1] << 5) ^ in[pos + 2]) & ((1 << HBITS) - 1));
            prev[pos & (WIN - 1)] = head[h];
            head[h] = (int32_t)pos;
        }
        out += len >= 3 ? 3 : 1;
    }
    return out + (n - pos);
}

static size_t work(const unsigned char *in, size_t n) {
    static int32_t head[1 << HBITS], prev[WIN];
    size_t off, out = 0;
    PROF_SCOPE("compress");
    for (off = 0; off < n; off += 256 << 10) out += compress_block(in + off, n - off < (256 << 10) ? n - off : 256 << 10, head, prev);
    return out;
}

static double cpu_s(const struct rusage *ru) {
    return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 + (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
}
/* PROF_BENCH_PHASES: one line per phase, from the child */
static void phase(const char *name, struct rusage *last, struct rusage *last_thread) {
    struct rusage ru, th;
    getrusage(RUSAGE_SELF, &ru);
    getrusage(RUSAGE_THREAD, &th);
    printf("phase %-13s cpu %7.1f ms (this thread %7.1f)  faults %6ld (this thread %6ld)  rss %6.1f MB  peak %6.1f MB\n", name,
           (cpu_s(&ru) - cpu_s(last)) * 1e3, (cpu_s(&th) - cpu_s(last_thread)) * 1e3, ru.ru_minflt - last->ru_minflt,
           th.ru_minflt - last_thread->ru_minflt, rss_bytes() / 1e6, hwm_bytes() / 1e6);
    fflush(stdout);
    reset_hwm();
    *last = ru;
    *last_thread = th;
}
static void phases(int record, size_t n) {
    struct rusage ru, th;
    unsigned char *in;
    pid_t pid;
    fflush(stdout);
    pid = fork();
    if (pid != 0) { if (pid > 0) waitpid(pid, NULL, 0); return; }
    printf("# phases, recording %s\n", record ? "on" : "off");
    getrusage(RUSAGE_SELF, &ru);
    getrusage(RUSAGE_THREAD, &th);
    if (!(in = make_input(n))) _exit(1);
    phase("input", &ru, &th);
    if (record) {
        prof_config c;
        prof_events *ev;
        prof_averages *avg;
        char *table;
        memset(&c, 0, sizeof c);
        if (prof_start(&c) != PROF_OK) _exit(1);
        phase("prof_start", &ru, &th);
        if (work(in, n) == 0) _exit(1);
        phase("work", &ru, &th);
        if (!(ev = prof_stop())) _exit(1);
        phase("prof_stop", &ru, &th);
        avg = prof_key_averages(ev, NULL);
        phase("key_averages", &ru, &th);
        table = prof_averages_table(avg, NULL);
        phase("table", &ru, &th);
        prof_free_string(table);
        prof_averages_free(avg);
        prof_events_free(ev);
        phase("free", &ru, &th);
    } else {
        if (work(in, n) == 0) _exit(1);
        phase("work", &ru, &th);
    }
    _exit(0);
}

/* one run in a child: cpu seconds, peak RSS (bytes), events recorded;
   record: 0 off, 1 the round trip, 2 recorded, measured before prof_stop */
static int run(int record, size_t n, double res[3]) {
    int fds[2];
    pid_t pid;
    if (pipe(fds) != 0) return -1;
    pid = fork();
    if (pid == 0) {
        double r[3] = { 0, 0, 0 };
        struct rusage ru;
        unsigned char *in = make_input(n);
        size_t out;
        if (!in) _exit(1);
        if (record) {
            prof_config c;
            prof_events *ev;
            prof_averages *avg;
            char *table;
            memset(&c, 0, sizeof c);
            if (prof_start(&c) != PROF_OK) _exit(1);
            out = work(in, n);
            if (record == 2) { /* the records' cost: measured here, the stop not counted */
                getrusage(RUSAGE_SELF, &ru);
                r[1] = (double)ru.ru_maxrss * 1024.0;
            }
            ev = prof_stop();
            if (!ev) _exit(1);
            avg = prof_key_averages(ev, NULL);
            table = prof_averages_table(avg, NULL);
            r[2] = (double)prof_events_count(ev);
            prof_free_string(table);
            prof_averages_free(avg);
            prof_events_free(ev);
        } else {
            out = work(in, n);
        }
        if (out == 0) _exit(1);
        getrusage(RUSAGE_SELF, &ru);
        r[0] = cpu_s(&ru);
        if (record != 2) r[1] = (double)ru.ru_maxrss * 1024.0;
        if (write(fds[1], r, sizeof r) != (ssize_t)sizeof r) _exit(2);
        _exit(0);
    }
    close(fds[1]);
    if (pid < 0 || read(fds[0], res, 3 * sizeof *res) != (ssize_t)(3 * sizeof *res)) { close(fds[0]); return -1; }
    close(fds[0]);
    waitpid(pid, NULL, 0);
    return 0;
}

int main(void) {
    const char *env = getenv("PROF_BENCH_MB");
    size_t n = (size_t)((env && *env ? atof(env) : 8.0) * (double)(1u << 20)); /* (MiB; fractions too) */
    double off[3], on[3], rec[3], cpu_off[64], cpu_on[64], pk_off[64], pk_on[64], ratio[64], rmin, rmax, events = 0;
    size_t reps = 5, k;
    if ((env = getenv("PROF_BENCH_REPEAT")) != NULL && atoi(env) > 0) reps = atoi(env) > 64 ? 64 : (size_t)atoi(env);
    if ((env = getenv("PROF_BENCH_CHAIN")) != NULL && atoi(env) > 0) g_chain = atoi(env);
    if (n < (1u << 20)) n = 1u << 20;
    header("prof.h round trip: a compressor recorded (start, work, stop, key_averages, table) vs recording off");
    for (k = 0; k < reps; k++) {
        if (run(0, n, off) != 0 || run(1, n, on) != 0) { printf("# a run failed\n"); return 1; }
        cpu_off[k] = off[0];
        cpu_on[k] = on[0];
        pk_off[k] = off[1];
        pk_on[k] = on[1];
        ratio[k] = on[0] / off[0];
        events = on[2];
    }
    if (run(2, n, rec) != 0) { printf("# a run failed\n"); return 1; }
    rmin = rmax = ratio[0];
    for (k = 1; k < reps; k++) {
        if (ratio[k] < rmin) rmin = ratio[k];
        if (ratio[k] > rmax) rmax = ratio[k];
    }
    printf("# %zu MiB of input, %.0f events recorded, match chains of %d, %zu runs of each (medians)\n", n >> 20, events, g_chain, reps);
    printf("roundtrip_off_cpu_s %.3f s\n", median(cpu_off, reps));
    printf("roundtrip_on_cpu_s %.3f s\n", median(cpu_on, reps));
    printf("roundtrip_work_ns_per_event %.0f ns (recording off, input generation included)\n", median(cpu_off, reps) * 1e9 / (events > 0 ? events : 1));
    printf("roundtrip_cpu_ratio %.3f x (pairs %.3f-%.3f)\n", median(ratio, reps), rmin, rmax);
    printf("roundtrip_off_peak_mb %.1f MB\n", median(pk_off, reps) / 1e6);
    printf("roundtrip_on_peak_mb %.1f MB\n", median(pk_on, reps) / 1e6);
    printf("roundtrip_peak_ratio %.3f x\n", median(pk_on, reps) / median(pk_off, reps));
    printf("roundtrip_records_peak_mb %.1f MB\n", rec[1] / 1e6);
    printf("roundtrip_records_peak_ratio %.3f x (the floor of roundtrip_peak_ratio: the records alone)\n", rec[1] / median(pk_off, reps));
    if ((env = getenv("PROF_BENCH_PHASES")) != NULL && atoi(env) > 0) {
        phases(0, n);
        phases(1, n);
    }
    return 0;
}
