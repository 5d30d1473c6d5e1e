/* bench/export.c - speed and size of every exporter, each beside the
   write(2) floor of its own bytes: prof_export_chrome_trace (JSON),
   prof_export_perfetto, prof_export_stacks_merged (folded stacks) and
   prof_export_pprof, on four workloads of the same synthetic profile
   (bench/synth.h, 4 threads, depth <= 6):
     export_*        full Kineto args (input shapes, call stack, sequence
                     number, FLOPs)
     export_plain_*  plain scopes, as PROF_SCOPE records them in C (args:
                     External id, Ev Idx)
     export_stk_*    plain scopes with their scope stacks (also with
                     PROF_ARGS_LIGHT: export_stk_light_*)
     export_deep_*   plain scopes nested PROF_BENCH_DEPTH deep (default
                     1000): the figures must not move with depth
   and then PyTorch's EventList.export_chrome_trace on the same events
   (bench/export_torch.py) for the ratio.

   Per format and workload: bytes/event, events/s and MB/s (best and
   median of the repetitions), the same export into /dev/null (the
   formatting alone), and the floor: write(2) of as many bytes, in the
   exporter's own write size (1 MiB: the parallel JSON's buffers; 256 KiB:
   the writer's), to a new file in the same directory, best and median of
   as many repetitions. *_floor_speed_ratio is the floor's time over the
   exporter's (>= 0.9 is the target for the JSON). On a busy
   machine wall-clock ratios say little, so CPU times give two more:
   *_floor_speed_ratio_model, the ratio on two idle cores if formatting
   and writing overlap fully (from the formatting's CPU time into
   /dev/null and the floor's), and *_overlap_efficiency, that bound over
   the measured time (1 = both cores busy throughout). And from the CPU
   time the export into the file itself took (*_export_cpu_ns_per_event,
   beside formatting + write alone: what running them side by side adds),
   *_floor_speed_ratio_cpu: the ratio on two idle cores at that CPU time.

   The tree is built before timing (prof_events_build_tree), so the figures
   are the exporter alone. The files go to $PROF_BENCH_EXPORT_DIR, by
   default /dev/shm (tmpfs: the exporter's speed, not the disk's), else
   $TMPDIR or /tmp; no fsync. Each repetition writes a new file (the old one
   is removed first, untimed, on both sides), and the files are removed.

   Environment: PROF_BENCH_EXPORT_EVENTS (default 1000000; a list such as
   1000000,16000000 runs each size in turn, figures prefixed n<size>_ after
   the first), PROF_BENCH_REPS (default 5; PyTorch: 3), PROF_BENCH_DEPTH,
   PROF_BENCH_NO_TORCH=1, PROF_BENCH_PYTHON; PROF_BENCH_FORMATS and
   PROF_BENCH_WORKLOADS (comma lists, e.g. perfetto,chrome and plain) run
   only those (the PyTorch ratio needs the JSON on full and plain).

   Instruction counts (exact, for a shared machine): `export --callgrind
   FORMAT WORKLOAD N` exports once into /dev/null on one thread, FORMAT one
   of chrome perfetto stacks pprof, WORKLOAD one of full plain stk deep:
     valgrind --tool=callgrind --toggle-collect='prof_export_*' \
       build/bench-O2/export --callgrind perfetto plain 100000 */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "common.h"
#include "synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* Per-name args, parsed once from synth.h's tables. */
typedef struct name_args {
    int has_shapes;
    prof_shapes shapes;
    int ndims[16];
    int64_t dims[64];
    const char *stack[8];
    int stack_depth;
    int64_t flops;
} name_args;
static name_args g_args[SYNTH_N_NAMES];

/* "[[64, 512], [], [512]]" -> n_inputs, ndims, dims */
static void parse_shapes(const char *s, name_args *a) {
    int depth = 0, in = -1, nd = 0;
    a->shapes.n_inputs = 0;
    for (; *s; s++) {
        if (*s == '[') {
            if (++depth == 2) { in = a->shapes.n_inputs++; a->ndims[in] = 0; }
        } else if (*s == ']') {
            depth--;
        } else if (*s >= '0' && *s <= '9' && depth == 2) {
            a->dims[nd++] = strtoll(s, (char **)&s, 10);
            a->ndims[in]++;
            s--;
        }
    }
    a->shapes.ndims = a->ndims;
    a->shapes.dims = a->dims;
}
static void init_args(void) {
    int i;
    for (i = 0; i < SYNTH_N_NAMES; i++) {
        const char *sh = synth_shapes(i);
        memset(&g_args[i], 0, sizeof g_args[i]);
        if (sh) { g_args[i].has_shapes = 1; parse_shapes(sh, &g_args[i]); }
        g_args[i].stack_depth = synth_stack(i, g_args[i].stack, 8);
        g_args[i].flops = synth_flops(i);
    }
}

static void emit_add(const synth_ev *s, void *ctx) {
    prof_events *ev = (prof_events *)ctx;
    const name_args *a = &g_args[s->name];
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = synth_names[s->name];
    d.thread = s->thread;
    d.start_ns = s->start_us * 1000;
    d.end_ns = s->end_us * 1000;
    if (a->has_shapes) { d.set |= PROF_EVENT_SHAPES; d.input_shapes = a->shapes; }
    if (s->seq >= 0) { d.set |= PROF_EVENT_SEQUENCE_NR; d.sequence_nr = s->seq; }
    d.stack = a->stack;
    d.stack_depth = a->stack_depth;
    d.flops = a->flops;
    if (prof_events_add(ev, &d) < 0) { fprintf(stderr, "prof_events_add failed: %s\n", prof_last_error()); exit(1); }
}

/* The same events as a plain C program records them with PROF_SCOPE: name,
   thread and times, so args are Kineto's "External id" and "Ev Idx" only. */
static void emit_plain(const synth_ev *s, void *ctx) {
    prof_events *ev = (prof_events *)ctx;
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = synth_names[s->name];
    d.thread = s->thread;
    d.start_ns = s->start_us * 1000;
    d.end_ns = s->end_us * 1000;
    if (prof_events_add(ev, &d) < 0) { fprintf(stderr, "prof_events_add failed: %s\n", prof_last_error()); exit(1); }
}

/* The plain events with their scope stacks (what with_stack =
   PROF_STACK_SCOPES adds to a C program's PROF_SCOPEs). */
static void emit_stacks(const synth_ev *s, void *ctx) {
    prof_events *ev = (prof_events *)ctx;
    const name_args *a = &g_args[s->name];
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = synth_names[s->name];
    d.thread = s->thread;
    d.start_ns = s->start_us * 1000;
    d.end_ns = s->end_us * 1000;
    d.stack = a->stack;
    d.stack_depth = a->stack_depth;
    if (prof_events_add(ev, &d) < 0) { fprintf(stderr, "prof_events_add failed: %s\n", prof_last_error()); exit(1); }
}

/* The plain events nested `depth` deep: per thread, chains of `depth`
   scopes, each inside the last, 1 us apart, until n events. */
static int g_depth = 1000;
static void generate_deep(prof_events *ev, size_t n, int depth) {
    size_t i = 0;
    int64_t t0 = 0;
    while (i < n) {
        int th, k;
        for (th = 0; th < 4 && i < n; th++) {
            int d = (int)(n - i < (size_t)depth ? n - i : (size_t)depth);
            for (k = 0; k < d; k++, i++) {
                prof_event_desc e;
                memset(&e, 0, sizeof e);
                e.name = synth_names[13 + k % 17];
                e.thread = (uint64_t)th + 1;
                e.start_ns = (t0 + k) * 1000;
                e.end_ns = (t0 + 2 * (int64_t)d - k) * 1000;
                if (prof_events_add(ev, &e) < 0) { fprintf(stderr, "prof_events_add failed: %s\n", prof_last_error()); exit(1); }
            }
        }
        t0 += 2 * (int64_t)depth + 1;
    }
}

/* CPU seconds of the process, all threads. */
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The floor: write(2) of `bytes` in `chunk`-byte writes from one buffer to
   a new file at path (the exporter's directory); each repetition's
   seconds into secs. 0 on failure. */
static int write_floor(const char *path, double bytes, size_t chunk, double *secs, double *cpu, size_t reps) {
    char *buf = (char *)malloc(chunk);
    size_t rep;
    if (!buf) return 0;
    memset(buf, 'x', chunk);
    for (rep = 0; rep < reps; rep++) {
        double left = bytes, t0, c0;
        int fd;
        unlink(path);
        t0 = now_s();
        c0 = cpu_s();
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) { free(buf); return 0; }
        while (left > 0) {
            size_t k = left < (double)chunk ? (size_t)left : chunk;
            if (write(fd, buf, k) != (ssize_t)k) { close(fd); unlink(path); free(buf); return 0; }
            left -= (double)k;
        }
        close(fd);
        secs[rep] = now_s() - t0;
        cpu[rep] = cpu_s() - c0;
    }
    unlink(path);
    free(buf);
    return 1;
}

/* The file looks complete: starts with '{', ends with "}\n". */
static int looks_complete(const char *path, double size) {
    char a = 0, b[2] = { 0, 0 };
    FILE *f = fopen(path, "rb");
    int ok = 0;
    if (!f || size < 3) { if (f) fclose(f); return 0; }
    if (fread(&a, 1, 1, f) == 1 && fseek(f, -2, SEEK_END) == 0 && fread(b, 1, 2, f) == 2) ok = a == '{' && b[0] == '}' && b[1] == '\n';
    fclose(f);
    return ok;
}

typedef prof_result (*export_fn)(prof_events *ev, const char *path);
static prof_result ex_chrome(prof_events *ev, const char *path) { return prof_export_chrome_trace(ev, path); }
static prof_result ex_perfetto(prof_events *ev, const char *path) { return prof_export_perfetto(ev, path); }
static prof_result ex_stacks(prof_events *ev, const char *path) { return prof_export_stacks_merged(ev, path, "self_cpu_time_total"); }
static prof_result ex_pprof(prof_events *ev, const char *path) { return prof_export_pprof(ev, path, "self_cpu_time_total"); }
static const struct { const char *name; export_fn fn; } g_formats[] = {
    { "chrome", ex_chrome }, { "perfetto", ex_perfetto }, { "stacks", ex_stacks }, { "pprof", ex_pprof } };
#define N_FORMATS (sizeof g_formats / sizeof g_formats[0])

static double best_of(const double *v, size_t k) {
    double b = v[0];
    size_t i;
    for (i = 1; i < k; i++) if (v[i] < b) b = v[i];
    return b;
}

/* Exports ev reps times with fn into path, then into /dev/null, then the
   floor; prints `<prefix>_*` figures; returns the median time (0 on
   failure) and the file's size in *size_out. */
static double measure(const char *prefix, export_fn fn, prof_events *ev, size_t n, size_t reps, const char *path, double *size_out) {
    double secs[32], xc[32], nul[32], nulc[32], fl[32], flc[32], size = 0, best, med, nmed = 0, ncpu = 0, fmed, fbest, fcpu;
    size_t i, k = 0, chunk;
    int two;
    struct stat st;
    for (i = 0; i < reps; i++) {
        double t0, t1, c0;
        prof_result r;
        unlink(path);
        t0 = now_s();
        c0 = cpu_s();
        r = fn(ev, path);
        t1 = now_s();
        if (r != PROF_OK) { printf("# %s: export failed: %s\n", prefix, prof_last_error()); break; }
        xc[k] = cpu_s() - c0;
        secs[k++] = t1 - t0;
        if (stat(path, &st) == 0) size = (double)st.st_size;
    }
    if (!k) return 0;
    if (fn == ex_chrome && !looks_complete(path, size)) printf("# warning: %s does not look like a complete trace\n", path);
    unlink(path);
    best = best_of(secs, k);
    med = median(secs, k);
    printf("%s_file_size %.3f MB\n", prefix, size / 1e6);
    printf("%s_bytes_per_event %.3f B\n", prefix, size / (double)n);
    printf("%s_events_per_s_best %.2f Mevents/s\n", prefix, (double)n / best / 1e6);
    printf("%s_events_per_s_median %.2f Mevents/s\n", prefix, (double)n / med / 1e6);
    printf("%s_mb_per_s_median %.0f MB/s\n", prefix, size / med / 1e6);
    printf("#   %s_time          ", prefix);
    for (i = 0; i < k; i++) printf(" %.4f", secs[i]);
    printf("\n");
    /* the exporter without the file system: /dev/null takes each write at
       once, so this is the formatting (and the hand-over) alone; its CPU
       time, all threads, is the formatting's work */
    for (i = 0; i < reps; i++) {
        double t0 = now_s(), c0 = cpu_s();
        if (fn(ev, "/dev/null") != PROF_OK) break;
        nul[i] = now_s() - t0;
        nulc[i] = cpu_s() - c0;
    }
    if (i == reps) {
        nmed = median(nul, reps);
        ncpu = median(nulc, reps);
        printf("%s_devnull_events_per_s_median %.2f Mevents/s\n", prefix, (double)n / nmed / 1e6);
        printf("%s_format_cpu_ns_per_event %.1f ns\n", prefix, ncpu / (double)n * 1e9);
    }
    /* the floor: the same bytes, the same directory, the exporter's write
       size (the JSON's two workers write 1 MiB buffers; the writer 256 KiB) */
    two = fn == ex_chrome && n >= prof__par_min_events;
    chunk = two ? PROF__PAR_BUF : PROF__W_CHUNK;
    if (size > 0 && write_floor(path, size, chunk, fl, flc, reps)) {
        fbest = best_of(fl, reps);
        fmed = median(fl, reps);
        fcpu = median(flc, reps);
        printf("# floor: write(2) of the same bytes in %zu KiB writes, as many repetitions\n", chunk >> 10);
        printf("%s_floor_mb_per_s_median %.0f MB/s\n", prefix, size / fmed / 1e6);
        printf("%s_floor_speed_ratio_median %.3f (floor time / export time; 1 = at the floor)\n", prefix, fmed / med);
        printf("%s_floor_speed_ratio_best %.3f\n", prefix, fbest / best);
        if (ncpu > 0 && fcpu > 0) {
            /* On two idle cores the export can take no less than its work
               spread over them: the JSON's two workers each format and
               write, (format + write) / 2; the other formats one thread
               beside the writer's, max(format, write). From CPU times, so
               it holds on a busy machine: the ratio the export would reach
               on a quiet one if formatting and writing overlap fully. */
            double ideal = two ? (ncpu + fcpu) / 2 : ncpu;
            if (ideal < fcpu) ideal = fcpu;
            printf("%s_floor_speed_ratio_model %.3f (floor cpu %.4f s / max(write, %s) with formatting cpu %.4f s: two idle cores, full overlap)\n",
                   prefix, fcpu / ideal, fcpu, two ? "(format + write) / 2" : "format", ncpu);
            printf("%s_overlap_efficiency %.2f (that bound / the export's median time; 1 = both cores busy throughout; noisy)\n", prefix, ideal / med);
        }
        {
            /* The CPU the export itself spent (all threads, into the
               file): against the formatting's and the floor's, what
               running them side by side added (cache, memory bandwidth);
               spread over two idle cores, the ratio it would reach. */
            double xcpu = median(xc, k), spread = two ? xcpu / 2 : xcpu - fcpu;
            if (spread < fcpu) spread = fcpu;
            printf("%s_export_cpu_ns_per_event %.1f ns (format + write alone: %.1f)\n", prefix, xcpu / (double)n * 1e9, (ncpu + fcpu) / (double)n * 1e9);
            printf("%s_floor_speed_ratio_cpu %.3f (floor cpu / max(write, %s) from the export's own cpu: two idle cores, full overlap)\n",
                   prefix, fcpu / spread, two ? "export / 2" : "export - write");
        }
    }
    fflush(stdout);
    *size_out = size;
    return med;
}

/* PROF_BENCH_FORMATS / PROF_BENCH_WORKLOADS: whether `name` is in the
   comma list in that variable (unset or empty: everything). */
static int selected(const char *var, const char *name) {
    const char *l = getenv(var), *p;
    size_t n = strlen(name);
    if (!l || !*l) return 1;
    for (p = l; (p = strstr(p, name)) != NULL; p += n)
        if ((p == l || p[-1] == ',') && (p[n] == ',' || !p[n])) return 1;
    return 0;
}

/* Every format on one workload: <prefix> for the JSON (the names the
   earlier sessions' figures use), <prefix>_<format> for the others. */
static double all_formats(const char *prefix, prof_events *ev, size_t n, size_t reps, const char *path, double *json_size) {
    double med = 0, size;
    size_t k;
    for (k = 0; k < N_FORMATS; k++) {
        char name[160];
        if (!selected("PROF_BENCH_FORMATS", g_formats[k].name)) continue;
        if (k == 0) snprintf(name, sizeof name, "%s", prefix);
        else snprintf(name, sizeof name, "%s_%s", prefix, g_formats[k].name);
        if ((g_formats[k].fn == ex_stacks || g_formats[k].fn == ex_pprof) && !ev->stk) {
            /* a workload without stacks: both write an empty profile (and
               prof.h's warning); its throughput would measure nothing */
            printf("# %s: no event has a stack: no figures (an empty profile)\n", name);
            continue;
        }
        if (k == 0) med = measure(name, g_formats[k].fn, ev, n, reps, path, json_size);
        else measure(name, g_formats[k].fn, ev, n, reps, path, &size);
    }
    return med;
}

enum { W_FULL, W_PLAIN, W_STK, W_DEEP };
static prof_events *workload(int w, size_t n) {
    prof_events *ev = prof_events_create();
    if (!ev || prof_events_reserve(ev, n) != PROF_OK) return NULL;
    if (w == W_DEEP) generate_deep(ev, n, g_depth);
    else synth_generate(n, 4, w == W_FULL ? emit_add : w == W_PLAIN ? emit_plain : emit_stacks, ev);
    if (prof_events_build_tree(ev) != PROF_OK) { prof_events_free(ev); return NULL; }
    return ev;
}

/* export --callgrind FORMAT WORKLOAD N: one export into /dev/null on one
   thread, for instruction counts. */
static int callgrind_mode(int argc, char **argv) {
    static const char *const wl[] = { "full", "plain", "stk", "deep" };
    size_t k, f = N_FORMATS, n;
    int w = -1;
    prof_events *ev;
    if (argc < 5) { fprintf(stderr, "usage: export --callgrind chrome|perfetto|stacks|pprof full|plain|stk|deep N\n"); return 2; }
    for (k = 0; k < N_FORMATS; k++) if (!strcmp(argv[2], g_formats[k].name)) f = k;
    for (k = 0; k < 4; k++) if (!strcmp(argv[3], wl[k])) w = (int)k;
    n = (size_t)strtoull(argv[4], NULL, 10);
    if (f == N_FORMATS || w < 0 || !n) { fprintf(stderr, "export --callgrind: unknown format or workload\n"); return 2; }
    init_args();
    if (!(ev = workload(w, n))) return 1;
    prof__par_min_events = (size_t)-1; /* one thread: callgrind counts it all */
    if (g_formats[f].fn(ev, "/dev/null") != PROF_OK) { fprintf(stderr, "%s\n", prof_last_error()); return 1; }
    printf("# %s of %zu %s events into /dev/null, one thread\n", g_formats[f].name, prof_events_count(ev), wl[w]);
    prof_events_free(ev);
    return 0;
}

static void torch_ratio(const char *python, size_t n, const char *path, const char *input, double med, double size, double med_plain, double size_plain) {
    char cmd[1536], line[512];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import torch.autograd.profiler_util' >/dev/null 2>&1", python);
    if (system(cmd) != 0) {
        printf("# %s cannot import torch (python3-torch missing): PyTorch comparison skipped\n", python);
    } else if (synth_write_file(input, n, 4) == 0) {
        FILE *p;
        double torch_s = 0, torch_size = 0;
        snprintf(cmd, sizeof cmd, "'%s' bench/export_torch.py '%s' '%s' 3", python, input, path);
        p = popen(cmd, "r");
        while (p && fgets(line, sizeof line, p)) {
            char name[128];
            double v;
            fputs(line, stdout);
            if (sscanf(line, "%127s %lf", name, &v) != 2) continue;
            if (!strcmp(name, "torch_export_time_median")) torch_s = v;
            else if (!strcmp(name, "torch_export_file_size")) torch_size = v;
        }
        if (p && pclose(p) == 0 && torch_s > 0) {
            printf("export_speedup_vs_torch %.1f x\n", torch_s / med);
            printf("export_size_vs_torch %.2f x\n", size / 1e6 / torch_size);
            printf("export_plain_speedup_vs_torch %.1f x\n", torch_s / med_plain);
            printf("export_plain_size_vs_torch %.2f x\n", size_plain / 1e6 / torch_size);
        } else {
            printf("# the PyTorch run failed: no ratio\n");
        }
        unlink(input);
        unlink(path);
    }
}

/* All workloads at n events; names prefixed with pre ("" or "n16000000_"). */
static int run_size(size_t n, size_t reps, const char *pre, const char *path, double *med, double *size, double *med_plain, double *size_plain) {
    static const char *const names[] = { "export", "export_plain", "export_stk", "export_deep" };
    static const char *const wl[] = { "full", "plain", "stk", "deep" };
    static const char *const what[] = { "full Kineto args (shapes, stack, sequence_nr, flops)", "plain scopes (args: External id, Ev Idx)",
                                         "plain scopes with their scope stacks", "plain scopes nested PROF_BENCH_DEPTH deep" };
    int w;
    for (w = W_FULL; w <= W_DEEP; w++) {
        char prefix[96];
        double m, sz;
        prof_events *ev;
        if (!selected("PROF_BENCH_WORKLOADS", wl[w])) continue;
        if (!(ev = workload(w, n))) return 1;
        snprintf(prefix, sizeof prefix, "%s%s", pre, names[w]);
        printf("# %zu events: %s%s\n", prof_events_count(ev), what[w], w == W_DEEP ? "" : ", 4 threads");
        if (w == W_DEEP) printf("# depth %d\n", g_depth);
        fflush(stdout);
        if ((m = all_formats(prefix, ev, n, reps, path, &sz)) <= 0 && selected("PROF_BENCH_FORMATS", "chrome")) { prof_events_free(ev); return 1; }
        if (w == W_FULL) { *med = m; *size = sz; }
        if (w == W_PLAIN) { *med_plain = m; *size_plain = sz; }
        if (w == W_STK && selected("PROF_BENCH_FORMATS", "chrome")) {
            /* PROF_ARGS_LIGHT: the JSON without the per-event ids */
            prof_export_options xo;
            memset(&xo, 0, sizeof xo);
            xo.args = PROF_ARGS_LIGHT;
            prof_events_set_export_options(ev, &xo);
            snprintf(prefix, sizeof prefix, "%sexport_stk_light", pre);
            measure(prefix, ex_chrome, ev, n, reps, path, &sz);
        }
        prof_events_free(ev);
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *python = getenv("PROF_BENCH_PYTHON");
    const char *tmp = getenv("PROF_BENCH_EXPORT_DIR");
    const char *env, *sizes = "1000000";
    size_t n1 = 0, reps = 5;
    double t_start = now_s(), med = 0, med_plain = 0, size = 0, size_plain = 0;
    char path[512], input[512];
    if (argc > 1 && !strcmp(argv[1], "--callgrind")) return callgrind_mode(argc, argv);
    if (!python || !*python) python = "/usr/bin/python3";
    if (!tmp || !*tmp) tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    if ((env = getenv("PROF_BENCH_EXPORT_EVENTS")) && *env) sizes = env;
    if ((env = getenv("PROF_BENCH_REPS")) && *env) reps = (size_t)strtoul(env, NULL, 10);
    if ((env = getenv("PROF_BENCH_DEPTH")) && *env) g_depth = atoi(env);
    if (g_depth < 1) g_depth = 1;
    if (reps < 1) reps = 1;
    if (reps > 32) reps = 32;
    snprintf(path, sizeof path, "%s/prof-export-%ld.json", tmp, (long)getpid());
    snprintf(input, sizeof input, "%s/prof-export-%ld.bin", tmp, (long)getpid());

    header("prof.h export: every format beside the write(2) floor of its bytes");
    init_args();
    printf("# %zu repetitions; tree built before timing; files in %s\n", reps, tmp);
    while (*sizes) {
        char *end, pre[64] = "";
        size_t n = (size_t)strtoull(sizes, &end, 10);
        if (end == sizes) break;
        sizes = *end ? end + 1 : end;
        if (!n) continue;
        if (!n1) n1 = n;
        else snprintf(pre, sizeof pre, "n%zu_", n);
        if (!pre[0]) {
            if (run_size(n, reps, pre, path, &med, &size, &med_plain, &size_plain)) return 1;
        } else { /* PyTorch's ratio is for the first size only */
            double m, sz, mp, szp;
            if (run_size(n, reps, pre, path, &m, &sz, &mp, &szp)) return 1;
        }
    }
    if (!n1) return 1;
    if (getenv("PROF_BENCH_NO_TORCH") && *getenv("PROF_BENCH_NO_TORCH")) printf("# PyTorch comparison skipped (PROF_BENCH_NO_TORCH)\n");
    else if (med <= 0 || med_plain <= 0) printf("# PyTorch comparison skipped (it needs the JSON on full and plain)\n");
    else torch_ratio(python, n1, path, input, med, size, med_plain, size_plain);
    printf("# export bench took %.0f s\n", now_s() - t_start);
    return 0;
}
