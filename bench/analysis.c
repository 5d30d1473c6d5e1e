/* bench/analysis.c - time and memory of the analysis on big hand-built event
   lists (bench/synth.h: 4 threads of nested steps, 51 names, depth <= 6):
   prof_events_build_tree, prof_key_averages and prof_averages_table, at 1M
   and 10M events, and the same 1M events through PyTorch's EventList
   (_build_tree + key_averages, bench/analysis_torch.py) for the ratios.

   Each size runs in a fresh child process, so its peak RSS (VmHWM) is its
   own. Figures: seconds per phase (median over the repetitions), peak RSS
   of the whole process, RSS held by the list, per event.

   The same events with stacks time key_averages with group_by_stack_n = 5
   and prof_export_stacks_merged, per event (targets: <= 20 ns/event each),
   twice: with Python-like stacks (synth_stack: one stack per name, 51 in
   all, as PyTorch's with_stack gives them: `py`), and with scope stacks
   (what PROF_STACK_SCOPES gives a C program: each event's chain of
   enclosing scopes, itself innermost: `stk`). synth.h draws every step's
   names at random, so the scope stacks are a stress case: about 61k
   distinct stacks in 1M events, 6% of the events a new row.

   Environment: PROF_BENCH_REPS (default 3 at 1M, 1 at 10M),
   PROF_BENCH_NO_TORCH=1 skips PyTorch, PROF_BENCH_PYTHON (default
   /usr/bin/python3).

   `analysis --callgrind N [plain|stk|py]` runs each phase once on N events in this process
   (no fork, no timing), one named function per phase, for
   `valgrind --tool=callgrind` to count exactly:
     cg_add, cg_tree, cg_avg, cg_table (plain events),
     cg_add_stk, cg_tree_stk, cg_avg_stk (group_by_stack_n = 5), cg_merged_stk (scope stacks),
     cg_add_py, cg_tree_py, cg_avg_py, cg_merged_py (Python-like stacks). */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "common.h"
#include "synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


typedef struct result {
    double add_s, tree_s, avg_s, table_s;
    double list_bytes;       /* RSS of the list after the adds, per event */
    double peak;             /* VmHWM of the process, bytes */
    double peak_delta;       /* VmHWM above the RSS before the list, bytes */
    double rows, count_sum, self_sum_us, events_after_tree;
    double stk_tree_s, stk_avg_s, stk_merged_s, stk_rows; /* the events with scope stacks */
    double py_avg_s, py_merged_s, py_rows;                /* with Python-like stacks */
} result;

static void emit_add(const synth_ev *s, void *ctx) {
    prof_events *ev = (prof_events *)ctx;
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = synth_names[s->name];
    d.thread = s->thread;
    d.start_ns = s->start_us * 1000;
    d.end_ns = s->end_us * 1000;
    if (prof_events_add(ev, &d) < 0) { fprintf(stderr, "prof_events_add failed: %s\n", prof_last_error()); exit(1); }
}

/* The events with their scope stacks: "name (file:line)" frames of the
   enclosing scopes, innermost first, as PROF_STACK_SCOPES makes them.
   synth.h emits each step in pre-order, so the enclosing scopes of an event
   at level L are the last events of levels 0..L-1 on its thread. */
typedef struct stk_ctx { prof_events *ev; int open[16][8]; } stk_ctx;
static const char *g_labels[SYNTH_N_NAMES];
static char g_label_buf[SYNTH_N_NAMES][96];
static void emit_stacks(const synth_ev *s, void *ctx) {
    stk_ctx *c = (stk_ctx *)ctx;
    int *open = c->open[(s->thread - 4000) & 15], k;
    const char *stack[8];
    prof_event_desc d;
    if (!g_labels[0])
        for (k = 0; k < SYNTH_N_NAMES; k++) {
            snprintf(g_label_buf[k], sizeof g_label_buf[k], "%s (model.c:%d)", synth_names[k], 100 + 7 * k);
            g_labels[k] = g_label_buf[k];
        }
    open[s->level] = s->name;
    for (k = 0; k <= s->level; k++) stack[k] = g_labels[open[s->level - k]];
    memset(&d, 0, sizeof d);
    d.name = synth_names[s->name];
    d.thread = s->thread;
    d.start_ns = s->start_us * 1000;
    d.end_ns = s->end_us * 1000;
    d.stack = stack;
    d.stack_depth = s->level + 1;
    if (prof_events_add(c->ev, &d) < 0) { fprintf(stderr, "prof_events_add failed: %s\n", prof_last_error()); exit(1); }
}
/* The events with the Python-like stacks of bench/synth.h (synth_stack:
   one per name, 2-5 frames), as PyTorch's with_stack gives an op the same
   stack wherever the same line calls it. */
static void emit_pystacks(const synth_ev *s, void *ctx) {
    prof_events *ev = (prof_events *)ctx;
    const char *stack[8];
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = synth_names[s->name];
    d.thread = s->thread;
    d.start_ns = s->start_us * 1000;
    d.end_ns = s->end_us * 1000;
    d.stack = stack;
    d.stack_depth = synth_stack(s->name, stack, 8);
    if (prof_events_add(ev, &d) < 0) { fprintf(stderr, "prof_events_add failed: %s\n", prof_last_error()); exit(1); }
}
static const char *merged_path(void) {
    static char path[256];
    const char *tmp = getenv("TMPDIR");
    if (!path[0]) snprintf(path, sizeof path, "%s/prof-analysis-%ld.stacks", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    return path;
}

/* One function per phase, so callgrind names each one's instructions. */
static __attribute__((noinline)) prof_events *cg_add(size_t n) {
    prof_events *ev = prof_events_create();
    if (!ev || prof_events_reserve(ev, n) != PROF_OK) { fprintf(stderr, "cannot create the list\n"); exit(1); }
    synth_generate(n, 4, emit_add, ev);
    return ev;
}
static __attribute__((noinline)) prof_events *cg_add_stk(size_t n) {
    stk_ctx c;
    memset(&c, 0, sizeof c);
    c.ev = prof_events_create();
    if (!c.ev || prof_events_reserve(c.ev, n) != PROF_OK) { fprintf(stderr, "cannot create the list\n"); exit(1); }
    synth_generate(n, 4, emit_stacks, &c);
    return c.ev;
}
static __attribute__((noinline)) prof_events *cg_add_py(size_t n) {
    prof_events *ev = prof_events_create();
    if (!ev || prof_events_reserve(ev, n) != PROF_OK) { fprintf(stderr, "cannot create the list\n"); exit(1); }
    synth_generate(n, 4, emit_pystacks, ev);
    return ev;
}
static __attribute__((noinline)) void cg_tree(prof_events *ev) {
    if (prof_events_build_tree(ev) != PROF_OK) { fprintf(stderr, "build_tree failed\n"); exit(1); }
}
static __attribute__((noinline)) void cg_tree_stk(prof_events *ev) { cg_tree(ev); }
static __attribute__((noinline)) prof_averages *cg_avg(prof_events *ev, int stack_n) {
    prof_group_options g;
    prof_averages *avg;
    memset(&g, 0, sizeof g);
    g.group_by_stack_n = stack_n;
    if (!(avg = prof_key_averages(ev, &g))) { fprintf(stderr, "key_averages failed\n"); exit(1); }
    return avg;
}
static __attribute__((noinline)) prof_averages *cg_avg_stk(prof_events *ev) { return cg_avg(ev, 5); }
static __attribute__((noinline)) char *cg_table(prof_averages *avg) {
    prof_table_options opt;
    char *t;
    memset(&opt, 0, sizeof opt);
    opt.sort_by = "self_cpu_time_total";
    if (!(t = prof_averages_table(avg, &opt))) { fprintf(stderr, "table failed\n"); exit(1); }
    return t;
}
static __attribute__((noinline)) void cg_merged_stk(prof_events *ev) {
    if (prof_export_stacks_merged(ev, merged_path(), "self_cpu_time_total") != PROF_OK) { fprintf(stderr, "merged stacks failed\n"); exit(1); }
    unlink(merged_path());
}
static __attribute__((noinline)) void cg_tree_py(prof_events *ev) { cg_tree(ev); }
static __attribute__((noinline)) prof_averages *cg_avg_py(prof_events *ev) { return cg_avg(ev, 5); }
static __attribute__((noinline)) void cg_merged_py(prof_events *ev) { cg_merged_stk(ev); }
static int callgrind_run(size_t n, const char *only) {
    prof_events *ev;
    prof_averages *avg;
    char *t;
    if (only && !strcmp(only, "stk")) goto stk;
    if (only && !strcmp(only, "py")) goto py;
    ev = cg_add(n);
    cg_tree(ev);
    avg = cg_avg(ev, 0);
    t = cg_table(avg);
    printf("# %zu events, %zu rows, table %zu bytes\n", prof_events_count(ev), prof_averages_count(avg), strlen(t));
    prof_free_string(t);
    prof_averages_free(avg);
    prof_events_free(ev);
    if (only && !strcmp(only, "plain")) return 0;
stk:
    ev = cg_add_stk(n);
    cg_tree_stk(ev);
    avg = cg_avg_stk(ev);
    cg_merged_stk(ev);
    printf("# with scope stacks: %zu rows with group_by_stack_n = 5\n", prof_averages_count(avg));
    prof_averages_free(avg);
    prof_events_free(ev);
    if (only && !strcmp(only, "stk")) return 0;
py:
    ev = cg_add_py(n);
    cg_tree_py(ev);
    avg = cg_avg_py(ev);
    cg_merged_py(ev);
    printf("# with Python-like stacks: %zu rows with group_by_stack_n = 5\n", prof_averages_count(avg));
    prof_averages_free(avg);
    prof_events_free(ev);
    return 0;
}

static void child(int fd, size_t n) {
    result r;
    prof_events *ev;
    prof_averages *avg;
    prof_table_options opt;
    char *table;
    double rss0, t0, t1;
    size_t i;
    memset(&r, 0, sizeof r);
    reset_hwm();
    rss0 = rss_bytes();
    t0 = now_s();
    ev = prof_events_create();
    if (!ev || prof_events_reserve(ev, n) != PROF_OK) { fprintf(stderr, "cannot create the list\n"); _exit(1); }
    synth_generate(n, 4, emit_add, ev);
    t1 = now_s();
    r.add_s = t1 - t0;
    r.list_bytes = (rss_bytes() - rss0) / (double)n;

    t0 = now_s();
    if (prof_events_build_tree(ev) != PROF_OK) { fprintf(stderr, "build_tree failed\n"); _exit(1); }
    t1 = now_s();
    r.tree_s = t1 - t0;
    r.events_after_tree = (double)prof_events_count(ev);

    t0 = now_s();
    avg = prof_key_averages(ev, NULL);
    t1 = now_s();
    if (!avg) { fprintf(stderr, "key_averages failed\n"); _exit(1); }
    r.avg_s = t1 - t0;

    memset(&opt, 0, sizeof opt);
    opt.sort_by = "self_cpu_time_total";
    t0 = now_s();
    table = prof_averages_table(avg, &opt);
    t1 = now_s();
    if (!table) { fprintf(stderr, "table failed\n"); _exit(1); }
    r.table_s = t1 - t0;

    r.rows = (double)prof_averages_count(avg);
    for (i = 0; i < prof_averages_count(avg); i++) {
        const prof_avg *a = prof_averages_get(avg, i);
        r.count_sum += (double)a->count;
        r.self_sum_us += (double)(a->self_cpu_time_total_ns / 1000);
    }
    r.peak = hwm_bytes();
    r.peak_delta = r.peak - rss0;
    prof_free_string(table);
    prof_averages_free(avg);
    prof_events_free(ev);

    /* the same events with their scope stacks (after the peak reading) */
    ev = cg_add_stk(n);
    t0 = now_s();
    cg_tree_stk(ev);
    t1 = now_s();
    r.stk_tree_s = t1 - t0;
    t0 = now_s();
    avg = cg_avg_stk(ev);
    t1 = now_s();
    r.stk_avg_s = t1 - t0;
    t0 = now_s();
    cg_merged_stk(ev);
    t1 = now_s();
    r.stk_merged_s = t1 - t0;
    r.stk_rows = (double)prof_averages_count(avg);
    prof_averages_free(avg);
    prof_events_free(ev);

    ev = cg_add_py(n);
    cg_tree_py(ev);
    t0 = now_s();
    avg = cg_avg_py(ev);
    t1 = now_s();
    r.py_avg_s = t1 - t0;
    t0 = now_s();
    cg_merged_py(ev);
    t1 = now_s();
    r.py_merged_s = t1 - t0;
    r.py_rows = (double)prof_averages_count(avg);
    prof_averages_free(avg);
    prof_events_free(ev);
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r) _exit(3);
    _exit(0);
}

static int run_child(size_t n, result *out) {
    int fds[2], status;
    pid_t pid;
    size_t got = 0;
    if (pipe(fds) != 0) return -1;
    fflush(NULL);
    pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) { close(fds[0]); child(fds[1], n); }
    close(fds[1]);
    while (got < sizeof *out) {
        ssize_t k = read(fds[0], (char *)out + got, sizeof *out - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fds[0]);
    waitpid(pid, &status, 0);
    return (got == sizeof *out && WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : -1;
}



/* Medians of one size; returns them in *m. */
static int measure(const char *label, size_t n, size_t reps, result *m) {
    result r[32];
    double v[32];
    size_t i, k = 0;
    for (i = 0; i < reps; i++)
        if (run_child(n, &r[k]) == 0) k++;
    if (!k) { printf("# %s: the child failed\n", label); return -1; }
    *m = r[0];
#define MED(field) do { for (i = 0; i < k; i++) v[i] = r[i].field; m->field = median(v, k); } while (0)
    MED(add_s); MED(tree_s); MED(avg_s); MED(table_s); MED(list_bytes); MED(peak); MED(peak_delta);
    MED(stk_tree_s); MED(stk_avg_s); MED(stk_merged_s); MED(py_avg_s); MED(py_merged_s);
#undef MED
    printf("analysis_%s_add %.3f s\n", label, m->add_s);
    printf("analysis_%s_build_tree %.3f s\n", label, m->tree_s);
    printf("analysis_%s_key_averages %.3f s\n", label, m->avg_s);
    printf("analysis_%s_table %.4f s\n", label, m->table_s);
    printf("analysis_%s_tree_avg %.3f s\n", label, m->tree_s + m->avg_s);
    printf("analysis_%s_tree_avg_table %.3f s\n", label, m->tree_s + m->avg_s + m->table_s);
    printf("analysis_%s_tree_avg_rate %.2f Mevents/s\n", label, (double)n / (m->tree_s + m->avg_s) / 1e6);
    printf("analysis_%s_tree_avg_per_event %.1f ns/event\n", label, (m->tree_s + m->avg_s) * 1e9 / (double)n);
    printf("analysis_%s_py_group_by_stack_n %.1f ns/event (target <= 20)\n", label, m->py_avg_s * 1e9 / (double)n);
    printf("analysis_%s_py_merged_stacks %.1f ns/event (target <= 20)\n", label, m->py_merged_s * 1e9 / (double)n);
    printf("analysis_%s_stk_build_tree %.3f s\n", label, m->stk_tree_s);
    printf("analysis_%s_stk_group_by_stack_n %.1f ns/event (stress: %.0f rows)\n", label, m->stk_avg_s * 1e9 / (double)n, m->stk_rows);
    printf("analysis_%s_stk_merged_stacks %.1f ns/event (stress)\n", label, m->stk_merged_s * 1e9 / (double)n);
    printf("analysis_%s_list %.1f B/event\n", label, m->list_bytes);
    printf("analysis_%s_peak_rss %.1f MB\n", label, m->peak / 1048576.0);
    printf("analysis_%s_peak_above_start %.1f MB\n", label, m->peak_delta / 1048576.0);
    printf("# %s: %zu repetition(s); %.0f events after the tree, %.0f rows, counts sum %.0f, self_cpu sum %.0f us\n", label, k,
           m->events_after_tree, m->rows, m->count_sum, m->self_sum_us);
    fflush(stdout);
    return 0;
}

/* Runs the PyTorch side on the 1M file; returns 0 and fills the figures. */
typedef struct torch_res { double tree_s, avg_s, table_s, peak, rss_before, rows, count_sum, self_sum_us; int have; } torch_res;
static void run_torch(const char *python, const char *file, torch_res *t) {
    char cmd[1024], line[512];
    FILE *p;
    memset(t, 0, sizeof *t);
    snprintf(cmd, sizeof cmd, "'%s' bench/analysis_torch.py '%s'", python, file);
    p = popen(cmd, "r");
    if (!p) { printf("# cannot run %s\n", python); return; }
    while (fgets(line, sizeof line, p)) {
        char name[128];
        double v;
        fputs(line, stdout);
        if (sscanf(line, "%127s %lf", name, &v) != 2) continue;
        if (!strcmp(name, "torch_1m_build_tree")) t->tree_s = v;
        else if (!strcmp(name, "torch_1m_key_averages")) t->avg_s = v;
        else if (!strcmp(name, "torch_1m_table")) t->table_s = v;
        else if (!strcmp(name, "torch_1m_peak_rss")) t->peak = v * 1048576.0;
        else if (!strcmp(name, "torch_1m_rss_before_events")) t->rss_before = v * 1048576.0;
        else if (!strcmp(name, "torch_1m_rows")) t->rows = v;
        else if (!strcmp(name, "torch_1m_count_sum")) t->count_sum = v;
        else if (!strcmp(name, "torch_1m_self_sum")) t->self_sum_us = v;
    }
    t->have = pclose(p) == 0 && t->tree_s > 0 && t->avg_s > 0;
    fflush(stdout);
}

int main(int argc, char **argv) {
    const char *python = getenv("PROF_BENCH_PYTHON");
    const char *reps_env = getenv("PROF_BENCH_REPS");
    size_t reps1 = 3, reps10 = 1;
    result m1, m10;
    double t_start = now_s();
    int have1, have10;
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--callgrind")) return callgrind_run((size_t)strtoul(argv[2], NULL, 10), argc == 4 ? argv[3] : NULL);
    if (!python || !*python) python = "/usr/bin/python3";
    if (reps_env && *reps_env) {
        reps1 = reps10 = (size_t)strtoul(reps_env, NULL, 10);
        if (reps1 < 1) reps1 = reps10 = 1;
        if (reps1 > 32) reps1 = reps10 = 32;
    }
    header("prof.h analysis: build_tree + key_averages + table of hand-built event lists");
    printf("# events: 4 threads of nested steps, 51 names, depth <= 6 (bench/synth.h); each size in a fresh process\n");
    fflush(stdout);
    have1 = measure("1m", 1000000, reps1, &m1) == 0;
    have10 = measure("10m", 10000000, reps10, &m10) == 0;

    if (getenv("PROF_BENCH_NO_TORCH") && *getenv("PROF_BENCH_NO_TORCH")) {
        printf("# PyTorch comparison skipped (PROF_BENCH_NO_TORCH)\n");
    } else {
        char check[1024], file[256];
        const char *tmp = getenv("TMPDIR");
        snprintf(check, sizeof check, "'%s' -c 'import torch.autograd.profiler_util' >/dev/null 2>&1", python);
        if (system(check) != 0) {
            printf("# %s cannot import torch (python3-torch missing): PyTorch comparison skipped\n", python);
        } else if (have1) {
            torch_res t;
            snprintf(file, sizeof file, "%s/prof-analysis-%ld.bin", tmp && *tmp ? tmp : "/tmp", (long)getpid());
            if (synth_write_file(file, 1000000, 4) == 0) {
                run_torch(python, file, &t);
                unlink(file);
                if (t.have) {
                    int same = t.rows == m1.rows && t.count_sum == m1.count_sum && t.self_sum_us == m1.self_sum_us;
                    printf("analysis_1m_same_as_torch %s\n", same ? "yes" : "no");
                    if (!same)
                        printf("# torch: %.0f rows, counts %.0f, self %.0f us; prof.h: %.0f rows, counts %.0f, self %.0f us\n", t.rows, t.count_sum,
                               t.self_sum_us, m1.rows, m1.count_sum, m1.self_sum_us);
                    printf("analysis_1m_speedup_vs_torch %.1f x\n", (t.tree_s + t.avg_s) / (m1.tree_s + m1.avg_s));
                    printf("analysis_1m_speedup_vs_torch_with_table %.1f x\n",
                           (t.tree_s + t.avg_s + t.table_s) / (m1.tree_s + m1.avg_s + m1.table_s));
                    printf("analysis_1m_memory_vs_torch %.4f x\n", m1.peak / t.peak);
                    if (t.rss_before > 0)
                        printf("analysis_1m_memory_above_start_vs_torch %.4f x\n", m1.peak_delta / (t.peak - t.rss_before));
                } else {
                    printf("# the PyTorch run failed: no ratio\n");
                }
            }
        }
    }
    (void)have10;
    printf("# analysis bench took %.0f s\n", now_s() - t_start);
    return 0;
}
