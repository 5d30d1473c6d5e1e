/* bench/common.h - what every benchmark shares: the clock, memory readings,
   medians and the header naming the machine and the prof.h measured. */
#ifndef PROF_BENCH_COMMON_H
#define PROF_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_UNUSED __attribute__((unused))

/* The raw clock prof.h reads (see prof__now): the TSC on x86-64, the
   virtual counter on aarch64, CLOCK_MONOTONIC elsewhere (the floors'
   timestamps, so that they cost what prof.h's do). */
static __inline__ BENCH_UNUSED unsigned long long raw_clock(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    unsigned long long v = 0;
    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000u + (unsigned long long)ts.tv_nsec;
#endif
}

/* A positive whole number given to a benchmark (argument or environment
   knob): anything else stops the program with a message, where a figure
   of 0 events would print inf or nan. */
static BENCH_UNUSED unsigned long long bench_count(const char *what, const char *text) {
    char *end;
    unsigned long long v = 0;
    if (text[0] == '-' || text[0] == '+') end = (char *)text;
    else v = strtoull(text, &end, 10);
    if (end == text || *end || v == 0) {
        fprintf(stderr, "%s: '%s' is not a positive whole number\n", what, text);
        exit(2);
    }
    return v;
}
/* The same for an environment variable: def when it is unset or empty. */
static BENCH_UNUSED unsigned long long bench_env_count(const char *name, unsigned long long def) {
    const char *s = getenv(name);
    return s && *s ? bench_count(name, s) : def;
}

static BENCH_UNUSED double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static BENCH_UNUSED double rss_bytes(void) {
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return (double)res * (double)sysconf(_SC_PAGESIZE);
}

static BENCH_UNUSED double hwm_bytes(void) {
    char line[256];
    double kb = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kb = atof(line + 6);
    fclose(f);
    return kb * 1024.0;
}

static BENCH_UNUSED void reset_hwm(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) { fputs("5", f); fclose(f); }
}

static BENCH_UNUSED int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static BENCH_UNUSED void header(const char *what) {
    char line[512], model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            char *c = strchr(line, ':');
            if (strncmp(line, "model name", 10) == 0 && c) {
                snprintf(model, sizeof model, "%s", c + 2);
                model[strcspn(model, "\n")] = 0;
                break;
            }
        }
        fclose(f);
    }
    printf("# %s\n", what);
    printf("# machine: %s, nproc %ld, compiler " __VERSION__ "\n", model, sysconf(_SC_NPROCESSORS_ONLN));
    /* which prof.h: the commit, and whether the file differs from it */
    f = popen("git log -1 --format='%h %cd' --date=iso -- prof.h 2>/dev/null; git status --porcelain -- prof.h 2>/dev/null", "r");
    if (f) {
        char rev[128] = "", st[128] = "";
        if (fgets(rev, sizeof rev, f)) rev[strcspn(rev, "\n")] = 0;
        if (!fgets(st, sizeof st, f)) st[0] = 0;
        pclose(f);
        if (rev[0]) printf("# prof.h: last commit %s%s\n", rev, st[0] ? ", with uncommitted changes" : "");
    }
}

static BENCH_UNUSED double median(const double *v, size_t n) {
    double tmp[64];
    if (n == 0 || n > 64) return 0;
    memcpy(tmp, v, n * sizeof *v);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

#endif
