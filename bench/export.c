/* bench/export.c - speed of prof_export_chrome_trace (and, side by side,
   prof_export_perfetto, prof_export_stacks_merged and prof_export_pprof,
   each beside the write(2) floor of its bytes) on 1M events carrying
   full Kineto args (input shapes, call stack, sequence number, FLOPs; see
   bench/synth.h), in events/s and MB/s (file size / time, best and median
   of the repetitions), and PyTorch's EventList.export_chrome_trace on the
   same events (bench/export_torch.py) for the ratio.

   PyTorch 1.13's EventList exporter writes name, ph, ts, dur, tid, pid and
   an empty args object only, so its file is much smaller: the events/s
   ratio compares like with like, the MB/s figures do not.

   The tree is built before timing (prof_events_build_tree), so the figures
   are the exporter alone. The trace goes to $PROF_BENCH_EXPORT_DIR, by
   default /dev/shm (tmpfs: the exporter's speed, not the disk's), else
   $TMPDIR or /tmp; no fsync. Each repetition writes a new file (the old one
   is removed first, untimed, on both sides), and the files are removed.

   The same events as plain scopes (no shapes, stack, sequence number or
   FLOPs: what PROF_SCOPE records in a C program) give the export_plain_*
   figures, and with their scope stacks only the export_stk_* figures (also
   with PROF_ARGS_LIGHT: export_stk_light_*). Each workload is also written to /dev/null (*_devnull_*): the
   exporter's formatting alone, without the file system's page cache.

   Environment: PROF_BENCH_EXPORT_EVENTS (default 1000000), PROF_BENCH_REPS
   (default 5; PyTorch: 3), PROF_BENCH_NO_TORCH=1, PROF_BENCH_PYTHON. */
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

/* Floor: write(2) of `bytes` in 64 KiB chunks to a new file in the same
   directory, the exporter's own chunk size; best of 3, seconds. */
static double write_floor(const char *path, double bytes) {
    static char chunk[1 << 16];
    double best = 1e30;
    int rep;
    memset(chunk, 'x', sizeof chunk);
    for (rep = 0; rep < 3; rep++) {
        double left = bytes, t0, t1;
        int fd;
        unlink(path);
        t0 = now_s();
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) return 0;
        while (left > 0) {
            size_t k = left < (double)sizeof chunk ? (size_t)left : sizeof chunk;
            if (write(fd, chunk, k) != (ssize_t)k) { close(fd); unlink(path); return 0; }
            left -= (double)k;
        }
        close(fd);
        t1 = now_s();
        if (t1 - t0 < best) best = t1 - t0;
    }
    unlink(path);
    return best;
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

/* Exports ev reps times; prints `<prefix>_*` figures; returns the median
   time (0 on failure). */
typedef prof_result (*export_fn)(prof_events *ev, const char *path);
static prof_result ex_chrome(prof_events *ev, const char *path) { return prof_export_chrome_trace(ev, path); }
static prof_result ex_perfetto(prof_events *ev, const char *path) { return prof_export_perfetto(ev, path); }
static prof_result ex_stacks(prof_events *ev, const char *path) { return prof_export_stacks_merged(ev, path, "self_cpu_time_total"); }
static prof_result ex_pprof(prof_events *ev, const char *path) { return prof_export_pprof(ev, path, "self_cpu_time_total"); }
static export_fn g_fn = ex_chrome;

static double measure(const char *prefix, prof_events *ev, size_t n, size_t reps, const char *path, double *size_out) {
    double secs[32], size = 0, best, med, wf;
    size_t i, k = 0;
    struct stat st;
    for (i = 0; i < reps; i++) {
        double t0, t1;
        prof_result r;
        unlink(path);
        t0 = now_s();
        r = g_fn(ev, path);
        t1 = now_s();
        if (r != PROF_OK) { printf("# export failed: %s\n", prof_last_error()); break; }
        secs[k++] = t1 - t0;
        if (stat(path, &st) == 0) size = (double)st.st_size;
    }
    if (!k) return 0;
    if (g_fn == ex_chrome && !looks_complete(path, size)) printf("# warning: %s does not look like a complete trace\n", path);
    unlink(path);
    best = secs[0];
    for (i = 1; i < k; i++) if (secs[i] < best) best = secs[i];
    med = median(secs, k);
    printf("%s_file_size %.1f MB\n", prefix, size / 1e6);
    printf("%s_bytes_per_event %.1f B\n", prefix, size / (double)n);
    printf("%s_time_best %.4f s\n", prefix, best);
    printf("%s_time_median %.4f s\n", prefix, med);
    printf("%s_events_per_s_best %.2f Mevents/s\n", prefix, (double)n / best / 1e6);
    printf("%s_events_per_s_median %.2f Mevents/s\n", prefix, (double)n / med / 1e6);
    printf("%s_mb_per_s_best %.0f MB/s\n", prefix, size / best / 1e6);
    printf("%s_mb_per_s_median %.0f MB/s\n", prefix, size / med / 1e6);
    printf("#   %s_time          ", prefix);
    for (i = 0; i < k; i++) printf(" %.4f", secs[i]);
    printf("\n");
    {
        /* the exporter without the file system: /dev/null takes each write
           at once, so this is the formatting (and the hand-over) alone */
        double nul[32];
        for (i = 0; i < reps; i++) {
            double t0 = now_s();
            if (g_fn(ev, "/dev/null") != PROF_OK) break;
            nul[i] = now_s() - t0;
        }
        if (i == reps) {
            double nb = nul[0];
            for (i = 1; i < reps; i++) if (nul[i] < nb) nb = nul[i];
            printf("%s_devnull_events_per_s_best %.2f Mevents/s\n", prefix, (double)n / nb / 1e6);
            printf("%s_devnull_events_per_s_median %.2f Mevents/s\n", prefix, (double)n / median(nul, reps) / 1e6);
            printf("%s_devnull_mb_per_s_median %.0f MB/s\n", prefix, size / median(nul, reps) / 1e6);
        }
    }
    wf = write_floor(path, size);
    if (wf > 0) {
        printf("# floor: write(2) of the same bytes in 64 KiB chunks, best of 3\n");
        printf("%s_write_floor_mb_per_s %.0f MB/s\n", prefix, size / wf / 1e6);
        printf("%s_write_floor_events_per_s %.2f Mevents/s\n", prefix, (double)n / wf / 1e6);
        printf("%s_time_ratio_to_write_floor %.2f x\n", prefix, med / wf);
    }
    fflush(stdout);
    *size_out = size;
    return med;
}

/* The other formats of the same events, side by side with the JSON, each
   with its write(2) floor: export<suffix>_perfetto_*, export<suffix>_stacks_*
   (merged folded stacks), export<suffix>_pprof_*. */
static void other_formats(const char *suffix, prof_events *ev, size_t n, size_t reps, const char *path) {
    static const struct { const char *name; export_fn fn; } F[] = { { "perfetto", ex_perfetto }, { "stacks", ex_stacks }, { "pprof", ex_pprof } };
    size_t k;
    for (k = 0; k < sizeof F / sizeof F[0]; k++) {
        char prefix[64];
        double size;
        snprintf(prefix, sizeof prefix, "export%s_%s", suffix, F[k].name);
        g_fn = F[k].fn;
        measure(prefix, ev, n, reps, path, &size);
    }
    g_fn = ex_chrome;
}

int main(void) {
    const char *python = getenv("PROF_BENCH_PYTHON");
    const char *tmp = getenv("PROF_BENCH_EXPORT_DIR");
    const char *env;
    size_t n = 1000000, reps = 5;
    double t_start = now_s(), med, med_plain, size, size_plain, size_stk;
    char path[512], input[512];
    prof_events *ev;
    if (!python || !*python) python = "/usr/bin/python3";
    if (!tmp || !*tmp) tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    if ((env = getenv("PROF_BENCH_EXPORT_EVENTS")) && *env) n = (size_t)strtoull(env, NULL, 10);
    if ((env = getenv("PROF_BENCH_REPS")) && *env) reps = (size_t)strtoul(env, NULL, 10);
    if (reps < 1) reps = 1;
    if (reps > 32) reps = 32;
    snprintf(path, sizeof path, "%s/prof-export-%ld.json", tmp, (long)getpid());
    snprintf(input, sizeof input, "%s/prof-export-%ld.bin", tmp, (long)getpid());

    header("prof.h export: prof_export_chrome_trace with full Kineto args, and plain scopes");
    init_args();
    ev = prof_events_create();
    if (!ev || prof_events_reserve(ev, n) != PROF_OK) return 1;
    synth_generate(n, 4, emit_add, ev);
    if (prof_events_build_tree(ev) != PROF_OK) return 1;
    printf("# %zu events (4 threads, shapes + stack + sequence_nr + flops), %zu repetitions; tree built before timing; files in %s\n",
           prof_events_count(ev), reps, tmp);
    fflush(stdout);
    if ((med = measure("export", ev, n, reps, path, &size)) <= 0) return 1;
    other_formats("", ev, n, reps, path);
    prof_events_free(ev);

    ev = prof_events_create();
    if (!ev || prof_events_reserve(ev, n) != PROF_OK) return 1;
    synth_generate(n, 4, emit_plain, ev);
    if (prof_events_build_tree(ev) != PROF_OK) return 1;
    printf("# the same %zu events as plain scopes (args: External id, Ev Idx)\n", prof_events_count(ev));
    fflush(stdout);
    if ((med_plain = measure("export_plain", ev, n, reps, path, &size_plain)) <= 0) return 1;
    other_formats("_plain", ev, n, reps, path);
    prof_events_free(ev);

    ev = prof_events_create();
    if (!ev || prof_events_reserve(ev, n) != PROF_OK) return 1;
    synth_generate(n, 4, emit_stacks, ev);
    if (prof_events_build_tree(ev) != PROF_OK) return 1;
    printf("# the same %zu events as plain scopes with their scope stacks\n", prof_events_count(ev));
    fflush(stdout);
    if (measure("export_stk", ev, n, reps, path, &size_stk) <= 0) return 1;
    other_formats("_stk", ev, n, reps, path);
    {
        /* PROF_ARGS_LIGHT: the JSON without the per-event ids */
        prof_export_options xo;
        memset(&xo, 0, sizeof xo);
        xo.args = PROF_ARGS_LIGHT;
        prof_events_set_export_options(ev, &xo);
        measure("export_stk_light", ev, n, reps, path, &size_stk);
    }
    prof_events_free(ev);

    if (getenv("PROF_BENCH_NO_TORCH") && *getenv("PROF_BENCH_NO_TORCH")) {
        printf("# PyTorch comparison skipped (PROF_BENCH_NO_TORCH)\n");
    } else {
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
    printf("# export bench took %.0f s\n", now_s() - t_start);
    return 0;
}
