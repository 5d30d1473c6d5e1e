/* check.h - a tiny header-only test harness for prof.h's tests.

   Include it after prof.h (the test file defines PROF_IMPLEMENTATION):

       #define PROF_IMPLEMENTATION
       #include "prof.h"
       #include "check.h"

       int main(void) {
           prof_set_log(check_log, NULL);      // capture prof.h's messages
           CHECK(1 + 1 == 2);
           CHECK_EQ_INT(prof_events_count(ev), 3);
           CHECK_EQ_STR(e.name, "matmul");
           CHECK(check_log_count(PROF_E_DROPPED) == 1);
           return check_report();              // "test_foo: 12 passed, 0 failed"
       }

   Every CHECK counts one pass or one failure; a failure prints
   file:line, the expression and the values. The counters are atomic, so
   worker threads may CHECK too. check_log (a prof_log_fn) keeps the last
   CHECK_LOG_MAX messages with their level and code; check_log_reset()
   forgets them. Everything is static and marked unused, so a test that
   uses only part of it still compiles under -Wall -Wextra -Werror, in C
   and in C++. */
#ifndef PROF_TEST_CHECK_H
#define PROF_TEST_CHECK_H

#include "prof.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sanitizers.h"

#if defined(__GNUC__) || defined(__clang__)
#define CHECK__UNUSED __attribute__((unused))
#else
#define CHECK__UNUSED
#endif

static CHECK__UNUSED long check__passed;
static CHECK__UNUSED long check__failed;

static CHECK__UNUSED void check__pass(void) { __atomic_fetch_add(&check__passed, 1, __ATOMIC_RELAXED); }
static CHECK__UNUSED void check__fail(void) { __atomic_fetch_add(&check__failed, 1, __ATOMIC_RELAXED); }
static CHECK__UNUSED long check_failures(void) { return __atomic_load_n(&check__failed, __ATOMIC_RELAXED); }

static CHECK__UNUSED int check__cond(int ok, const char *file, int line, const char *expr) {
    if (ok) { check__pass(); return 1; }
    check__fail();
    fprintf(stderr, "%s:%d: CHECK(%s) failed\n", file, line, expr);
    fflush(stderr);
    return 0;
}

static CHECK__UNUSED int check__eq_int(long long a, long long b, const char *file, int line, const char *ea, const char *eb) {
    if (a == b) { check__pass(); return 1; }
    check__fail();
    fprintf(stderr, "%s:%d: CHECK_EQ_INT(%s, %s) failed: %lld != %lld\n", file, line, ea, eb, a, b);
    fflush(stderr);
    return 0;
}

static CHECK__UNUSED int check__eq_str(const char *a, const char *b, const char *file, int line, const char *ea, const char *eb) {
    if ((a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0)) { check__pass(); return 1; }
    check__fail();
    fprintf(stderr, "%s:%d: CHECK_EQ_STR(%s, %s) failed: %s%s%s != %s%s%s\n", file, line, ea, eb,
            a ? "\"" : "", a ? a : "NULL", a ? "\"" : "", b ? "\"" : "", b ? b : "NULL", b ? "\"" : "");
    fflush(stderr);
    return 0;
}

/* Names in dir containing ".tmp" (prof.h's temporary files are
   PATH.tmpPID.N), each named on stderr: what a failed export left behind. */
static CHECK__UNUSED int check_count_tmp(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;
    if (!d) return 0;
    while ((de = readdir(d)) != NULL) {
        if (strstr(de->d_name, ".tmp")) {
            fprintf(stderr, "temporary file left behind: %s/%s\n", dir, de->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

/* Each evaluates its arguments once and yields 1 on success, 0 on failure. */
#define CHECK(cond) check__cond(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_EQ_INT(a, b) check__eq_int((long long)(a), (long long)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_STR(a, b) check__eq_str((a), (b), __FILE__, __LINE__, #a, #b)
/* CHECK with a printf-style explanation printed on failure. */
#define CHECK_MSG(cond, ...) \
    ((cond) ? (check__pass(), 1) : (check__fail(), fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond), \
                                     fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), fflush(stderr), 0))

/* ----- log capture: pass check_log as prof_config.log or to prof_set_log ----- */
#ifndef CHECK_LOG_MAX
#define CHECK_LOG_MAX 64
#endif
typedef struct check_log_entry {
    prof_log_level level;
    prof_result code;
    char message[512];
} check_log_entry;

static CHECK__UNUSED pthread_mutex_t check__log_lock = PTHREAD_MUTEX_INITIALIZER;
static CHECK__UNUSED check_log_entry check__log_buf[CHECK_LOG_MAX];
static CHECK__UNUSED size_t check__log_n;      /* messages since the last reset */
static CHECK__UNUSED int check__log_echo = -1; /* -1 = read CHECK_LOG_ECHO once */

static CHECK__UNUSED void check_log(prof_log_level level, prof_result code, const char *message, void *user_data) {
    check_log_entry *e;
    (void)user_data;
    pthread_mutex_lock(&check__log_lock);
    if (check__log_echo < 0) check__log_echo = getenv("CHECK_LOG_ECHO") != NULL;
    if (check__log_echo) fprintf(stderr, "[prof log %d/%d] %s\n", (int)level, (int)code, message ? message : "(null)");
    e = &check__log_buf[check__log_n % CHECK_LOG_MAX];
    e->level = level;
    e->code = code;
    snprintf(e->message, sizeof e->message, "%s", message ? message : "");
    check__log_n++;
    pthread_mutex_unlock(&check__log_lock);
}

static CHECK__UNUSED void check_log_reset(void) {
    pthread_mutex_lock(&check__log_lock);
    check__log_n = 0;
    pthread_mutex_unlock(&check__log_lock);
}

/* Messages logged since the last reset (all of them, even past CHECK_LOG_MAX). */
static CHECK__UNUSED size_t check_log_total(void) {
    size_t n;
    pthread_mutex_lock(&check__log_lock);
    n = check__log_n;
    pthread_mutex_unlock(&check__log_lock);
    return n;
}

/* Kept messages with this code (and, if substr is not NULL, containing it). */
static CHECK__UNUSED int check_log_find(prof_result code, const char *substr, prof_log_level *level_out) {
    size_t i, n, first;
    int count = 0;
    pthread_mutex_lock(&check__log_lock);
    n = check__log_n < CHECK_LOG_MAX ? check__log_n : CHECK_LOG_MAX;
    first = check__log_n - n;
    for (i = first; i < check__log_n; i++) {
        const check_log_entry *e = &check__log_buf[i % CHECK_LOG_MAX];
        if (e->code != code) continue;
        if (substr && !strstr(e->message, substr)) continue;
        if (level_out) *level_out = e->level;
        count++;
    }
    pthread_mutex_unlock(&check__log_lock);
    return count;
}
static CHECK__UNUSED int check_log_count(prof_result code) { return check_log_find(code, NULL, NULL); }
static CHECK__UNUSED int check_log_has(prof_result code, const char *substr) { return check_log_find(code, substr, NULL) > 0; }

/* The kept message i (0 = oldest kept), or NULL. */
static CHECK__UNUSED const check_log_entry *check_log_get(size_t i) {
    size_t n = check__log_n < CHECK_LOG_MAX ? check__log_n : CHECK_LOG_MAX;
    if (i >= n) return NULL;
    return &check__log_buf[(check__log_n - n + i) % CHECK_LOG_MAX];
}

/* ----- environment ----- */
/* This process's resident memory in KiB, from /proc/self/statm; -1 when
   it cannot be read. */
static CHECK__UNUSED long check_rss_kib(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}
/* 1 when running under valgrind (its preload library is in LD_PRELOAD). */
/* A whole file as a NUL-terminated string (malloc'ed; NULL when it cannot be
   read): for tests that compare a written file with an expected text. */
/* A whole file, NUL-terminated, its length in *len (when len is not NULL:
   a file may hold NUL bytes); NULL if it cannot be read whole. */
static CHECK__UNUSED char *check_read_file_n(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (p = (char *)malloc((size_t)n + 1)) != NULL) {
        if (fread(p, 1, (size_t)n, f) != (size_t)n) {
            free(p);
            p = NULL;
        } else {
            p[n] = 0;
            if (len) *len = (size_t)n;
        }
    }
    fclose(f);
    return p;
}
static CHECK__UNUSED char *check_read_file(const char *path) { return check_read_file_n(path, NULL); }
static CHECK__UNUSED int check_under_valgrind(void) {
    const char *p = getenv("LD_PRELOAD");
    return p && (strstr(p, "vgpreload") || strstr(p, "valgrind"));
}
/* 1 when built with clang's MSan (its shadow doubles what memory is
   touched: the peak-RSS checks do not hold there). */
static CHECK__UNUSED int check_under_msan(void) {
#if defined(TEST_MSAN)
    return 1;
#else
    return 0;
#endif
}
/* 1 when built with ASan, TSan or MSan (slower: tests may scale down). */
static CHECK__UNUSED int check_under_sanitizer(void) {
#if defined(TEST_ASAN) || defined(TEST_TSAN)
    return 1;
#else
    return check_under_msan();
#endif
}
/* n, or n / div under valgrind or a sanitizer (at least 1). */
static CHECK__UNUSED long check_scale(long n, long div) {
    if (div > 1 && (check_under_valgrind() || check_under_sanitizer())) n /= div;
    return n > 0 ? n : 1;
}

/* A watchdog for a step that must not take quadratic time: check_watchdog
   (s, what) fails the test with "what took too long" if the step is not
   over in s seconds (6 * s under valgrind or a sanitizer, 10-50x slower,
   which the quadratic path is still far beyond); check_watchdog(0, NULL)
   ends it. (The suite's only timing: a failure is a wall, not a figure.) */
static CHECK__UNUSED const char *check__watchdog_what;
static CHECK__UNUSED void check__watchdog_fire(int sig) {
    static const char tail[] = " took too long\n";
    const char *w = check__watchdog_what ? check__watchdog_what : "a step";
    (void)sig;
    if (write(2, w, strlen(w)) < 0 || write(2, tail, sizeof tail - 1) < 0) _exit(1);
    _exit(1);
}
static CHECK__UNUSED void check_watchdog(unsigned s, const char *what) {
    if (!s) { alarm(0); return; }
    check__watchdog_what = what;
    signal(SIGALRM, check__watchdog_fire);
    alarm(check_under_valgrind() || check_under_sanitizer() ? 6 * s : s);
}

/* The "External id" of the first event named name in a JSON trace's text
   (the first "External id" after its name), or -1. */
static CHECK__UNUSED long check_json_ext_id(const char *text, const char *name) {
    char key[256];
    const char *p, *q;
    snprintf(key, sizeof key, "\"name\": \"%s\"", name);
    if (!(p = strstr(text, key)) || !(q = strstr(p, "\"External id\": "))) return -1;
    return strtol(q + 15, NULL, 10);
}

/* ----- every exporter, for tests of what all of them must do ----- */
typedef prof_result (*check_export_fn)(prof_events *ev, const char *path);
static CHECK__UNUSED prof_result check_ex_trace(prof_events *ev, const char *path) { return prof_export_chrome_trace(ev, path); }
static CHECK__UNUSED prof_result check_ex_stacks(prof_events *ev, const char *path) { return prof_export_stacks(ev, path, "self_cpu_time_total"); }
static CHECK__UNUSED prof_result check_ex_merged(prof_events *ev, const char *path) {
    return prof_export_stacks_merged(ev, path, "self_cpu_time_total");
}
static CHECK__UNUSED prof_result check_ex_timeline(prof_events *ev, const char *path) {
    return prof_export_memory_timeline(ev, path, PROF_DEVICE_CPU, 0);
}
static CHECK__UNUSED prof_result check_ex_perfetto(prof_events *ev, const char *path) { return prof_export_perfetto(ev, path); }
static CHECK__UNUSED prof_result check_ex_pprof(prof_events *ev, const char *path) { return prof_export_pprof(ev, path, "self_cpu_time_total"); }
static CHECK__UNUSED const struct check_exporter {
    const char *name;
    check_export_fn fn;
} CHECK_EXPORTERS[] = {
    { "prof_export_chrome_trace", check_ex_trace },       { "prof_export_stacks", check_ex_stacks },
    { "prof_export_stacks_merged", check_ex_merged },     { "prof_export_memory_timeline", check_ex_timeline },
    { "prof_export_perfetto", check_ex_perfetto },        { "prof_export_pprof", check_ex_pprof },
};
#define CHECK_N_EXPORTERS (sizeof CHECK_EXPORTERS / sizeof CHECK_EXPORTERS[0])

/* ----- hand-built event lists ----- */
/* Adds the event name on thread, [start, end] ns, with the stack's depth
   frames (innermost first; NULL, 0: none), to ev: one CHECK that
   prof_events_add took it. Returns prof_events_add's result (its index). */
static CHECK__UNUSED int64_t check_add_event_stack(prof_events *ev, const char *name, uint64_t thread, int64_t start, int64_t end, const char *const *stack, int depth) {
    prof_event_desc d;
    int64_t i;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = thread;
    d.start_ns = start;
    d.end_ns = end;
    d.stack = stack;
    d.stack_depth = depth;
    i = prof_events_add(ev, &d);
    CHECK(i >= 0);
    return i;
}
static CHECK__UNUSED int64_t check_add_event(prof_events *ev, const char *name, uint64_t thread, int64_t start, int64_t end) {
    return check_add_event_stack(ev, name, thread, start, end, NULL, 0);
}
/* The same for a kernel on device's stream (thread 1 launched it). */
static CHECK__UNUSED void check_add_kernel(prof_events *ev, const char *name, int device, int64_t stream, int64_t start, int64_t end) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = start;
    d.end_ns = end;
    d.device_type = PROF_DEVICE_CUDA;
    d.device_index = device;
    d.set = PROF_EVENT_RESOURCE_ID;
    d.device_resource_id = stream;
    CHECK(prof_events_add(ev, &d) >= 0);
}
/* The index of the nth (from 0) event named name, -1 if none. */
static CHECK__UNUSED int64_t check_find_event(prof_events *ev, const char *name, int nth) {
    size_t i, n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0 && nth-- == 0) return (int64_t)i;
    }
    return -1;
}
/* Event i, or for i < 0 (check_find_event found none) one named
   "(missing)" with parent -2, whose checks then fail by name. (Returned
   whole, for its callers' expressions: a test built with
   -Waggregate-return that includes this file calls it not.) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Waggregate-return"
static CHECK__UNUSED prof_event check_get_event(prof_events *ev, int64_t i) {
    prof_event e;
    memset(&e, 0, sizeof e);
    e.name = "(missing)";
    e.parent = -2;
    if (i >= 0) prof_events_get(ev, (size_t)i, &e);
    return e;
}
/* The first event named name, or the "(missing)" one. */
static CHECK__UNUSED prof_event check_event_named(prof_events *ev, const char *name) {
    return check_get_event(ev, check_find_event(ev, name, 0));
}
#pragma GCC diagnostic pop
/* How many events are named name. */
static CHECK__UNUSED long check_count_named(prof_events *ev, const char *name) {
    size_t i, n = prof_events_count(ev);
    long k = 0;
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) k++;
    }
    return k;
}
/* How many times needle occurs in text (not overlapping). */
static CHECK__UNUSED int check_count_str(const char *text, const char *needle) {
    int n = 0;
    const char *p = text;
    while ((p = strstr(p, needle)) != NULL) { n++; p += strlen(needle); }
    return n;
}
/* The one-event list the export tests write: "leaf" on thread 1, [1000,
   5000] ns, with the stack leaf <- root (so every format has a frame). */
static CHECK__UNUSED void check_add_leaf(prof_events *ev) {
    static const char *const st[2] = { "leaf", "root" };
    check_add_event_stack(ev, "leaf", 1, 1000, 5000, st, 2);
}

/* ----- the JSON trace's viewers (cwd = repo root) ----- */
/* 1 when node and tests/js/node_modules are there, so that check_viewers
   can run DevTools' trace engine and speedscope (asked once). */
static CHECK__UNUSED int check_have_viewers(void) {
    static int have = -1;
    struct stat st;
    if (have < 0) have = system("node --version >/dev/null 2>&1") == 0 && stat("tests/js/node_modules/speedscope", &st) == 0;
    return have;
}
/* dir/name.json loaded by tests/js/check_trace.mjs (DevTools' trace
   engine) and, when speedscope is set, check_speedscope.mjs, each checked
   against dir/name.expect.json: one CHECK each. Nothing when
   check_have_viewers() is 0. */
static CHECK__UNUSED void check_viewers(const char *dir, const char *name, int speedscope) {
    static const char *const tools[2] = {"check_trace.mjs", "check_speedscope.mjs"};
    char cmd[512];
    int t;
    if (!check_have_viewers()) return;
    for (t = 0; t < (speedscope ? 2 : 1); t++) {
        fflush(stdout);
        snprintf(cmd, sizeof cmd, "cd tests/js && node %s ../../%s/%s.json ../../%s/%s.expect.json", tools[t], dir, name, dir, name);
        CHECK_MSG(system(cmd) == 0, "%s", cmd);
    }
}

/* ----- report ----- */
static CHECK__UNUSED int check__report(const char *file) {
    const char *base = strrchr(file, '/');
    const char *dot;
    long p = __atomic_load_n(&check__passed, __ATOMIC_RELAXED), f = __atomic_load_n(&check__failed, __ATOMIC_RELAXED);
    base = base ? base + 1 : file;
    dot = strrchr(base, '.');
    printf("%.*s: %ld passed, %ld failed\n", (int)(dot ? (size_t)(dot - base) : strlen(base)), base, p, f);
    fflush(stdout);
    return f != 0;
}
/* `return check_report();` at the end of main: prints the closing line
   "test_name: N passed, M failed" and returns nonzero on failures. */
#define check_report() check__report(__FILE__)

typedef struct check_xev { char name[32]; double pid, tid, ts, end; } check_xev;

/* The "X" events of a trace prof.h wrote (one event a line), with pid and
   tid as the doubles a JavaScript viewer reads. */
static CHECK__UNUSED int check_read_x(const char *text, check_xev *out, int max) {
    int n = 0;
    const char *line = text;
    while (line && *line && n < max) {
        const char *eol = strchr(line, '\n'), *p;
        char one[4096]; /* the line's first 4 KiB, which hold the fields read (names up to 4000 bytes): strstr there, as ASan's strstr measures the whole text at each call */
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len >= sizeof one) len = sizeof one - 1;
        memcpy(one, line, len);
        one[len] = 0;
        if (strncmp(one, "  {\"ph\": \"X\"", 12) == 0) {
            check_xev *x = &out[n];
            double dur;
            memset(x, 0, sizeof *x);
            if ((p = strstr(one, "\"name\": \"")) != NULL) sscanf(p + 9, "%31[^\"]", x->name);
            if ((p = strstr(one, "\"pid\": ")) != NULL) x->pid = strtod(p + 7, NULL);
            if ((p = strstr(one, "\"tid\": ")) != NULL) x->tid = strtod(p + 7, NULL);
            if ((p = strstr(one, "\"ts\": ")) != NULL) x->ts = strtod(p + 6, NULL);
            dur = (p = strstr(one, "\"dur\": ")) != NULL ? strtod(p + 7, NULL) : 0;
            x->end = x->ts + dur;
            n++;
        }
        line = eol ? eol + 1 : NULL;
    }
    return n;
}

/* Every two "X" events of one lane (pid, tid) of the JSON trace at path nest
   or follow, in doubles as a viewer adds them (DevTools leaves an event
   that does neither out of its tree); each name in names is in the file,
   as an "X" or a "b" event. */
static CHECK__UNUSED void check_json_lanes(const char *path, const char *const *names, int nnames) {
    char *text = check_read_file(path);
    check_xev x[64];
    int n, i, j;
    if (!CHECK(text != NULL)) return;
    n = check_read_x(text, x, 64);
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            const check_xev *a = &x[i], *b = &x[j];
            if (i == j || a->pid != b->pid || a->tid != b->tid) continue;
            if (b->ts < a->ts || (b->ts == a->ts && (b->end > a->end || (b->end == a->end && j < i)))) continue; /* a first */
            CHECK_MSG(b->end <= a->end || b->ts >= a->end,
                      "%s: on lane pid %.17g tid %.17g, \"%s\" [%.6f, %.6f] begins inside \"%s\" [%.6f, %.6f] and ends after it: DevTools leaves it out of its tree",
                      path, a->pid, a->tid, b->name, b->ts, b->end, a->name, a->ts, a->end);
        }
    }
    for (i = 0; i < nnames; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, "\"name\": \"%s\"", names[i]);
        CHECK_MSG(strstr(text, pat) != NULL, "%s: kernel %s is not in the trace", path, names[i]);
    }
    free(text);
}

/* DevTools' trace engine on dir/name.json, when installed: no complete
   event left out (threads not checked). */
static CHECK__UNUSED void check_viewers_any(const char *dir, const char *name) {
    char path[256];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s.expect.json", dir, name);
    f = fopen(path, "w");
    if (!CHECK(f != NULL)) return;
    fputs("{\"threads\": {}, \"exact_threads\": false}\n", f);
    fclose(f);
    check_viewers(dir, name, 0);
}

/* fork() while another thread is held at a chosen point inside prof.h (the
   fork tests): `child` runs in the child and its verdict byte comes back
   through a pipe (under valgrind the child's exit status also reports the
   held thread's stack, which the child cannot reach); then `release` lets
   the held thread go on (the caller joins it). Returns the verdict, 0 when
   none came (a crash, or a hang its own alarm() ended), and the child's
   wait status in *status. */
static CHECK__UNUSED char check_fork_verdict(char (*child)(void), void (*release)(void), int *status) {
    int fds[2];
    char verdict = 0;
    pid_t pid;
    *status = 0;
    if (!CHECK(pipe(fds) == 0)) {
        release();
        return 0;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        verdict = child();
        if (write(fds[1], &verdict, 1) != 1) _exit(2);
        _exit(0);
    }
    close(fds[1]);
    release();
    if (CHECK(pid > 0)) {
        if (read(fds[0], &verdict, 1) != 1) verdict = 0;
        waitpid(pid, status, 0);
    }
    close(fds[0]);
    return verdict;
}

/* ----- protobuf reading: the Perfetto and pprof files, field by field ----- */
typedef struct check_pb { const unsigned char *p, *end; } check_pb;
static CHECK__UNUSED int check_pb_varint(check_pb *b, uint64_t *v) {
    int s = 0;
    *v = 0;
    while (b->p < b->end && s < 64) {
        unsigned char c = *b->p++;
        *v |= (uint64_t)(c & 0x7f) << s;
        if (!(c & 0x80)) return 1;
        s += 7;
    }
    return 0;
}
/* The next field of b: its number, and its varint value (wire type 0) or
   its bytes (wire type 2, in *sub). 0 at the end, or on a malformed field
   or a wire type prof.h does not write (counted in check_pb_bad). */
static CHECK__UNUSED int check_pb_bad;
static CHECK__UNUSED int check_pb_next(check_pb *b, unsigned *field, int *wt, uint64_t *v, check_pb *sub) {
    uint64_t key;
    if (b->p >= b->end) return 0;
    if (!check_pb_varint(b, &key)) { check_pb_bad++; return 0; }
    *field = (unsigned)(key >> 3);
    *wt = (int)(key & 7);
    if (*wt == 0) {
        if (check_pb_varint(b, v)) return 1;
    } else if (*wt == 2) {
        if (check_pb_varint(b, v) && *v <= (uint64_t)(b->end - b->p)) {
            sub->p = b->p;
            sub->end = b->p + *v;
            b->p += *v;
            return 1;
        }
    } else if (*wt == 1 && b->end - b->p >= 8) {
        b->p += 8;
        return 1;
    } else if (*wt == 5 && b->end - b->p >= 4) {
        b->p += 4;
        return 1;
    }
    check_pb_bad++;
    return 0;
}
static CHECK__UNUSED int check_pb_is(const check_pb *s, const char *text) {
    size_t n = strlen(text);
    return (size_t)(s->end - s->p) == n && memcmp(s->p, text, n) == 0;
}

#endif /* PROF_TEST_CHECK_H */
