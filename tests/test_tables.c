/* Exact tables: every tests/tables/NAME.case is built by hand through the
   public API and each table / total_average it requests must match
   NAME.expected byte for byte. The expected files come from the real
   PyTorch (tests/tables/gen_expected.py); the format is in FORMAT.md. */
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "table_requests.h"

static int passed, failed;


/* "12.375" microseconds -> 12375 ns (the cases use multiples of 0.125 us) */
/* Case times are decimal microseconds in multiples of 0.125 (FORMAT.md):
   read exactly, since strtod * 1000 would round past 2^53 ns. */
static int64_t us_to_ns(const char *s) {
    int neg = 0, digits = 0;
    int64_t whole = 0, frac = 0;
    if (*s == '-') { neg = 1; s++; }
    while (*s >= '0' && *s <= '9') whole = whole * 10 + (*s++ - '0');
    if (*s == '.') for (s++; *s >= '0' && *s <= '9' && digits < 3; digits++) frac = frac * 10 + (*s++ - '0');
    for (; digits < 3; digits++) frac *= 10;
    return neg ? -(whole * 1000 + frac) : whole * 1000 + frac;
}


/* Python literal [[2, 3], []] -> prof_shapes (static storage per call) */
static int parse_shapes(const char *s, prof_shapes *sh, int *ndims, int64_t *dims, int maxin, int maxdims) {
    int depth = 0, ni = 0, nd = 0;
    memset(sh, 0, sizeof *sh);
    for (; *s; s++) {
        if (*s == '[') {
            depth++;
            if (depth == 2) { if (ni >= maxin) return -1; ndims[ni] = 0; }
        } else if (*s == ']') {
            if (depth == 2) ni++;
            depth--;
        } else if ((*s >= '0' && *s <= '9') || *s == '-') {
            char *end;
            if (depth != 2 || nd >= maxdims) return -1;
            dims[nd++] = strtoll(s, &end, 10);
            ndims[ni]++;
            s = end - 1;
        }
    }
    sh->n_inputs = ni;
    sh->ndims = ndims;
    sh->dims = dims;
    return 0;
}

static void add_event(prof_events *ev, char **fields, int nf) {
    prof_event_desc d;
    static int ndims[64];
    static int64_t dims[256];
    char *stack[64];
    char *kernels[16];
    int nk = 0, i;
    memset(&d, 0, sizeof d);
    d.set = PROF_EVENT_SHAPES | PROF_EVENT_FWD_THREAD; /* generator defaults: shapes [], fwd_thread 0 */
    d.input_shapes.n_inputs = 0;
    for (i = 0; i < nf; i++) {
        char *k = fields[i], *v = strchr(k, '=');
        if (!v) continue;
        *v++ = 0;
        if (!strcmp(k, "name")) d.name = v;
        else if (!strcmp(k, "thread")) d.thread = strtoull(v, NULL, 10);
        else if (!strcmp(k, "start")) d.start_ns = us_to_ns(v);
        else if (!strcmp(k, "end")) d.end_ns = us_to_ns(v);
        else if (!strcmp(k, "node")) { d.set |= PROF_EVENT_NODE_ID; d.node_id = atoi(v); }
        else if (!strcmp(k, "async")) { if (atoi(v)) d.set |= PROF_EVENT_ASYNC; }
        else if (!strcmp(k, "overload")) d.overload_name = v;
        else if (!strcmp(k, "shapes")) { if (parse_shapes(v, &d.input_shapes, ndims, dims, 64, 256)) { fprintf(stderr, "bad shapes %s\n", v); failed++; } }
        else if (!strcmp(k, "stack")) {
            int n = 0;
            char *p = v;
            if (*p) {
                for (;;) {
                    char *bar = strchr(p, '|');
                    stack[n++] = p;
                    if (!bar || n == 64) break;
                    *bar = 0;
                    p = bar + 1;
                }
            }
            d.stack = (const char *const *)stack;
            d.stack_depth = n;
        }
        else if (!strcmp(k, "flops")) d.flops = strtoll(v, NULL, 10);
        else if (!strcmp(k, "cpu_mem")) d.cpu_memory_usage = strtoll(v, NULL, 10);
        else if (!strcmp(k, "dev_mem")) d.device_memory_usage = strtoll(v, NULL, 10);
        else if (!strcmp(k, "scope")) d.scope = atoi(v);
        else if (!strcmp(k, "seq")) { d.set |= PROF_EVENT_SEQUENCE_NR; d.sequence_nr = strtoll(v, NULL, 10); }
        else if (!strcmp(k, "fwd_thread")) d.fwd_thread = strtoull(v, NULL, 10);
        else if (!strcmp(k, "user_annotation")) { if (atoi(v)) d.set |= PROF_EVENT_USER_ANNOTATION; }
        else if (!strcmp(k, "legacy")) { if (atoi(v)) d.set |= PROF_EVENT_LEGACY; }
        else if (!strcmp(k, "device")) d.device_type = strcmp(v, "cuda") == 0 ? PROF_DEVICE_CUDA : strcmp(v, "hpu") == 0 ? (prof_device_type)15 : PROF_DEVICE_CPU;
        else if (!strcmp(k, "device_index")) d.device_index = atoi(v);
        else if (!strcmp(k, "resource")) { d.set |= PROF_EVENT_RESOURCE_ID; d.device_resource_id = strtoll(v, NULL, 10); }
        else if (!strcmp(k, "kernel")) { if (nk < 16) kernels[nk++] = v; }
        else if (!strcmp(k, "id")) { /* ids only label events in PyTorch's repr */ }
        else { fprintf(stderr, "unknown event field %s\n", k); failed++; }
    }
    {
        int64_t idx = prof_events_add(ev, &d);
        if (idx < 0) { fprintf(stderr, "prof_events_add failed: %s\n", prof_last_error()); failed++; return; }
        for (i = 0; i < nk; i++) {
            /* name:device:duration, split at the last two ':' */
            char *c2 = strrchr(kernels[i], ':'), *c1;
            *c2 = 0;
            c1 = strrchr(kernels[i], ':');
            *c1 = 0;
            prof_events_append_kernel(ev, (size_t)idx, kernels[i], atoi(c1 + 1), us_to_ns(c2 + 1));
        }
    }
}


/* memory<TAB>thread=1<TAB>ts=12.5<TAB>bytes=-4096[<TAB>device=cuda] */
static void add_memory(prof_events *ev, char **fields, int nf) {
    uint64_t thread = 0;
    int64_t ts = 0, bytes = 0;
    prof_device_type dev = PROF_DEVICE_CPU;
    int i;
    for (i = 0; i < nf; i++) {
        char *k = fields[i], *v = strchr(k, '=');
        if (!v) continue;
        *v++ = 0;
        if (!strcmp(k, "thread")) thread = strtoull(v, NULL, 10);
        else if (!strcmp(k, "ts")) ts = us_to_ns(v);
        else if (!strcmp(k, "bytes")) bytes = strtoll(v, NULL, 10);
        else if (!strcmp(k, "device")) dev = strcmp(v, "cuda") == 0 ? PROF_DEVICE_CUDA : PROF_DEVICE_CPU;
        else { fprintf(stderr, "unknown memory field %s\n", k); failed++; }
    }
    if (prof_events_add_memory(ev, thread, ts, bytes, dev, 0) != PROF_OK) { fprintf(stderr, "prof_events_add_memory failed: %s\n", prof_last_error()); failed++; }
}

static void run_case(const char *dir, const char *name) {
    char path[512];
    char *text, *line, *save = NULL, *expected;
    prof_events *ev = prof_events_create();
    out o = {0, 0, 0};
    size_t len;
    int profile_memory = 0, with_flops = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    text = check_read_file_n(path, NULL);
    if (!text || !ev) { fprintf(stderr, "cannot read %s\n", path); failed++; free(text); prof_events_free(ev); return; }
    out_put(&o, "");
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *fields[64];
        int nf = 0;
        char *kind, *tab;
        if (!line[0] || line[0] == '#') continue;
        kind = line;
        tab = strchr(line, '\t');
        while (tab && nf < 64) {
            *tab = 0;
            fields[nf++] = tab + 1;
            tab = strchr(tab + 1, '\t');
        }
        if (!strcmp(kind, "option")) {
            int i;
            for (i = 0; i < nf; i++) {
                if (!strncmp(fields[i], "use_device=", 11)) prof_events_set_device(ev, strcmp(fields[i] + 11, "none") ? fields[i] + 11 : NULL);
                else if (!strncmp(fields[i], "profile_memory=", 15)) profile_memory = atoi(fields[i] + 15);
                else if (!strncmp(fields[i], "with_flops=", 11)) with_flops = atoi(fields[i] + 11);
                else if (!strcmp(fields[i], "times=ns") || !strcmp(fields[i], "times=eighths")) {} /* read exactly either way */
                else { fprintf(stderr, "%s: unknown option %s\n", name, fields[i]); failed++; }
            }
            prof_events_set_flags(ev, profile_memory, with_flops);
        } else if (!strcmp(kind, "event")) {
            add_event(ev, fields, nf);
        } else if (!strcmp(kind, "memory")) {
            add_memory(ev, fields, nf);
        } else {
            failed += run_request(ev, &o, kind, fields, nf);
        }
    }
    snprintf(path, sizeof path, "%s/%.*s.expected", dir, (int)(strlen(name) - 5), name);
    expected = check_read_file_n(path, &len);
    if (!expected) { fprintf(stderr, "%s: missing %s\n", name, path); failed++; }
    else if (len != o.n || memcmp(expected, o.p, len) != 0) {
        char got[600];
        FILE *f;
        size_t i = 0;
        while (i < len && i < o.n && expected[i] == o.p[i]) i++;
        if (getenv("PROF_TABLES_DIR")) snprintf(got, sizeof got, "%s/%.*s.got", dir, (int)(strlen(name) - 5), name);
        else snprintf(got, sizeof got, "build/tables-%s.got", name);
        f = fopen(got, "wb");
        if (f) { fwrite(o.p, 1, o.n, f); fclose(f); }
        fprintf(stderr, "FAIL %s: output differs at byte %zu (see %s; diff it against %s)\n", name, i, got, path);
        failed++;
    } else {
        passed++;
    }
    free(expected);
    free(o.p);
    free(text);
    prof_events_free(ev);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The cases' directory: $PROF_TABLES_DIR (tests/tables/fuzz.py points it
   at generated cases; the .got files then go next to them), else
   tests/tables. */
int main(void) {
    const char *dir = getenv("PROF_TABLES_DIR") ? getenv("PROF_TABLES_DIR") : "tests/tables";
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    int n = 0, cap = 0, i;
    if (!d) { fprintf(stderr, "run from the repository root: cannot open %s\n", dir); return 1; }
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l > 5 && !strcmp(de->d_name + l - 5, ".case")) {
            if (n == cap) {
                char **grown = (char **)realloc(names, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *names);
                if (!grown) { fprintf(stderr, "out of memory\n"); return 1; }
                names = grown;
            }
            names[n++] = strdup(de->d_name);
        }
    }
    closedir(d);
    if (n) qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (i = 0; i < n; i++) { run_case(dir, names[i]); free(names[i]); }
    free(names);
    if (n == 0) { fprintf(stderr, "no cases found\n"); failed++; }
    printf("test_tables: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
