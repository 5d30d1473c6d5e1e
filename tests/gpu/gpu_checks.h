/* gpu_checks.h - the checks of tests/gpu/run.sh, shared by the program that
   runs on a real GPU (gpu_check.cu) and the one that plays the same
   scenario on the fake CUPTI (fake_check.c), so that `make test` exercises
   every check the GPU run makes.

   A program runs its scenario in several sessions. For each it fills a
   gc_session (what it launched, in which scope, and what it measured with
   the kernels' own %globaltimer) and calls gc_check_session on prof_stop's events;
   each check prints one line, "pass: ..." or "FAIL: ...", with its figure.
   The exported trace is checked by check_trace.py (run.sh) against the
   expectations gc_write_expect writes. gc_report() returns the exit status. */
#ifndef PROF_GPU_CHECKS_H
#define PROF_GPU_CHECKS_H

#include "prof.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define GC_MAX 64

typedef struct gc_kernel {
    const char *scope;     /* the scope that launched it */
    const char *name;      /* the kernel's name up to '(' ("spin_a") */
    int device;
    int64_t stream;        /* CUPTI's stream id; -1 = not checked */
    int count;             /* launches of it in the scope */
    int64_t own_ns;        /* one launch's duration as the kernel timed itself; 0 = not measured */
} gc_kernel;

typedef struct gc_copy { const char *scope, *kind; uint64_t bytes; } gc_copy;        /* kind: "HtoD", "Memset", ... */
typedef struct gc_mem { const char *scope; int64_t device_bytes, cpu_bytes; } gc_mem; /* a scope's own memory */

typedef struct gc_session {
    int index;
    int64_t length_ns;     /* prof_start to prof_stop, measured by the program */
    gc_kernel kernels[GC_MAX];
    int nkernels;
    const char *any_kernels_scope[8]; /* scopes whose kernels are not named (cuBLAS) */
    int nany;
    gc_copy copies[GC_MAX];
    int ncopies;
    gc_mem mems[16];
    int nmems;
} gc_session;

static int gc_passed, gc_failed;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline void gc_result(int ok, const gc_session *s, const char *fmt, ...) {
    va_list ap;
    printf("%s: [session %d] ", ok ? "pass" : "FAIL", s ? s->index : 0);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    if (ok) gc_passed++;
    else gc_failed++;
}

/* "spin_a(long long)" matches "spin_a" */
static inline int gc_name_is(const char *event_name, const char *name) {
    size_t n = strlen(name);
    return strncmp(event_name, name, n) == 0 && (event_name[n] == 0 || event_name[n] == '(');
}
static inline int64_t gc_find(prof_events *ev, const char *name, int want_cpu) {
    size_t i, n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && (e.device_type == PROF_DEVICE_CPU) == want_cpu && gc_name_is(e.name, name)) return (int64_t)i;
    }
    return -1;
}
static inline int gc_is_kernel(prof_events *ev, const prof_event *e) {
    (void)ev;
    return e->device_type == PROF_DEVICE_CUDA && strncmp(e->name, "Memcpy", 6) != 0 && strncmp(e->name, "Memset", 6) != 0 &&
           !strstr(e->name, " Sync") && strcmp(e->name, "Stream Wait Event") != 0;
}

/* Every GPU event lies in the session and has real timestamps. */
static inline void gc_check_timestamps(prof_events *ev, const gc_session *s) {
    size_t i, n = prof_events_count(ev), dev = 0, bad = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK || e.device_type == PROF_DEVICE_CPU) continue;
        dev++;
        if (e.start_ns < lo) lo = e.start_ns;
        if (e.end_ns > hi) hi = e.end_ns;
        if (e.start_ns <= 0 || e.end_ns < e.start_ns || e.end_ns > s->length_ns) bad++;
    }
    gc_result(dev > 0 && bad == 0 && prof_events_stats(ev).cuda_no_timestamps == 0 && prof_events_stats(ev).cuda_unfinished == 0, s,
              "GPU timestamps: %zu GPU events, %zu outside (0, %.1f us], first %.1f us, last end %.1f us; %llu without timestamps, %llu unfinished",
              dev, bad, s->length_ns / 1e3, dev ? lo / 1e3 : 0.0, dev ? hi / 1e3 : 0.0,
              (unsigned long long)prof_events_stats(ev).cuda_no_timestamps, (unsigned long long)prof_events_stats(ev).cuda_unfinished);
}

/* Each kernel once per launch, with its device and stream; its duration
   against the kernel's own %globaltimer reading (1% or 3 us: CUPTI's span
   also holds the block's start and end, 0.6 to 1.1 us on an H200, and
   some GPUs step %globaltimer by about a microsecond). */
static inline void gc_check_kernels(prof_events *ev, const gc_session *s) {
    size_t i, n = prof_events_count(ev), total = 0, expected = 0, named = 0;
    int k;
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && gc_is_kernel(ev, &e)) total++;
    }
    for (k = 0; k < s->nkernels; k++) {
        const gc_kernel *x = &s->kernels[k];
        int found = 0, wrong_place = 0;
        int64_t worst = 0, worst_dur = 0;
        expected += (size_t)x->count;
        for (i = 0; i < n; i++) {
            prof_event e;
            if (prof_events_get(ev, i, &e) != PROF_OK || !gc_is_kernel(ev, &e) || !gc_name_is(e.name, x->name)) continue;
            found++;
            if (e.device_index != x->device || (x->stream >= 0 && e.device_resource_id != x->stream)) wrong_place++;
            if (x->own_ns > 0) {
                int64_t d = (e.end_ns - e.start_ns) - x->own_ns;
                if (d < 0) d = -d;
                if (d >= worst) { worst = d; worst_dur = e.end_ns - e.start_ns; }
            }
        }
        named += (size_t)found;
        gc_result(found == x->count && !wrong_place, s, "kernel %s (scope %s): %d seen, %d launched, %d on the wrong device/stream (device %d, stream %lld)",
                  x->name, x->scope, found, x->count, wrong_place, x->device, (long long)x->stream);
        if (x->own_ns > 0) {
            int64_t tol = x->own_ns / 100 > 3000 ? x->own_ns / 100 : 3000;
            gc_result(found > 0 && worst <= tol, s, "kernel %s duration: %.3f us vs its own %%globaltimer %.3f us (off by %.3f us, allowed %.3f us)",
                      x->name, worst_dur / 1e3, x->own_ns / 1e3, worst / 1e3, tol / 1e3);
        }
    }
    gc_result(named == expected && (s->nany > 0 ? total >= expected : total == expected), s,
              "kernels: %zu in the events, %zu of them by name, %zu launched by name%s", total, named, expected, s->nany ? " (plus cuBLAS's)" : "");
}

/* Each scope owns exactly the kernels it launched: count, and Self CUDA =
   the sum of their durations. */
static inline void gc_check_owners(prof_events *ev, const gc_session *s) {
    const char *scopes[GC_MAX];
    int nscopes = 0, k, j;
    for (k = 0; k < s->nkernels; k++) {
        for (j = 0; j < nscopes && strcmp(scopes[j], s->kernels[k].scope) != 0; j++) {}
        if (j == nscopes) scopes[nscopes++] = s->kernels[k].scope;
    }
    for (j = 0; j < nscopes; j++) {
        int64_t si = gc_find(ev, scopes[j], 1), sum = 0;
        size_t want = 0, i, n = prof_events_count(ev);
        prof_event sc;
        memset(&sc, 0, sizeof sc);
        if (si >= 0) prof_events_get(ev, (size_t)si, &sc);
        for (k = 0; k < s->nkernels; k++) {
            if (strcmp(s->kernels[k].scope, scopes[j]) != 0) continue;
            want += (size_t)s->kernels[k].count;
            for (i = 0; i < n; i++) {
                prof_event e;
                if (prof_events_get(ev, i, &e) == PROF_OK && gc_is_kernel(ev, &e) && gc_name_is(e.name, s->kernels[k].name)) sum += e.end_ns - e.start_ns;
            }
        }
        gc_result(si >= 0 && sc.n_kernels == want && sc.self_device_time_total_ns == sum, s,
                  "scope %s owns %zu GPU events (launched %zu), Self CUDA %.3f us (its kernels: %.3f us)", scopes[j], si >= 0 ? sc.n_kernels : 0,
                  want, sc.self_device_time_total_ns / 1e3, sum / 1e3);
    }
    for (j = 0; j < s->nany; j++) {
        int64_t si = gc_find(ev, s->any_kernels_scope[j], 1);
        prof_event sc;
        memset(&sc, 0, sizeof sc);
        if (si >= 0) prof_events_get(ev, (size_t)si, &sc);
        gc_result(si >= 0 && sc.n_kernels >= 1 && sc.self_device_time_total_ns > 0, s, "scope %s owns %zu kernels, Self CUDA %.3f us",
                  s->any_kernels_scope[j], sc.n_kernels, sc.self_device_time_total_ns / 1e3);
    }
}

/* Memory columns: the device and host memory a scope (and the calls in it) allocated. */
static inline void gc_check_memory(prof_events *ev, const gc_session *s) {
    int k;
    for (k = 0; k < s->nmems; k++) {
        int64_t si = gc_find(ev, s->mems[k].scope, 1);
        prof_event sc;
        memset(&sc, 0, sizeof sc);
        if (si >= 0) prof_events_get(ev, (size_t)si, &sc);
        gc_result(si >= 0 && sc.device_memory_usage == s->mems[k].device_bytes && sc.cpu_memory_usage == s->mems[k].cpu_bytes, s,
                  "scope %s memory: CUDA %lld B (expected %lld), CPU %lld B (expected %lld)", s->mems[k].scope, (long long)sc.device_memory_usage,
                  (long long)s->mems[k].device_bytes, (long long)sc.cpu_memory_usage, (long long)s->mems[k].cpu_bytes);
    }
}

static inline void gc_check_session(prof_events *ev, const gc_session *s) {
    if (!ev) { gc_result(0, s, "prof_stop returned no events"); return; }
    gc_check_timestamps(ev, s);
    gc_check_kernels(ev, s);
    gc_check_owners(ev, s);
    gc_check_memory(ev, s);
}

/* What check_trace.py checks in the session's trace: the copies (kind,
   bytes) and that every kernel, copy and set has its launch's flow. */
static inline int gc_write_expect(const gc_session *s, const char *path) {
    FILE *f = fopen(path, "w");
    int k;
    if (!f) return -1;
    fprintf(f, "{\"session\": %d, \"copies\": [", s->index);
    for (k = 0; k < s->ncopies; k++)
        fprintf(f, "%s{\"scope\": \"%s\", \"kind\": \"%s\", \"bytes\": %llu}", k ? ", " : "", s->copies[k].scope, s->copies[k].kind,
                (unsigned long long)s->copies[k].bytes);
    fprintf(f, "]}\n");
    return fclose(f);
}

static inline int gc_report(const char *what) {
    printf("%s: %d passed, %d failed\n", what, gc_passed, gc_failed);
    return gc_failed ? 1 : 0;
}

#endif /* PROF_GPU_CHECKS_H */
