/* bench/stop.c - prof_stop's cost per event in each recording mode, beside
   its floor measured in the same run.

   One thread records N scopes (PROF_BENCH_N, default 1000000) in a loop of
   depth 4 over 8 sites, in each mode: plain, with_stack = scopes, record_
   shapes (PROF_SCOPE_SHAPES, 4 distinct lists), PROF_SCOPE_ARGS (shapes,
   flops, sequence_nr), profile_memory (a prof_malloc and prof_free of
   64 bytes in each block: 2 memory records a 5 scopes). Each mode runs once in a fresh child process, so
   fresh memory (page faults) is paid as a real program pays it; then
   prof_stop is timed (the events exist after it; key_averages is not).
   Figures:
     stop_floor_ns_per_event     copy the 24-byte records into a fresh
                                 array + a 4-pass radix sort of 64-bit keys
     stop_floor_warm_ns_per_event  the same into arrays touched before
                                 (the floor: copy + sort alone; a
                                 fresh page costs microseconds on a VM)
     stop_<mode>_ns_per_event    prof_stop
     stop_<mode>_ratio           the two
     stop_<mode>_ratio_warm      prof_stop against the warm floor
     stop_<mode>_peak_bytes_per_event  VmHWM growth during prof_stop
   Only a sanity check on a shared machine; measure on a quiet one. */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MODE_PLAIN, MODE_STACKS, MODE_SHAPES, MODE_ARGS, MODE_MEMORY, NMODES };
static const char *const mode_name[NMODES] = { "plain", "stacks", "shapes", "args", "memory" };

/* 4 levels of 4 iterations... until n scopes: 1 + 4 + 16 + 64 = 85 per outer step */
static void record(int mode, size_t n) {
    size_t done = 0;
    int64_t i = 0;
    while (done < n) {
        int a, b, c;
        PROF_SCOPE("step");
        done++;
        for (a = 0; a < 4 && done < n; a++) {
            PROF_SCOPE("layer");
            done++;
            for (b = 0; b < 4 && done < n; b++) {
                PROF_SCOPE("block");
                done++;
                if (mode == MODE_MEMORY) prof_free(prof_malloc(64));
                for (c = 0; c < 4 && done < n; c++, i++) {
                    done++;
                    if (mode == MODE_SHAPES) {
                        PROF_SCOPE_SHAPES("aten::mm", 2, 64, 64 + (c & 3), 2, 64 + (c & 3), 32);
                    } else if (mode == MODE_ARGS) {
                        int64_t shp[6] = { 2, 64, 64, 2, 64, 32 };
                        prof_args args;
                        memset(&args, 0, sizeof args);
                        args.shapes = shp;
                        args.shapes_len = 6;
                        args.flops = 2 * 64 * 64 * 32;
                        args.sequence_nr = i;
                        args.set = PROF_ARGS_SEQUENCE_NR;
                        {
                            PROF_SCOPE_ARGS("aten::addmm", &args);
                        }
                    } else {
                        PROF_SCOPE("leaf");
                    }
                }
            }
        }
    }
}

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}
/* The floor: what any collector must do, copy the records out and sort
   them by time. */
static double floor_s(size_t n, int warm) {
    uint64_t *src = (uint64_t *)malloc(n * 24), *dst = NULL, *k = NULL, *t = NULL, seed = 88172645463325252ull;
    size_t i, *cnt = NULL;
    int pass;
    double t0, t1;
    if (!src) return -1;
    for (i = 0; i < n * 3; i++) src[i] = xorshift(&seed);
    if (warm) { /* the arrays touched before the clock starts */
        dst = (uint64_t *)malloc(n * 24);
        k = (uint64_t *)malloc(n * 8);
        t = (uint64_t *)malloc(n * 8);
        cnt = (size_t *)calloc(65536, sizeof *cnt);
        if (!dst || !k || !t || !cnt) return -1;
        memset(dst, 1, n * 24);
        memset(k, 1, n * 8);
        memset(t, 1, n * 8);
    }
    t0 = now_s();
    if (!warm) {
        dst = (uint64_t *)malloc(n * 24);
        k = (uint64_t *)malloc(n * 8);
        t = (uint64_t *)malloc(n * 8);
        cnt = (size_t *)calloc(65536, sizeof *cnt);
        if (!dst || !k || !t || !cnt) return -1;
    }
    memcpy(dst, src, n * 24);
    for (i = 0; i < n; i++) k[i] = dst[3 * i + 1];
    for (pass = 0; pass < 4; pass++) {
        size_t sum = 0, d;
        uint64_t *x;
        memset(cnt, 0, 65536 * sizeof *cnt);
        for (i = 0; i < n; i++) cnt[(k[i] >> (16 * pass)) & 0xffff]++;
        for (d = 0; d < 65536; d++) { size_t c = cnt[d]; cnt[d] = sum; sum += c; }
        for (i = 0; i < n; i++) t[cnt[(k[i] >> (16 * pass)) & 0xffff]++] = k[i];
        x = k; k = t; t = x;
    }
    t1 = now_s();
    if (k[0] > k[n - 1]) fprintf(stderr, "# floor: not sorted\n");
    free(src); free(dst); free(k); free(t); free(cnt);
    return t1 - t0;
}

static int run_mode(int mode, size_t n, double *secs, double *peak) {
    int fds[2];
    pid_t pid;
    double res[2] = { -1, -1 };
    if (pipe(fds) != 0) return -1;
    pid = fork();
    if (pid == 0) {
        prof_config c;
        prof_events *ev;
        double t0, hwm0;
        memset(&c, 0, sizeof c);
        c.max_events = mode == MODE_MEMORY ? 2 * n : n + 16; /* (a memory record takes a share of the cap too) */
        c.with_stack = mode == MODE_STACKS ? PROF_STACK_SCOPES : PROF_STACK_NONE;
        c.record_shapes = mode == MODE_SHAPES || mode == MODE_ARGS;
        c.with_flops = mode == MODE_ARGS;
        c.profile_memory = mode == MODE_MEMORY;
        if (prof_start(&c) != PROF_OK) _exit(1);
        record(mode, n);
        hwm0 = hwm_bytes();
        t0 = now_s();
        ev = prof_stop();
        res[0] = now_s() - t0;
        res[1] = hwm_bytes() - hwm0;
        if (!ev || prof_events_count(ev) != n) res[0] = -1;
        if (write(fds[1], res, sizeof res) != (ssize_t)sizeof res) _exit(2);
        _exit(0);
    }
    close(fds[1]);
    if (pid < 0 || read(fds[0], res, sizeof res) != (ssize_t)sizeof res) res[0] = -1;
    close(fds[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    *secs = res[0];
    *peak = res[1];
    return res[0] < 0 ? -1 : 0;
}

int main(void) {
    const char *env = getenv("PROF_BENCH_N");
    size_t n = env && *env ? (size_t)strtoull(env, NULL, 10) : 1000000;
    double fl, flw;
    int m;
    if (n < 1000) n = 1000;
    header("prof.h prof_stop: ns per event by mode, beside the copy + sort floor");
    printf("# %zu scopes on one thread, depth 4, each mode in a fresh process\n", n);
    fl = floor_s(n, 0);
    flw = floor_s(n, 1);
    printf("stop_floor_ns_per_event %.1f ns\n", fl * 1e9 / (double)n);
    printf("stop_floor_warm_ns_per_event %.1f ns\n", flw * 1e9 / (double)n);
    for (m = 0; m < NMODES; m++) {
        double s, peak;
        if (run_mode(m, n, &s, &peak) != 0) { printf("# %s: the run failed\n", mode_name[m]); continue; }
        printf("stop_%s_ns_per_event %.1f ns\n", mode_name[m], s * 1e9 / (double)n);
        printf("stop_%s_ratio %.2f x\n", mode_name[m], fl > 0 ? s / fl : 0.0);
        printf("stop_%s_ratio_warm %.2f x\n", mode_name[m], flw > 0 ? s / flw : 0.0);
        printf("stop_%s_peak_bytes_per_event %.1f B\n", mode_name[m], peak / (double)n);
    }
    return 0;
}
