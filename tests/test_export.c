/* The exporters: prof_export_chrome_trace, prof_export_stacks(_merged) and
   prof_export_memory_timeline, on hand-built and recorded event lists with
   hostile names (quotes, backslashes, every control byte, invalid UTF-8 of
   every kind, valid multi-byte UTF-8, 1 MB names, empty names).

   The files go to build/export/ (cwd = repo root), each with an expectation
   file (*.expect.json) written from what this program did and from the
   list's public view (prof_events_get); tests/export/check_export.py (run
   below, python3 standard library) compares them byte for byte with what
   prof.h must write, see its header for the format and the rules.
   js_trace.json and js.stacks, with js_trace.expect.json and
   js.stacks.expect.json, are also checked by real consumers (Chrome
   DevTools' trace engine, speedscope) in the CTest test export_js
   (tests/js/run.sh).

   Checked here in C: the error paths (unwritable path, /dev/full, a
   directory, a read-only directory, a full file-size limit, unknown stacks
   metric, invalid JSON metadata) with their log messages, no temporary file
   left behind and an existing target keeping its old content after every
   failure; the exact escapes of control bytes; and that exporting ~200k
   events streams (peak RSS grows by less than 8 MB).

   TEST_EXPORT_TIMES=1 prints the time each part took (valgrind runs this
   too: keep it under ~10 s there). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define OUT "build/export"
#define ERR_DIR OUT "/err"
#define STREAM_DIR "build/export_stream"

/* ----- small helpers --------------------------------------------------- */

static uint64_t my_tid(void) { return (uint64_t)syscall(SYS_gettid); }

static int64_t clock_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
/* Busy wait, so every scope lasts a measurable time. */
static void spin_ns(int64_t ns) {
    int64_t end = clock_ns(CLOCK_MONOTONIC) + ns;
    while (clock_ns(CLOCK_MONOTONIC) < end) { }
}

static prof_event get_ev(prof_events *ev, size_t i) {
    prof_event e;
    memset(&e, 0, sizeof e);
    if (prof_events_get(ev, i, &e) != PROF_OK) e.name = e.trace_name = "<no event>";
    return e;
}

/* Growable byte buffer. */
typedef struct sbuf { char *p; size_t n, cap; } sbuf;
static void sb_put(sbuf *b, const void *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1) cap *= 2;
        b->p = (char *)realloc(b->p, cap);
        if (!b->p) { fprintf(stderr, "out of memory\n"); exit(1); }
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }
static void sb_free(sbuf *b) { free(b->p); memset(b, 0, sizeof *b); }

static int write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}
static int file_is(const char *path, const char *text) {
    size_t n;
    char *s = check_read_file_n(path, &n);
    int ok = s && n == strlen(text) && memcmp(s, text, n) == 0;
    free(s);
    return ok;
}
static int exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}


static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st; (void)flag; (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}
static int chmod_dirs(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)ftw;
    if (flag == FTW_D) chmod(path, (st->st_mode & 07777) | 0700);
    return 0;
}
static void rm_tree(const char *path) {
    if (!exists(path)) return;
    nftw(path, chmod_dirs, 16, FTW_PHYS);
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ----- expectation files ----------------------------------------------- */

/* UTF-8 decoding, written independently of prof.h: length of the valid
   sequence at p, 0 if none (overlong, surrogate, past U+10FFFF, cut short). */
static int t_utf8_len(const unsigned char *p) {
    unsigned c = p[0], cp;
    int n, i;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; }
    else return 0;
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

/* Bytes that one U+FFFD replaces at p, where t_utf8_len is 0 (Unicode's
   maximal subpart, as Python's decode(errors="replace")): the lead byte
   and the continuation bytes that still fit some valid sequence. */
static int t_utf8_bad(const unsigned char *p) {
    unsigned c = p[0], lo = 0x80, hi = 0xBF;
    int n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 1, i;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    for (i = 1; i < n; i++, lo = 0x80, hi = 0xBF)
        if (p[i] < lo || p[i] > hi) break;
    return i;
}

/* The text a consumer must read for the bytes s: each maximal invalid
   subpart one U+FFFD. frame != 0: one frame of a folded stack (' ', ';', control bytes,
   0x7f and U+2028/U+2029 become '_', "" becomes "_"); see check_export.py. */
static void xform(sbuf *out, const char *s, int frame) {
    const unsigned char *p = (const unsigned char *)s;
    if (frame && !*p) { sb_str(out, "_"); return; }
    while (*p) {
        int n = t_utf8_len(p);
        if (n == 1) {
            char c = (char)*p;
            if (frame && (c == ' ' || c == ';' || *p < 0x20 || *p == 0x7f)) c = '_';
            sb_put(out, &c, 1);
            p++;
        } else if (n > 1) {
            if (frame && n == 3 && p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) sb_str(out, "_");
            else sb_put(out, p, (size_t)n);
            p += n;
        } else {
            sb_str(out, "\xef\xbf\xbd");
            p += t_utf8_bad(p);
        }
    }
}

/* A JSON string literal of valid UTF-8 text. */
/* The exporters cut the longest common directory of the recorded files
   from the stacks' source paths (prof_export_options.source_prefix NULL):
   while g_cut_dir is set (a session whose scopes are all in this file: its
   directory), the expectations' frames "name (dir/file:line)" lose it. The
   result lives until the next call. */
static const char *g_cut_dir;
/* g_cut_dir: this file's directory (on), or none */
static void cut_this_dir(int on) {
    static char dir[4096];
    char *slash;
    snprintf(dir, sizeof dir, "%s", __FILE__);
    slash = strrchr(dir, '/');
    if (slash) slash[1] = 0;
    g_cut_dir = on && slash ? dir : NULL;
}
static const char *cut_frame(const char *fr) {
    static sbuf b;
    const char *at;
    size_t k;
    if (!g_cut_dir || !fr) return fr;
    k = strlen(g_cut_dir);
    for (at = strstr(fr, " ("); at && strncmp(at + 2, g_cut_dir, k) != 0; at = strstr(at + 1, " (")) {}
    if (!at) return fr;
    b.n = 0;
    sb_put(&b, fr, (size_t)(at + 2 - fr));
    sb_str(&b, at + 2 + k);
    sb_put(&b, "", 1);
    return b.p;
}
static void put_js(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}
/* The JSON string a consumer must decode for the bytes s. */
static void put_pj(FILE *f, const char *s, int frame) {
    sbuf b;
    memset(&b, 0, sizeof b);
    sb_put(&b, "", 0);
    xform(&b, s, frame);
    put_js(f, b.p);
    sb_free(&b);
}

static void put_hex(FILE *f, const char *s, size_t n) {
    size_t i;
    fputc('"', f);
    for (i = 0; i < n; i++) fprintf(f, "%02x", (unsigned char)s[i]);
    fputc('"', f);
}
/* check_export.py's byte-string spec: hex, or {"rep_hex", "times"} for a
   long string that repeats a short pattern (the 1 MB names). */
/* The id the trace writes for a thread: its own up to INT32_MAX; past it
   ids counted down from INT32_MAX (the lists here have one such thread,
   T2, and no thread whose own id is INT32_MAX). */
static uint64_t written_tid(uint64_t tid) { return tid > 2147483647u ? 2147483647u : tid; }

static void put_spec(FILE *f, const char *s) {
    size_t n = strlen(s), per;
    if (n > 4096) {
        for (per = 1; per <= 256; per++) {
            if (n % per == 0 && memcmp(s, s + per, n - per) == 0) {
                fprintf(f, "{\"rep_hex\": ");
                put_hex(f, s, per);
                fprintf(f, ", \"times\": %zu}", n / per);
                return;
            }
        }
    }
    put_hex(f, s, n);
}

static FILE *open_expect(const char *name) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, OUT "/%s", name);
    f = fopen(path, "wb");
    CHECK_MSG(f != NULL, "cannot write %s: %s", path, strerror(errno));
    return f;
}
static void close_expect(FILE *f) {
    if (f) CHECK(fclose(f) == 0);
}

static char g_comm[64];
static void read_comm(void) {
    FILE *f = fopen("/proc/self/comm", "r");
    size_t k = 0;
    if (f) {
        k = fread(g_comm, 1, sizeof g_comm - 1, f);
        fclose(f);
    }
    while (k && (g_comm[k - 1] == '\n' || g_comm[k - 1] == '\r')) k--;
    g_comm[k] = 0;
    if (!k) snprintf(g_comm, sizeof g_comm, "process %ld", (long)getpid());
}

typedef const char *(*cat_fn)(const prof_event *e);

/* The "events" member: every event of the list, in list (= file) order. */
static void put_events(FILE *f, prof_events *ev, cat_fn cat) {
    size_t i, n = prof_events_count(ev);
    int k;
    fprintf(f, "\"events\": [");
    for (i = 0; i < n; i++) {
        prof_event e = get_ev(ev, i);
        int dev = e.device_type != PROF_DEVICE_CPU;
        fprintf(f, "%s\n  {\"ev_idx\": %zu, \"name\": ", i ? "," : "", i);
        put_spec(f, e.trace_name);
        fprintf(f, ", \"cat\": \"%s\"", cat(&e));
        if (dev) fprintf(f, ", \"pid\": %d, \"tid\": %lld", e.device_index, (long long)e.device_resource_id);
        else fprintf(f, ", \"tid\": %llu", (unsigned long long)written_tid(e.thread));
        fprintf(f, ", \"start_ns\": %lld, \"end_ns\": %lld, \"parent\": %lld", (long long)e.start_ns, (long long)e.end_ns, (long long)e.parent);
        if (e.is_async) fprintf(f, ", \"async\": true");
        if (e.input_shapes) { fprintf(f, ", \"shapes\": "); put_js(f, e.input_shapes); }
        if (e.stack_depth > 0) {
            fprintf(f, ", \"stack\": [");
            for (k = 0; k < e.stack_depth; k++) {
                if (k) fprintf(f, ", ");
                put_spec(f, e.stack[k] ? cut_frame(e.stack[k]) : "");
            }
            fprintf(f, "]");
        }
        if (e.overload_name && e.overload_name[0]) { fprintf(f, ", \"overload\": "); put_spec(f, e.overload_name); }
        fprintf(f, ", \"args\": {");
        {
            const char *sep = "";
            if (e.sequence_nr >= 0) { fprintf(f, "%s\"Sequence number\": %lld", sep, (long long)e.sequence_nr); sep = ", "; }
            if (e.has_fwd_thread) { fprintf(f, "%s\"Fwd thread id\": %llu", sep, (unsigned long long)e.fwd_thread); sep = ", "; }
            if (e.flops > 0) { fprintf(f, "%s\"flops\": %lld", sep, (long long)e.flops); sep = ", "; }
            /* a device event sits on the lane of its stream: tid == stream */
            if (dev) fprintf(f, "%s\"device\": %d, \"stream\": %lld", sep, e.device_index, (long long)e.device_resource_id);
        }
        fprintf(f, "}}");
    }
    fprintf(f, "\n]");
}

/* Lanes (pid, tid) of the list's events, for "threads" and the "M" count. */
typedef struct lane { int64_t pid; uint64_t tid; int dev; int has_stream; } lane;
static size_t collect_lanes(prof_events *ev, lane *out, size_t max, const uint64_t *extra_tids, size_t n_extra) {
    size_t i, j, n = 0, cnt = prof_events_count(ev);
    for (i = 0; i < cnt + n_extra; i++) {
        lane l;
        memset(&l, 0, sizeof l);
        if (i < cnt) {
            prof_event e = get_ev(ev, i);
            l.dev = e.device_type != PROF_DEVICE_CPU;
            l.pid = l.dev ? e.device_index : -1;
            l.tid = l.dev ? (uint64_t)e.device_resource_id : e.thread;
            l.has_stream = l.dev && e.device_resource_id != (int64_t)e.thread;
        } else {
            l.pid = -1;
            l.tid = extra_tids[i - cnt];
        }
        for (j = 0; j < n; j++) if (out[j].pid == l.pid && out[j].tid == l.tid) break;
        if (j == n && n < max) out[n++] = l;
    }
    return n;
}
/* "M" events: process name/labels/sort index per process, name and sort
   index per lane. */
/* Async ranges: a "b" and an "e" each instead of an "X". */
static size_t count_async(prof_events *ev) {
    size_t i, k = 0, n = prof_events_count(ev);
    for (i = 0; i < n; i++) k += get_ev(ev, i).is_async && get_ev(ev, i).device_type == PROF_DEVICE_CPU;
    return k;
}
static int count_meta(const lane *l, size_t n) {
    size_t i, j;
    int m = 3;
    for (i = 0; i < n; i++) {
        m += 2;
        if (l[i].dev) {
            for (j = 0; j < i; j++) if (l[j].dev && l[j].pid == l[i].pid) break;
            if (j == i) m += 3;
        }
    }
    return m;
}

/* One name per CPU thread this program set (NULL = unnamed). */
typedef struct tname { uint64_t tid; const char *name; int trunc; } tname;

static void put_threads(FILE *f, const lane *l, size_t n, const tname *names, size_t nnames) {
    size_t i, j;
    fprintf(f, "\"threads\": [");
    for (i = 0; i < n; i++) {
        fprintf(f, "%s\n  {\"tid\": %llu", i ? "," : "", (unsigned long long)(l[i].dev ? l[i].tid : written_tid(l[i].tid)));
        if (l[i].dev) {
            char label[64];
            fprintf(f, ", \"pid\": %lld", (long long)l[i].pid);
            if (l[i].has_stream) {
                snprintf(label, sizeof label, "stream %llu", (unsigned long long)l[i].tid);
                fprintf(f, ", \"name\": ");
                put_spec(f, label);
            } else {
                fprintf(f, ", \"any_name\": true");
            }
        } else {
            const tname *t = NULL;
            for (j = 0; j < nnames; j++) if (names[j].tid == l[i].tid) t = &names[j];
            if (t && t->name && t->name[0]) {
                fprintf(f, ", \"name\": ");
                put_spec(f, t->name);
                if (t->trunc) fprintf(f, ", \"trunc\": true");
            } else if (l[i].tid != written_tid(l[i].tid)) { /* the default name keeps the real id */
                char label[64];
                snprintf(label, sizeof label, "thread %llu", (unsigned long long)l[i].tid);
                fprintf(f, ", \"name\": ");
                put_spec(f, label);
            } else {
                fprintf(f, ", \"name\": null");
            }
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n]");
}

/* Expected lines of prof_export_stacks: per event with a stack and a
   positive value (int(us), truncated), frames outermost first. Writes the
   member "prof_check": {...}. */
static void put_stacks_check(FILE *f, const char *file, prof_events *ev, int device_metric, int merged, const char *unmerged_file) {
    size_t i, n = prof_events_count(ev), lines = 0;
    int k;
    fprintf(f, "\"prof_check\": {\"kind\": \"stacks\", \"file\": \"%s\"", file);
    if (merged) fprintf(f, ", \"merged\": true");
    if (unmerged_file) fprintf(f, ", \"unmerged_file\": \"%s\"", unmerged_file);
    fprintf(f, ", \"lines\": [");
    for (i = 0; i < n; i++) {
        prof_event e = get_ev(ev, i);
        int64_t ns = device_metric ? e.self_device_time_total_ns : e.self_cpu_time_total_ns, v = ns / 1000;
        /* a plain file has int(us) per event, none at 0; a merged one sums
           each stack's ns first, so its events go in with their ns */
        if (e.stack_depth <= 0 || (merged ? ns : v) <= 0) continue;
        fprintf(f, "%s\n  {\"frames\": [", lines++ ? "," : "");
        for (k = e.stack_depth - 1; k >= 0; k--) {
            put_spec(f, e.stack[k] ? cut_frame(e.stack[k]) : "");
            if (k) fprintf(f, ", ");
        }
        fprintf(f, "], \"value\": %lld, \"ns\": %lld}", (long long)v, (long long)ns);
    }
    fprintf(f, "\n]}");
}
static void write_stacks_expect(const char *expect_name, const char *file, prof_events *ev, int device_metric,
                                int merged, const char *unmerged_file) {
    FILE *f = open_expect(expect_name);
    if (!f) return;
    fprintf(f, "{");
    put_stacks_check(f, file, ev, device_metric, merged, unmerged_file);
    fprintf(f, "}\n");
    close_expect(f);
}

/* ----- hostile names ----------------------------------------------------- */

#define BIG_LEN ((size_t)1 << 20)
static char g_ctl[64];       /* every control byte 0x01..0x1f and 0x7f */
static char *g_big_a;        /* 1 MB: a 32-byte pattern of trouble */
static char *g_big_b;        /* 1 MB: another pattern (metadata value) */
static char *g_big_c;        /* 1 MB: a third (metadata key) */
static char *g_big_thread;   /* 1 MB of "é": kept whole */

/* Each escape that a hex digit could follow is closed with "" "". */
static const char *const HOSTILE[] = {
    "quote\" back\\slash /solidus </script>",
    NULL, /* g_ctl */
    ("lone continuation \x80" " and \xbf\xbf" " end"),
    ("overlong \xc0\xaf" " \xe0\x80\xaf" " \xc1\xbf" " \xf0\x80\x80\xaf" " end"),
    ("surrogates \xed\xa0\x80" " \xed\xbf\xbf" " end"),
    ("F5..FF \xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff" " end"),
    ("past U+10FFFF \xf4\x90\x80\x80" " end"),
    ("cut short \xe2\x82" " x \xf0\x9f\x98" " y \xc3" " z"),
    "cut at the end 4 \xf0\x9f\x98",
    "cut at the end 3 \xe2\x82",
    "cut at the end 2 \xc3",
    ("valid caf\xc3\xa9 \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 \xef\xbf\xbd \xc2\x80 \xef\xbf\xbf \xf4\x8f\xbf\xbf" " end"),
    "",
};
#define N_HOSTILE (sizeof HOSTILE / sizeof HOSTILE[0])
static const char *hostile(size_t i) { return HOSTILE[i] ? HOSTILE[i] : g_ctl; }

static void make_names(void) {
    static const char pat_a[] = "big \"q\" \\ ;\x01\t\xff\xc3\xa9\xe2\x82|\xed\xa0\x80" "x\x7f\xf0\x9f\x98\x80" "abcd";
    static const char pat_b[] = "value \xe2\x9c\x93 \x1f\xc0\xaf" "\"\\";
    static const char pat_c[] = "key \xe6\x97\xa5 \x02\xf5";
    size_t i, k;
    char *p = g_ctl;
    p += sprintf(p, "ctl:");
    for (i = 1; i < 0x20; i++) *p++ = (char)i;
    *p++ = 0x7f;
    strcpy(p, ":end");
    g_big_a = (char *)malloc(BIG_LEN + 1);
    g_big_b = (char *)malloc(BIG_LEN + 1);
    g_big_c = (char *)malloc(BIG_LEN + 1);
    g_big_thread = (char *)malloc(BIG_LEN + 1);
    if (!g_big_a || !g_big_b || !g_big_c || !g_big_thread) { fprintf(stderr, "out of memory\n"); exit(1); }
    /* whole repetitions only, so the expectation can say "pattern x N" */
    for (k = 0; k + sizeof pat_a - 1 <= BIG_LEN; k += sizeof pat_a - 1) memcpy(g_big_a + k, pat_a, sizeof pat_a - 1);
    g_big_a[k] = 0;
    for (k = 0; k + sizeof pat_b - 1 <= BIG_LEN; k += sizeof pat_b - 1) memcpy(g_big_b + k, pat_b, sizeof pat_b - 1);
    g_big_b[k] = 0;
    for (k = 0; k + sizeof pat_c - 1 <= BIG_LEN; k += sizeof pat_c - 1) memcpy(g_big_c + k, pat_c, sizeof pat_c - 1);
    g_big_c[k] = 0;
    for (k = 0; k + 2 <= BIG_LEN; k += 2) memcpy(g_big_thread + k, "\xc3\xa9", 2);
    g_big_thread[k] = 0;
}
static void free_names(void) {
    free(g_big_a);
    free(g_big_b);
    free(g_big_c);
    free(g_big_thread);
}

/* Keys of a trace's top level, in order, for the "keys" member. */
typedef struct keylist { const char *k[64]; int n; } keylist;
static void keys_add(keylist *kl, const char *key) {
    int i;
    for (i = 0; i < kl->n; i++) if (strcmp(kl->k[i], key) == 0) return; /* a repeated key keeps its place */
    if (kl->n < 64) kl->k[kl->n++] = key;
}
static void put_keys(FILE *f, const keylist *meta, int distributed) {
    static const char *const head[] = { "schemaVersion", "deviceProperties" };
    static const char *const tail[] = { "displayTimeUnit", "baseTimeNanoseconds", "traceEvents", "traceName" };
    int i;
    fprintf(f, "\"keys\": [");
    for (i = 0; i < 2; i++) { put_spec(f, head[i]); fprintf(f, ", "); }
    if (distributed) { put_spec(f, "distributedInfo"); fprintf(f, ", "); }
    for (i = 0; i < meta->n; i++) { put_spec(f, meta->k[i]); fprintf(f, ", "); }
    for (i = 0; i < 4; i++) { if (i) fprintf(f, ", "); put_spec(f, tail[i]); }
    fprintf(f, "]");
}

/* Metadata entries for the "metadata" member. */
typedef struct meta { const char *key, *value; int is_json; } meta;
typedef struct metalist { meta m[64]; int n; } metalist;
static void meta_set(metalist *ml, const char *key, const char *value, int is_json) {
    int i;
    for (i = 0; i < ml->n; i++) {
        if (strcmp(ml->m[i].key, key) == 0) { ml->m[i].value = value; ml->m[i].is_json = is_json; return; }
    }
    if (ml->n < 64) { ml->m[ml->n].key = key; ml->m[ml->n].value = value; ml->m[ml->n].is_json = is_json; ml->n++; }
}
static void put_meta(FILE *f, const metalist *ml) {
    int i;
    fprintf(f, "\"metadata\": [");
    for (i = 0; i < ml->n; i++) {
        fprintf(f, "%s\n  {\"key\": ", i ? "," : "");
        put_spec(f, ml->m[i].key);
        if (ml->m[i].is_json) { fprintf(f, ", \"json\": "); put_js(f, ml->m[i].value); }
        else { fprintf(f, ", \"value\": "); put_spec(f, ml->m[i].value); }
        fprintf(f, "}");
    }
    fprintf(f, "\n]");
}

/* Invalid JSON: each must be refused with PROF_E_ARG and never written. */
static const char *const BAD_JSON[] = {
    "", "{", "[1,]", "{\"a\" 1}", "{\"a\": }", "01", "1 2", "NaN", "Infinity", "tru", "'x'",
    ("\"a\x01" "b\""), "\"\xff\"", "\"\\x\"", "\"\\u12G4\"", "[", "{\"a\": [1, 2}", "-", "1.", "1e", ".5",
};
#define N_BAD_JSON (sizeof BAD_JSON / sizeof BAD_JSON[0])

/* ----- hand-built lists ------------------------------------------------- */

static const char *cat_hand(const prof_event *e) {
    /* prof_events_add has no site flags: CPU events are user annotations */
    return e->device_type != PROF_DEVICE_CPU ? "kernel" : "user_annotation";
}

#define T1 101u
#define T2 UINT64_MAX
#define T3 103u

static int64_t add_ev(prof_events *ev, const char *name, uint64_t thread, int64_t start, int64_t end,
                      const char *const *stack, int depth) {
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
    CHECK_MSG(i >= 0, "prof_events_add(%.40s) failed: %s", name, prof_last_error());
    return i;
}

static prof_events *build_hand(keylist *keys, metalist *metas) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    const int64_t root_s = 1000003, root_e = root_s + 5000000;
    int64_t t, launch;
    size_t i;
    static const int ndims[] = { 2, 2, 0 };
    static const int64_t dims[] = { 2, 3, 3, -1 };
    const char *st[3];
    if (!ev) return NULL;
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);

    /* T1: a root with one child per hostile name, each with a stack */
    st[0] = "hand_root";
    add_ev(ev, "hand_root", T1, root_s, root_e, st, 1);
    t = root_s + 1000;
    for (i = 0; i < N_HOSTILE; i++) {
        st[0] = hostile(i);
        st[1] = "hand_root";
        add_ev(ev, hostile(i), T1, t + (int64_t)(i % 7), t + 60001 + (int64_t)i, st, 2);
        t += 100000;
    }
    /* a 1 MB name, and a 1 MB frame */
    st[0] = "hand_root"; /* its own name is not in its stack: the 1 MB string once */
    add_ev(ev, g_big_a, T1, t, t + 20000, st, 1);
    t += 30000;
    st[0] = g_big_a; st[1] = "big frame holder"; st[2] = "hand_root";
    add_ev(ev, "big frame holder", T1, t, t + 20000, st + 1, 2);
    add_ev(ev, "big frame child", T1, t + 1, t + 20000, st, 3);
    t += 30000;

    /* every optional field of a desc. On its own thread: the tree groups
       runs of (thread, node_id) as PyTorch does, so a node id differing
       from its neighbours' would split T1's tree in two. */
    memset(&d, 0, sizeof d);
    d.name = "aten::addmm";
    d.trace_name = "trace name \"q\" \xff" " \x01";
    d.overload_name = "out \xc3\xa9 \xfe";
    d.thread = T3;
    d.start_ns = t;
    d.end_ns = t + 7777;
    d.set = PROF_EVENT_SHAPES | PROF_EVENT_SEQUENCE_NR | PROF_EVENT_FWD_THREAD | PROF_EVENT_NODE_ID | PROF_EVENT_USER_ANNOTATION;
    d.input_shapes.n_inputs = 3;
    d.input_shapes.ndims = ndims;
    d.input_shapes.dims = dims;
    d.sequence_nr = 17;
    d.fwd_thread = 12345678901234567890ull;
    d.node_id = 5;
    d.flops = 123456789012;
    CHECK(prof_events_add(ev, &d) >= 0);
    t += 10000;
    memset(&d, 0, sizeof d);
    d.name = "no inputs";
    d.overload_name = "";
    d.thread = T1;
    d.start_ns = t;
    d.end_ns = t + 999;
    d.set = PROF_EVENT_SHAPES | PROF_EVENT_SEQUENCE_NR; /* [] and sequence_nr -1: none written */
    d.sequence_nr = -1;
    d.flops = -5;
    CHECK(prof_events_add(ev, &d) >= 0);
    t += 10000;

    /* kernels: one CPU launch with an appended kernel and a device event on
       stream 7 of GPU 0, one on GPU 1 without a stream (default: thread) */
    st[0] = "launch"; st[1] = "hand_root";
    launch = add_ev(ev, "launch", T1, t, t + 50000, st, 2);
    CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)launch, "gemm_kernel", 0, 40000), PROF_OK);
    memset(&d, 0, sizeof d);
    st[0] = "gemm_kernel \"k\""; st[1] = "launch"; st[2] = "hand_root";
    d.name = "gemm_kernel \"k\"";
    d.thread = T1;
    d.start_ns = t + 5000;
    d.end_ns = t + 45000;
    d.device_type = PROF_DEVICE_CUDA;
    d.device_index = 0;
    d.set = PROF_EVENT_RESOURCE_ID;
    d.device_resource_id = 7;
    d.stack = st;
    d.stack_depth = 3;
    CHECK(prof_events_add(ev, &d) >= 0);
    memset(&d, 0, sizeof d);
    d.name = "memset_kernel";
    d.thread = T1;
    d.start_ns = t + 6000;
    d.end_ns = t + 9000;
    d.device_type = PROF_DEVICE_CUDA;
    d.device_index = 1;
    CHECK(prof_events_add(ev, &d) >= 0);
    t += 60000;

    /* a child that ends exactly with its parent, and its own child too */
    add_ev(ev, "ends with root", T1, root_e - 123457, root_e, NULL, 0);
    add_ev(ev, "ends with both", T1, root_e - 3, root_e, NULL, 0);

    /* async: starts inside the root and ends after it; no parent */
    memset(&d, 0, sizeof d);
    d.name = "async \"range\"";
    d.thread = T1;
    d.start_ns = root_e - 1000;
    d.end_ns = root_e + 77777;
    d.set = PROF_EVENT_ASYNC;
    CHECK(prof_events_add(ev, &d) >= 0);

    /* T2 (tid 2^64-1): frames that collide once made safe (merged into one
       stack), an empty and a NULL frame, U+2028/U+2029 inside a frame */
    {
        static const char *const c1[] = { "a b", "t2 top" };
        static const char *const c2[] = { "a;b", "t2 top" };
        static const char *const c3[] = { "a_b", "t2 top" };
        static const char *const c4[] = { "a\tb", "t2 top" };
        static const char *const e1[] = { "", NULL, "t2 top" };
        static const char *const ls[] = { ("line\xe2\x80\xa8" "sep para\xe2\x80\xa9" "sep"), "t2 top" };
        static const char *const top[] = { "t2 top" };
        int64_t s = 2000000;
        add_ev(ev, "t2 top", T2, s, s + 900000, top, 1);
        add_ev(ev, "collide 1", T2, s + 10000, s + 110000, c1, 2);
        add_ev(ev, "collide 2", T2, s + 120000, s + 220000, c2, 2);
        add_ev(ev, "collide 3", T2, s + 230000, s + 330000, c3, 2);
        add_ev(ev, "collide 4", T2, s + 340000, s + 440000, c4, 2);
        add_ev(ev, "same stack again", T2, s + 450000, s + 550000, c1, 2);
        add_ev(ev, "empty frames", T2, s + 560000, s + 660000, e1, 3);
        add_ev(ev, "U+2028 frame", T2, s + 670000, s + 770000, ls, 2);
    }

    /* metadata: hostile keys and values, JSON values, a repeated key, 1 MB
       key and value, empty key and value */
    {
        static const char *const json_ok[][2] = {
            { "json object", "{\"a\": [1, 2.5e3, -0, \"x\\u0001\\\\\\\"\"], \"b\": {\"c\": null, \"d\": true, \"e\": false}}" },
            { "json string", " \"caf\xc3\xa9 \\ud83d\\ude00\" " },
            { "json number", "-12.5E-3" },
            { "json empty", "[]" },
            { "json del", "[\"a\x7f b\", {\"\x7f\": 1}]" }, /* DEL raw in a string: valid JSON, written escaped */
        };
        static char key_buf[N_HOSTILE][128];
        for (i = 0; i < N_HOSTILE; i++) {
            snprintf(key_buf[i], sizeof key_buf[i], "meta %zu %s", i, i == 1 ? "ctl" : hostile(i));
            CHECK_EQ_INT(prof_events_add_metadata(ev, key_buf[i], hostile(i)), PROF_OK);
            keys_add(keys, key_buf[i]);
            meta_set(metas, key_buf[i], hostile(i), 0);
        }
        CHECK_EQ_INT(prof_events_add_metadata(ev, g_ctl, "control key"), PROF_OK);
        keys_add(keys, g_ctl);
        meta_set(metas, g_ctl, "control key", 0);
        for (i = 0; i < sizeof json_ok / sizeof json_ok[0]; i++) {
            CHECK_EQ_INT(prof_events_add_metadata_json(ev, json_ok[i][0], json_ok[i][1]), PROF_OK);
            keys_add(keys, json_ok[i][0]);
            meta_set(metas, json_ok[i][0], json_ok[i][1], 1);
        }
        CHECK_EQ_INT(prof_events_add_metadata(ev, "dup", "first"), PROF_OK);
        keys_add(keys, "dup");
        CHECK_EQ_INT(prof_events_add_metadata(ev, g_big_c, g_big_b), PROF_OK);
        keys_add(keys, g_big_c);
        meta_set(metas, g_big_c, g_big_b, 0);
        CHECK_EQ_INT(prof_events_add_metadata(ev, "", ""), PROF_OK);
        keys_add(keys, "");
        meta_set(metas, "", "", 0);
        CHECK_EQ_INT(prof_events_add_metadata_json(ev, "dup", "{\"second\": 2}"), PROF_OK);
        meta_set(metas, "dup", "{\"second\": 2}", 1);
        /* refused: never written */
        for (i = 0; i < N_BAD_JSON; i++) {
            check_log_reset();
            CHECK_MSG(prof_events_add_metadata_json(ev, "bad json", BAD_JSON[i]) == PROF_E_ARG, "invalid JSON '%s' accepted", BAD_JSON[i]);
            CHECK_MSG(check_log_has(PROF_E_ARG, "bad json"), "no PROF_E_ARG message naming the key for '%s'", BAD_JSON[i]);
            CHECK(!prof_json_valid(BAD_JSON[i]));
        }
        { /* nesting: 64 levels are valid JSON here, 65 are refused (the manual's limit) */
            char deep[2 * 65 + 1];
            memset(deep, '[', 64); memset(deep + 64, ']', 64); deep[128] = 0;
            CHECK(prof_json_valid(deep));
            memset(deep, '[', 65); memset(deep + 65, ']', 65); deep[130] = 0;
            CHECK(!prof_json_valid(deep));
            memset(deep, '[', 64); deep[64] = '0'; memset(deep + 65, ']', 64); deep[129] = 0;
            CHECK(prof_json_valid(deep)); /* a value inside the 64th level is no 65th */
        }
        CHECK_EQ_INT(prof_events_add_metadata(ev, NULL, "x"), PROF_E_ARG);
        CHECK_EQ_INT(prof_events_add_metadata(ev, "x", NULL), PROF_E_ARG);
        CHECK_EQ_INT(prof_events_add_metadata_json(ev, "x", NULL), PROF_E_ARG);
    }
    return ev;
}

/* Hand-built expectations shared by hand.json and hand_epoch.json. */
static void write_trace_expect(const char *expect_name, const char *file, prof_events *ev, cat_fn cat,
                               const keylist *keys, const metalist *metas) {
    FILE *f = open_expect(expect_name);
    lane lanes[64];
    size_t nl = collect_lanes(ev, lanes, 64, NULL, 0);
    if (!f) return;
    fprintf(f, "{\"prof_check\": {\"kind\": \"trace\", \"file\": \"%s\", \"trace_name\": \"" OUT "/%s\", \"base_ns\": 0, \"pid\": %ld, \"process_name\": ",
            file, file, (long)getpid());
    put_spec(f, g_comm);
    fprintf(f, ",\n");
    put_keys(f, keys, 1); /* distributedInfo always, rank 0 of 1 without a node id */
    fprintf(f, ",\n\"rank\": 0, \"world_size\": 1,\n");
    put_meta(f, metas);
    fprintf(f, ",\n\"counts\": {\"X\": %zu, \"b\": %zu, \"e\": %zu, \"M\": %d, \"i\": 0, \"C\": 0},\n", prof_events_count(ev) - count_async(ev),
            count_async(ev), count_async(ev), count_meta(lanes, nl));
    put_threads(f, lanes, nl, NULL, 0);
    fprintf(f, ",\n");
    put_events(f, ev, cat);
    fprintf(f, ",\n\"marks\": [], \"counters\": [], \"memory\": []}}\n");
    close_expect(f);
}

/* The exact escapes: \uXXXX for control bytes, except \t \n \r. */
static void check_control_escapes(const char *path) {
    size_t n, i;
    char *s = check_read_file_n(path, &n);
    char want[400], *p = want;
    int found;
    if (!CHECK_MSG(s != NULL, "cannot read %s", path)) return;
    p += sprintf(p, "ctl:");
    for (i = 1; i < 0x20; i++) {
        if (i == '\t') p += sprintf(p, "\\t");
        else if (i == '\n') p += sprintf(p, "\\n");
        else if (i == '\r') p += sprintf(p, "\\r");
        else p += sprintf(p, "\\u%04zx", i);
    }
    /* DEL is not a JSON control character: raw or \u007f are both right */
    found = strstr(s, want) != NULL;
    if (found) {
        char raw[420], esc[420];
        snprintf(raw, sizeof raw, "%s\x7f:end", want);
        snprintf(esc, sizeof esc, "%s\\u007f:end", want);
        found = strstr(s, raw) || strstr(s, esc);
    }
    CHECK_MSG(found, "%s: the control-byte name is not escaped as %s<DEL>:end", path, want);
    free(s);
}

static void test_hand(void) {
    keylist keys;
    metalist metas;
    prof_events *ev;
    const char *cats[4];
    memset(&keys, 0, sizeof keys);
    memset(&metas, 0, sizeof metas);
    ev = build_hand(&keys, &metas);
    if (!CHECK(ev != NULL)) return;

    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/hand.json"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks(ev, OUT "/hand.stacks", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks_merged(ev, OUT "/hand_merged.stacks", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks(ev, OUT "/hand_cuda.stacks", "self_cuda_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks_merged(ev, OUT "/hand_cuda_merged.stacks", "self_device_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, OUT "/hand_mem.json", PROF_DEVICE_CPU, 0), PROF_OK);

    write_trace_expect("hand.expect.json", "hand.json", ev, cat_hand, &keys, &metas);
    write_stacks_expect("hand.stacks.expect.json", "hand.stacks", ev, 0, 0, NULL);
    write_stacks_expect("hand_merged.stacks.expect.json", "hand_merged.stacks", ev, 0, 1, "hand.stacks");
    write_stacks_expect("hand_cuda.stacks.expect.json", "hand_cuda.stacks", ev, 1, 0, NULL);
    write_stacks_expect("hand_cuda_merged.stacks.expect.json", "hand_cuda_merged.stacks", ev, 1, 1, "hand_cuda.stacks");
    {
        FILE *f = open_expect("hand_mem.expect.json");
        if (f) {
            fprintf(f, "{\"prof_check\": {\"kind\": \"timeline\", \"file\": \"hand_mem.json\", \"ncat\": 1, \"sizes\": []}}\n");
            close_expect(f);
        }
        CHECK_EQ_INT(prof_memory_categories(ev, PROF_DEVICE_CPU, 0, cats, 4), 1);
        CHECK_EQ_STR(cats[0], "unknown");
    }
    check_control_escapes(OUT "/hand.json");

    /* Values this program knows, independently of the export. */
    {
        size_t i, n = prof_events_count(ev);
        int seen_addmm = 0;
        for (i = 0; i < n; i++) {
            prof_event e = get_ev(ev, i);
            if (strcmp(e.name, "aten::addmm") == 0) {
                seen_addmm = 1;
                CHECK_EQ_STR(e.input_shapes, "[[2, 3], [3, -1], []]");
                CHECK_EQ_STR(e.trace_name, "trace name \"q\" \xff" " \x01");
                CHECK_EQ_INT(e.node_id, 5);
                CHECK_EQ_INT(e.parent, -1);
            }
            if (strcmp(e.name, "ends with both") == 0) CHECK_EQ_STR(get_ev(ev, (size_t)e.parent).name, "ends with root");
            if (strcmp(e.name, "async \"range\"") == 0) CHECK_EQ_INT(e.parent, -1);
            if (strcmp(e.name, "launch") == 0) CHECK_EQ_INT(e.self_device_time_total_ns, 40000);
        }
        CHECK(seen_addmm);
    }
    prof_events_free(ev);
}

/* The trace names CPU threads, and not a thread whose events are all on a
   device: one whose kernels come after the CPU threads' first events (the
   names are decided from the list's first events once every thread has a
   CPU event; here one never has). Thread 4 runs a CPU scope first,
   threads 1 and 2 CPU scopes after it, thread 3 only kernels after all
   of them (in time and in the order they are added). */
static size_t count_text(const char *s, const char *what) {
    size_t n = 0, k = strlen(what);
    while (s && (s = strstr(s, what)) != NULL) { n++; s += k; }
    return n;
}
static void test_device_thread_unnamed(void) {
    prof_events *ev = prof_events_create();
    char *json, what[160];
    int i, t;
    if (!CHECK(ev != NULL)) return;
    {
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = "early cpu scope";
        d.thread = 4;
        d.start_ns = 500;
        d.end_ns = 550;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    for (i = 0; i < 40; i++) {
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = i < 20 ? "cpu scope" : "kernel";
        d.thread = i < 20 ? (uint64_t)(1 + i % 2) : 3;
        d.device_type = i < 20 ? PROF_DEVICE_CPU : PROF_DEVICE_CUDA;
        d.start_ns = 1000 + (int64_t)i * 100;
        d.end_ns = d.start_ns + 50;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/device_thread.json"), PROF_OK);
    json = check_read_file(OUT "/device_thread.json");
    for (t = 1; t <= 4; t++) {
        snprintf(what, sizeof what, "\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %ld, \"tid\": %d,", (long)getpid(), t);
        CHECK_MSG(count_text(json, what) == (t == 3 ? 0u : 1u), "thread %d: %zu thread_name entries (want %d)", t, count_text(json, what), t == 3 ? 0 : 1);
    }
    free(json);
    unlink(OUT "/device_thread.json");
    prof_events_free(ev);
}

/* Nesting once parsed: a viewer reads ts and dur as doubles of
   microseconds and drops a child that ends after its parent, so prof.h
   shortens such a child by a few ns. Chains of children that all end at
   the same ns as their parent test that it compares with the parent as
   written (itself perhaps shortened), at ordinary magnitudes (ns since a
   session start: 0.97 s, 5.6 s, 16 s) and at the epoch (ns since 1970,
   ~1.7e18, where a double of microseconds holds a quarter of a
   microsecond at best). A child that starts less than an ulp before its
   parent's end cannot be kept inside by shortening it: not tested. */
static void test_hand_nesting(void) {
    prof_events *ev = prof_events_create();
    keylist keys;
    metalist metas;
    static const int64_t chains[][8] = {
        /* end, then the starts of the root and its nested children (0 ends) */
        { 16069629662, 16068554393, 16068644128, 16068960030, 0 },
        { 5596376100, 5587864975, 5593752276, 5595992466, 5596299213, 5596352634, 0 },
        { 976530239, 970879260, 971119680, 973465853, 976006843, 976358783, 976401538, 976493106 },
    };
    static const int64_t epochs[] = { 1700000000123456789, 1700000000987654321, 1234567890123456789, 9007199254740993 };
    size_t k;
    int i;
    char name[64];
    memset(&keys, 0, sizeof keys);
    memset(&metas, 0, sizeof metas);
    if (!CHECK(ev != NULL)) return;
    for (k = 0; k < sizeof chains / sizeof chains[0]; k++) {
        for (i = 1; i < 8 && chains[k][i]; i++) {
            snprintf(name, sizeof name, "chain %zu depth %d", k, i - 1);
            add_ev(ev, name, 10 + k, chains[k][i], chains[k][0], NULL, 0);
        }
    }
    for (k = 0; k < sizeof epochs / sizeof epochs[0]; k++) {
        const int64_t b = epochs[k];
        const int64_t end = b + 1000001 + (int64_t)k * 7;
        snprintf(name, sizeof name, "epoch root %zu", k);
        add_ev(ev, name, 20 + k, b, end, NULL, 0);
        for (i = 1; i <= 12; i++) {
            snprintf(name, sizeof name, "epoch %zu depth %d", k, i);
            add_ev(ev, name, 20 + k, b + i * 40013 + i * i, end, NULL, 0);
        }
        snprintf(name, sizeof name, "epoch %zu next root", k);
        add_ev(ev, name, 20 + k, end + 2000000, end + 4000000, NULL, 0);
        snprintf(name, sizeof name, "epoch %zu next child", k);
        add_ev(ev, name, 20 + k, end + 2500001, end + 4000000, NULL, 0);
    }
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/hand_nest.json"), PROF_OK);
    write_trace_expect("hand_nest.expect.json", "hand_nest.json", ev, cat_hand, &keys, &metas);
    prof_events_free(ev);
}

/* ----- recorded sessions ------------------------------------------------ */

static const char *const OPS[] = { "aten::mm", "aten::addmm", "aten::linear" };
static const char *cat_rec(const prof_event *e) {
    size_t i;
    for (i = 0; i < sizeof OPS / sizeof OPS[0]; i++) if (strcmp(e->name, OPS[i]) == 0) return "cpu_op";
    return "user_annotation";
}

/* What the program did, in time order (threads run one after the other). */
typedef struct memop { uintptr_t addr; int64_t bytes; int dt, di; const char *cat; uint64_t tid; const char *within; } memop;
typedef struct instop { const char *name; uint64_t tid; const char *within; int is_counter; double value; } instop;
static memop g_mem[64];
static int g_nmem;
static instop g_inst[64];
static int g_ninst;

static void rec_alloc(uintptr_t a, size_t bytes, prof_device_type dt, int di, const char *cat, const char *within) {
    prof_alloc_ex((const void *)a, bytes, dt, di, cat);
    if (g_nmem < 64) {
        memop m = { a, (int64_t)bytes, (int)dt, di, cat, my_tid(), within };
        g_mem[g_nmem++] = m;
    }
}
static void rec_free(uintptr_t a, const char *within) {
    int i;
    prof_dealloc((const void *)a);
    for (i = g_nmem - 1; i >= 0; i--) {
        if (g_mem[i].addr == a && g_mem[i].bytes > 0) {
            memop m = g_mem[i];
            m.bytes = -m.bytes;
            m.tid = my_tid();
            m.within = within;
            if (g_nmem < 64) g_mem[g_nmem++] = m;
            return;
        }
    }
}
static void rec_inst(const char *name, const char *within, int is_counter, double v) {
    if (g_ninst < 64) {
        instop x = { name, my_tid(), within, is_counter, v };
        g_inst[g_ninst++] = x;
    }
}
#define MARK(name, within) do { PROF_MARK(name); rec_inst(name, within, 0, 0.0); } while (0)
#define COUNTER(name, v, within) do { PROF_COUNTER(name, v); rec_inst(name, within, 1, v); } while (0)

#define CTR_NAME "ctr \"c\" \\ \xff"
#define WA_NAME "wA \"q\" \\ \x01\x1f\x7f \xff\xc3\xa9 \xe2\x82"

typedef struct worker { uint64_t tid; int which; } worker;

static void *worker_main(void *arg) {
    worker *w = (worker *)arg;
    w->tid = my_tid();
    if (w->which == 0) {
        prof_set_thread_name(WA_NAME);
        {
            PROF_SCOPE("worker_a_top");
            {
                PROF_SCOPE_SHAPES("aten::mm", 2, 3, 4, 2, 4, 5);
                spin_ns(30000);
            }
            MARK("mark_a", "worker_a_top");
            COUNTER(CTR_NAME, 1.5, "worker_a_top");
            rec_alloc(0xA000, 256, PROF_DEVICE_CPU, 0, NULL, "worker_a_top");
            spin_ns(2000);
            rec_free(0xA000, "worker_a_top");
            PROF_ASYNC_END(42);
            spin_ns(20000);
        }
    } else {
        prof_set_thread_name(""); /* empty: unnamed, "thread <tid>" */
        {
            PROF_SCOPE("worker_b_top");
            spin_ns(20000);
            rec_alloc(0xB000, 128, PROF_DEVICE_CPU, 0, NULL, "worker_b_top");
            spin_ns(20000);
        }
    }
    return NULL;
}
static uint64_t run_worker(int which) {
    pthread_t th;
    worker w;
    w.tid = 0;
    w.which = which;
    if (!CHECK(pthread_create(&th, NULL, worker_main, &w) == 0)) return 0;
    pthread_join(th, NULL);
    return w.tid;
}

static void put_instants(FILE *f, const char *member, int counters) {
    int i, first = 1;
    fprintf(f, "\"%s\": [", member);
    for (i = 0; i < g_ninst; i++) {
        const instop *x = &g_inst[i];
        if (x->is_counter != counters) continue;
        fprintf(f, "%s\n  {\"name\": ", first ? "" : ",");
        first = 0;
        put_spec(f, x->name);
        fprintf(f, ", \"tid\": %llu, \"within\": ", (unsigned long long)x->tid);
        put_spec(f, x->within);
        if (counters) {
            if (isnan(x->value) || isinf(x->value)) fprintf(f, ", \"value\": null");
            else fprintf(f, ", \"value\": \"%a\"", x->value);
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n]");
}
static void put_memory(FILE *f) {
    int i;
    fprintf(f, "\"memory\": [");
    for (i = 0; i < g_nmem; i++) {
        const memop *m = &g_mem[i];
        fprintf(f, "%s\n  {\"addr\": %llu, \"bytes\": %lld, \"tid\": %llu, \"device_type\": %d, \"device_id\": %d, \"category\": ",
                i ? "," : "", (unsigned long long)m->addr, (long long)m->bytes, (unsigned long long)m->tid, m->dt,
                m->dt == PROF_DEVICE_CPU ? -1 : m->di);
        if (m->cat) put_spec(f, m->cat);
        else fprintf(f, "null");
        fprintf(f, ", \"within\": ");
        put_spec(f, m->within);
        fprintf(f, "}");
    }
    fprintf(f, "\n]");
}
/* The memory timeline of one device, simulated from the operations. */
static void write_timeline_expect(const char *expect_name, const char *file, prof_events *ev, prof_device_type dt, int di) {
    const char *cats[16], *got[16];
    int64_t live[16];
    size_t ncat = 1, c, k, got_n;
    int i, rows = 0;
    FILE *f;
    cats[0] = "unknown";
    for (i = 0; i < g_nmem; i++) {
        const memop *m = &g_mem[i];
        if (m->dt != (int)dt || (dt != PROF_DEVICE_CPU && m->di != di) || !m->cat) continue;
        for (c = 1; c < ncat && strcmp(cats[c], m->cat) != 0; c++) {}
        if (c == ncat && ncat < 16) cats[ncat++] = m->cat;
    }
    got_n = prof_memory_categories(ev, dt, di, got, 16);
    if (CHECK_EQ_INT(got_n, ncat))
        for (c = 0; c < ncat; c++) CHECK_EQ_STR(got[c], cats[c]);
    f = open_expect(expect_name);
    if (!f) return;
    fprintf(f, "{\"prof_check\": {\"kind\": \"timeline\", \"file\": \"%s\", \"trace\": \"rec.json\", \"device_type\": %d, \"device_id\": %d, \"ncat\": %zu, \"sizes\": [",
            file, (int)dt, dt == PROF_DEVICE_CPU ? -1 : di, ncat);
    memset(live, 0, sizeof live);
    for (i = 0; i < g_nmem; i++) {
        const memop *m = &g_mem[i];
        if (m->dt != (int)dt || (dt != PROF_DEVICE_CPU && m->di != di)) continue;
        c = 0;
        if (m->cat) for (c = 1; c < ncat && strcmp(cats[c], m->cat) != 0; c++) {}
        live[c < ncat ? c : 0] += m->bytes;
        fprintf(f, "%s[", rows++ ? ", " : "");
        for (k = 0; k < ncat; k++) fprintf(f, "%s%lld", k ? ", " : "", (long long)live[k]);
        fprintf(f, "]");
    }
    fprintf(f, "]}}\n");
    close_expect(f);
}

#define MEM_CAT_HOSTILE "cat \"q\" \\ \xff\x01 \xe2\x9c\x93"

/* The main recorded session: schedule (skip 1, warm-up 1, active 2), shapes,
   memory, scope stacks, node id, three threads, marks, counters, async
   ranges, allocations with categories, session and list metadata. */
static void test_recorded(void) {
    prof_config cfg;
    prof_events *ev;
    keylist keys;
    metalist metas;
    tname names[3];
    uint64_t tid_a, tid_b, tids[3];
    int64_t real0, real1;
    size_t i, n;
    int steps = 0;
    char dyn[64];
    memset(&keys, 0, sizeof keys);
    memset(&metas, 0, sizeof metas);
    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    cfg.profile_memory = 1;
    cfg.with_stack = PROF_STACK_SCOPES;
    cfg.with_flops = 1;
    cfg.with_node_id = 1;
    cfg.node_id = 3;
    cfg.world_size = 8;
    cfg.schedule.skip_first = 1;
    cfg.schedule.warmup = 1;
    cfg.schedule.active = 2;
    cfg.schedule.repeat = 1;
    cfg.log = check_log;
    g_nmem = g_ninst = 0;

    prof_set_thread_name(g_big_thread);    /* copied whole */
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    CHECK_EQ_INT(prof_add_metadata("session \"key\" \xff", "value \x01\xe2\x82"), PROF_OK);
    keys_add(&keys, "session \"key\" \xff");
    meta_set(&metas, "session \"key\" \xff", "value \x01\xe2\x82", 0);
    CHECK_EQ_INT(prof_add_metadata_json("session json", "[1, \"two\", {\"3\": null}]"), PROF_OK);
    keys_add(&keys, "session json");
    meta_set(&metas, "session json", "[1, \"two\", {\"3\": null}]", 1);
    CHECK_EQ_INT(prof_add_metadata("dup", "first"), PROF_OK);
    keys_add(&keys, "dup");
    check_log_reset();
    CHECK_EQ_INT(prof_add_metadata_json("bad session json", "{\"a\":}"), PROF_E_ARG);
    CHECK(check_log_has(PROF_E_ARG, "bad session json"));

    { PROF_SCOPE("skipped step 0"); spin_ns(1000); }
    CHECK_EQ_INT(prof_step(), PROF_OK);    /* 1: warm-up, recorded then thrown away */
    { PROF_SCOPE("warm-up step 1"); spin_ns(1000); }
    real0 = clock_ns(CLOCK_REALTIME);
    CHECK_EQ_INT(prof_step(), PROF_OK);    /* 2: the window starts */
    real1 = clock_ns(CLOCK_REALTIME);
    {
        PROF_SCOPE("step2 body");
        {
            PROF_SCOPE("quote \"q\" back\\slash");
            spin_ns(20000);
        }
        for (i = 0; i < N_HOSTILE; i++) {
            PROF_SCOPE_DYN(hostile(i));
            spin_ns(15000);
        }
        {
            PROF_SCOPE_DYN(g_big_a);
            spin_ns(15000);
        }
        {
            PROF_SCOPE_FLOPS("aten::addmm", prof_flops_addmm(8, 16, 32));
            spin_ns(15000);
        }
        {
            static const int64_t shp[] = { 2, 8, 16, 1, 32 };
            prof_args a;
            memset(&a, 0, sizeof a);
            a.shapes = shp;
            a.shapes_len = 5;
            a.flops = 77;
            a.overload_name = "out \xff";
            a.sequence_nr = 5;
            a.fwd_thread = 999;
            a.set = PROF_ARGS_SEQUENCE_NR | PROF_ARGS_FWD_THREAD;
            {
                PROF_SCOPE_ARGS("aten::linear", &a);
                spin_ns(15000);
            }
        }
        MARK("mark \"q\" \\ \x01" "\xff" " end", "step2 body");
        COUNTER(CTR_NAME, 0.1, "step2 body");
        COUNTER(CTR_NAME, NAN, "step2 body");
        COUNTER(CTR_NAME, INFINITY, "step2 body");
        COUNTER(CTR_NAME, -INFINITY, "step2 body");
        COUNTER(CTR_NAME, -0.0, "step2 body");
        COUNTER(CTR_NAME, 1e308, "step2 body");
        COUNTER(CTR_NAME, 5e-324, "step2 body");
        COUNTER(CTR_NAME, 3, "step2 body");
        PROF_ASYNC_BEGIN("async \"range\"", 42);
        PROF_ASYNC_BEGIN("never ended", 77);
        PROF_ASYNC_END(99);              /* no begin: counted, not recorded */
        {
            PROF_SCOPE("mem_ops");
            rec_alloc(0x1000, 1000, PROF_DEVICE_CPU, 0, "activations", "mem_ops");
            spin_ns(1000);
            rec_alloc(0x2000, 500, PROF_DEVICE_CPU, 0, MEM_CAT_HOSTILE, "mem_ops");
            spin_ns(1000);
            rec_alloc(0x3000, 64, PROF_DEVICE_CPU, 0, NULL, "mem_ops");
            spin_ns(1000);
            rec_alloc(0xD000, 4096, PROF_DEVICE_CUDA, 0, "weights", "mem_ops");
            spin_ns(1000);
            rec_alloc(0xD100, 8192, PROF_DEVICE_CUDA, 1, "weights", "mem_ops");
            spin_ns(1000);
            rec_alloc(0xD200, 100, PROF_DEVICE_CUDA, 0, NULL, "mem_ops");
            spin_ns(1000);
            rec_free(0x1000, "mem_ops");
            spin_ns(1000);
            rec_free(0xD000, "mem_ops");
            spin_ns(1000);
        }
        tid_a = run_worker(0);
        tid_b = run_worker(1);
    }
    CHECK_EQ_INT(prof_step(), PROF_OK);    /* 3: the last step of the window */
    {
        PROF_SCOPE("step3 body");
        snprintf(dyn, sizeof dyn, "dyn \"%d\" \xc3\xa9", 3);
        {
            PROF_SCOPE_DYN(dyn);
            spin_ns(10000);
        }
        MARK("mark_step3", "step3 body");
        rec_free(0x2000, "step3 body");
        spin_ns(1000);
        rec_free(0xB000, "step3 body");
        spin_ns(1000);
        rec_free(0xD100, "step3 body");
        spin_ns(10000);
    }
    check_log_reset();
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK(check_log_count(PROF_E_UNBALANCED) >= 1); /* the async range without a partner */
    CHECK_EQ_INT(prof_events_stats(ev).unmatched_async, 2);
    /* outside a session: forgotten, not recorded */
    prof_dealloc((const void *)0x3000);
    prof_dealloc((const void *)0xD200);

    /* list metadata after the session: a repeated key keeps its place */
    CHECK_EQ_INT(prof_events_add_metadata(ev, "dup", "second"), PROF_OK);
    meta_set(&metas, "dup", "second", 0);
    CHECK_EQ_INT(prof_events_add_metadata(ev, "after stop", "x"), PROF_OK);
    keys_add(&keys, "after stop");
    meta_set(&metas, "after stop", "x", 0);

    /* the window holds steps 2 and 3 only */
    n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e = get_ev(ev, i);
        if (strcmp(e.name, "ProfilerStep*") == 0) {
            steps++;
            CHECK(strcmp(e.trace_name, "ProfilerStep#2") == 0 || strcmp(e.trace_name, "ProfilerStep#3") == 0);
        }
        CHECK(strcmp(e.name, "skipped step 0") != 0 && strcmp(e.name, "warm-up step 1") != 0);
    }
    CHECK_EQ_INT(steps, 2);

    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/rec.json"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks(ev, OUT "/rec.stacks", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks_merged(ev, OUT "/rec_merged.stacks", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks(ev, OUT "/rec_device.stacks", "self_device_time_total"), PROF_OK); /* no device: empty */
    CHECK_EQ_INT(prof_export_memory_timeline(ev, OUT "/rec_mem_cpu.json", PROF_DEVICE_CPU, 0), PROF_OK);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, OUT "/rec_mem_cuda0.json", PROF_DEVICE_CUDA, 0), PROF_OK);
    CHECK_EQ_INT(prof_export_memory_timeline(ev, OUT "/rec_mem_cuda1.json", PROF_DEVICE_CUDA, 1), PROF_OK);

    names[0].tid = my_tid(); names[0].name = g_big_thread; names[0].trunc = 0;
    names[1].tid = tid_a; names[1].name = WA_NAME; names[1].trunc = 0;
    names[2].tid = tid_b; names[2].name = NULL; names[2].trunc = 0;
    tids[0] = names[0].tid; tids[1] = tid_a; tids[2] = tid_b;
    /* this file's scopes and ProfilerStep#'s, which is no file's: this
       file's directory is cut (it was not while the step's "prof.h" took
       part in the common directory) */
    cut_this_dir(1);
    {
        FILE *f = open_expect("rec.expect.json");
        lane lanes[16];
        size_t nl = collect_lanes(ev, lanes, 16, tids, 3);
        int nmarks = 0, nctr = 0, k;
        for (k = 0; k < g_ninst; k++) { if (g_inst[k].is_counter) nctr++; else nmarks++; }
        if (f) {
            fprintf(f, "{\"prof_check\": {\"kind\": \"trace\", \"file\": \"rec.json\", \"trace_name\": \"" OUT "/rec.json\", \"pid\": %ld, \"process_name\": ",
                    (long)getpid());
            put_spec(f, g_comm);
            fprintf(f, ", \"base_ns_min\": %lld, \"base_ns_max\": %lld, \"rank\": 3, \"world_size\": 8,\n", (long long)real0, (long long)real1);
            put_keys(f, &keys, 1);
            fprintf(f, ",\n");
            put_meta(f, &metas);
            fprintf(f, ",\n\"counts\": {\"X\": %zu, \"b\": %zu, \"e\": %zu, \"M\": %d, \"I\": %d, \"i\": %d, \"C\": %d},\n", n - count_async(ev),
                    count_async(ev), count_async(ev), count_meta(lanes, nl), nmarks, g_nmem, nctr);
            put_threads(f, lanes, nl, names, 3);
            fprintf(f, ",\n");
            put_events(f, ev, cat_rec);
            fprintf(f, ",\n");
            put_instants(f, "marks", 0);
            fprintf(f, ",\n");
            put_instants(f, "counters", 1);
            fprintf(f, ",\n");
            put_memory(f);
            fprintf(f, "}}\n");
            close_expect(f);
        }
    }
    write_stacks_expect("rec.stacks.expect.json", "rec.stacks", ev, 0, 0, NULL);
    write_stacks_expect("rec_merged.stacks.expect.json", "rec_merged.stacks", ev, 0, 1, "rec.stacks");
    write_stacks_expect("rec_device.stacks.expect.json", "rec_device.stacks", ev, 1, 0, NULL);
    write_timeline_expect("rec_mem_cpu.expect.json", "rec_mem_cpu.json", ev, PROF_DEVICE_CPU, 0);
    write_timeline_expect("rec_mem_cuda0.expect.json", "rec_mem_cuda0.json", ev, PROF_DEVICE_CUDA, 0);
    write_timeline_expect("rec_mem_cuda1.expect.json", "rec_mem_cuda1.json", ev, PROF_DEVICE_CUDA, 1);
    cut_this_dir(0);
    prof_events_free(ev);
}

/* ----- the session the real consumers load (tests/js) ------------------- */

#define JS_MAIN_NAME "js main \"q\" caf\xc3\xa9 \x01"
#define JS_WORKER_NAME "js worker \xe2\x9c\x93 \xff"
#define JS_DYN "js ctl\x01 \xff;semi"

static void *js_worker(void *arg) {
    *(uint64_t *)arg = my_tid();
    prof_set_thread_name(JS_WORKER_NAME);
    {
        PROF_SCOPE("js_worker_top");
        spin_ns(20000);
        {
            PROF_SCOPE("js matmul");
            spin_ns(40000);
        }
        spin_ns(20000);
    }
    return NULL;
}

/* check_trace.mjs's "threads" and check_speedscope.mjs's members, from the
   list and the names this program set. */
static void write_js_expect(prof_events *ev, uint64_t main_tid, uint64_t worker_tid) {
    FILE *f = open_expect("js_trace.expect.json");
    size_t i, j, n = prof_events_count(ev);
    uint64_t tids[2];
    const char *tnames[2];
    int t;
    double total = 0;
    lane lanes[4];
    size_t nl;
    tname names[2];
    tids[0] = main_tid; tids[1] = worker_tid;
    tnames[0] = JS_MAIN_NAME; tnames[1] = JS_WORKER_NAME;
    names[0].tid = main_tid; names[0].name = JS_MAIN_NAME; names[0].trunc = 0;
    names[1].tid = worker_tid; names[1].name = JS_WORKER_NAME; names[1].trunc = 0;
    nl = collect_lanes(ev, lanes, 4, tids, 2);
    if (!f) return;
    fprintf(f, "{\"prof_check\": {\"kind\": \"trace\", \"file\": \"js_trace.json\", \"trace_name\": \"" OUT "/js_trace.json\", \"pid\": %ld, \"counts\": {\"X\": %zu, \"b\": %zu, \"e\": %zu, \"M\": %d},\n",
            (long)getpid(), n - count_async(ev), count_async(ev), count_async(ev), count_meta(lanes, nl));
    put_threads(f, lanes, nl, names, 2);
    fprintf(f, ",\n");
    put_events(f, ev, cat_rec);
    fprintf(f, "},\n\"processes\": {\"%ld\": ", (long)getpid());
    put_pj(f, g_comm, 0);
    fprintf(f, "},\n\"threads\": {");
    for (t = 0; t < 2; t++) {
        int first = 1;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        fprintf(f, "%s\n  \"%llu\": {\"name\": ", t ? "," : "", (unsigned long long)tids[t]);
        put_pj(f, tnames[t], 0);
        fprintf(f, ", \"scopes\": {");
        for (i = 0; i < n; i++) {
            prof_event e = get_ev(ev, i);
            size_t cnt = 0;
            if (e.thread != tids[t]) continue;
            if (e.start_ns < lo) lo = e.start_ns;
            if (e.end_ns > hi) hi = e.end_ns;
            for (j = 0; j < i; j++) {
                prof_event o = get_ev(ev, j);
                if (o.thread == tids[t] && strcmp(o.trace_name, e.trace_name) == 0) break;
            }
            if (j < i) continue; /* counted at its first occurrence */
            for (j = i; j < n; j++) {
                prof_event o = get_ev(ev, j);
                cnt += o.thread == tids[t] && strcmp(o.trace_name, e.trace_name) == 0;
            }
            fprintf(f, "%s", first ? "" : ", ");
            first = 0;
            put_pj(f, e.trace_name, 0);
            fprintf(f, ": %zu", cnt);
        }
        fprintf(f, "}, \"parents\": {");
        first = 1;
        for (i = 0; i < n; i++) {
            prof_event e = get_ev(ev, i);
            if (e.thread != tids[t]) continue;
            for (j = 0; j < i; j++) {
                prof_event o = get_ev(ev, j);
                if (o.thread == tids[t] && strcmp(o.trace_name, e.trace_name) == 0) break;
            }
            if (j < i) continue;
            fprintf(f, "%s", first ? "" : ", ");
            first = 0;
            put_pj(f, e.trace_name, 0);
            fprintf(f, ": ");
            /* every occurrence of this name in this session has one parent name */
            if (e.parent < 0) fprintf(f, "null");
            else put_pj(f, get_ev(ev, (size_t)e.parent).trace_name, 0);
        }
        fprintf(f, "}}");
        if (hi > lo) total += (double)(hi - lo) / 1000.0;
    }
    fprintf(f, "\n},\n\"speedscope\": {\"importer\": \"Trace Event Format profile\", \"profiles\": 2, \"tolerance\": 0.01, \"total\": %.3f, \"frames\": [", total);
    for (i = 0; i < n; i++) {
        prof_event e = get_ev(ev, i);
        for (j = 0; j < i; j++) if (strcmp(get_ev(ev, j).trace_name, e.trace_name) == 0) break;
        if (j < i) continue;
        fprintf(f, "%s", i ? ", " : "");
        put_pj(f, e.trace_name, 0);
    }
    fprintf(f, "]}}\n");
    close_expect(f);

    /* js.stacks: the frames speedscope must show and the total weight */
    f = open_expect("js.stacks.expect.json");
    if (!f) return;
    {
        sbuf seen;
        long long sum = 0;
        int first = 1, k;
        memset(&seen, 0, sizeof seen);
        sb_put(&seen, "\n", 1);
        fprintf(f, "{\"importer\": \"collapsed stack format\", \"profiles\": 1, \"frames\": [");
        for (i = 0; i < n; i++) {
            prof_event e = get_ev(ev, i);
            int64_t v = e.self_cpu_time_total_ns / 1000;
            if (e.stack_depth <= 0 || v <= 0) continue;
            sum += v;
            for (k = 0; k < e.stack_depth; k++) {
                sbuf fr;
                memset(&fr, 0, sizeof fr);
                sb_put(&fr, "\n", 1);
                xform(&fr, cut_frame(e.stack[k]), 1);
                sb_put(&fr, "\n", 1);
                if (!strstr(seen.p, fr.p)) {
                    sb_str(&seen, fr.p + 1);
                    fr.p[fr.n - 1] = 0;
                    fprintf(f, "%s", first ? "" : ", ");
                    first = 0;
                    put_js(f, fr.p + 1);
                }
                sb_free(&fr);
            }
        }
        fprintf(f, "], \"total\": %lld,\n", sum);
        sb_free(&seen);
    }
    /* the same file describes js.stacks for check_export.py */
    put_stacks_check(f, "js.stacks", ev, 0, 0, NULL);
    fprintf(f, "}\n");
    close_expect(f);
}

static void test_js(void) {
    prof_config cfg;
    prof_events *ev;
    pthread_t th;
    uint64_t worker_tid = 0, main_tid = my_tid();
    memset(&cfg, 0, sizeof cfg);
    cfg.with_stack = PROF_STACK_SCOPES;
    cfg.log = check_log;
    prof_set_thread_name(JS_MAIN_NAME);
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return;
    {
        PROF_SCOPE("js_step");
        spin_ns(10000);
        {
            PROF_SCOPE("js matmul");
            spin_ns(30000);
            {
                PROF_SCOPE("js \"quoted\" \\ caf\xc3\xa9");
                spin_ns(20000);
            }
        }
        {
            PROF_SCOPE_DYN(JS_DYN);
            spin_ns(20000);
        }
        spin_ns(10000);
    }
    if (CHECK(pthread_create(&th, NULL, js_worker, &worker_tid) == 0)) pthread_join(th, NULL);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/js_trace.json"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks(ev, OUT "/js.stacks", "self_cpu_time_total"), PROF_OK);
    cut_this_dir(1); /* every scope of this session is in this file: its directory is cut */
    write_js_expect(ev, main_tid, worker_tid);
    cut_this_dir(0);
    prof_events_free(ev);
}

/* ----- error paths -------------------------------------------------------- */


/* A failed export: PROF_E_IO, a message naming the path, no temporary file
   in dir, and the old content of an existing target. */
static void expect_io_failure(prof_events *ev, size_t k, const char *path, const char *dir, const char *old) {
    prof_result r;
    check_log_reset();
    r = CHECK_EXPORTERS[k].fn(ev, path);
    CHECK_MSG(r == PROF_E_IO, "%s(%s) returned %d (%s), expected PROF_E_IO", CHECK_EXPORTERS[k].name, path, (int)r, prof_result_string(r));
    CHECK_MSG(check_log_has(PROF_E_IO, path), "%s(%s): no PROF_E_IO message naming the path (last error: %s)", CHECK_EXPORTERS[k].name, path,
              prof_last_error() ? prof_last_error() : "(none)");
    if (dir) CHECK_MSG(check_count_tmp(dir) == 0, "%s(%s) left a temporary file in %s", CHECK_EXPORTERS[k].name, path, dir);
    if (old) CHECK_MSG(file_is(path, old), "%s(%s): the existing target lost its content", CHECK_EXPORTERS[k].name, path);
}

/* A list whose trace and stacks are a few tens of kB (more than the 4 kB
   file-size limit below) and cheap to write under valgrind. */
static prof_events *build_small(void) {
    prof_events *ev = prof_events_create();
    int i;
    if (!ev) return NULL;
    for (i = 0; i < 200; i++) {
        const char *st[2];
        char name[32];
        snprintf(name, sizeof name, "small %d \"q\"", i);
        st[0] = name;
        st[1] = "small root";
        add_ev(ev, name, 1, (int64_t)i * 10000, (int64_t)i * 10000 + 9000, st, 2);
    }
    return ev;
}

static void test_errors(void) {
    size_t k;
    struct stat st;
    prof_events *ev = build_small();
    if (!CHECK(ev != NULL)) return;
    CHECK(mkdir(ERR_DIR, 0755) == 0 || errno == EEXIST);

    /* events recorded without with_stack: an empty stacks file, as PyTorch
       writes it, and a warning that says why */
    {
        prof_config c;
        prof_events *plain;
        memset(&c, 0, sizeof c);
        CHECK_EQ_INT(prof_start(&c), PROF_OK);
        { PROF_SCOPE("no_stack"); }
        plain = prof_stop();
        if (CHECK(plain != NULL)) {
            check_log_reset();
            CHECK_EQ_INT(prof_export_stacks(plain, ERR_DIR "/empty.stacks", "self_cpu_time_total"), PROF_OK);
            CHECK(stat(ERR_DIR "/empty.stacks", &st) == 0 && st.st_size == 0);
            CHECK(check_log_has(PROF_E_ARG, "no event has a stack"));
            check_log_reset();
            /* pprof too: a profile with no sample, and the same warning
               (it said nothing: found by probe22b) */
            CHECK_EQ_INT(prof_export_pprof(plain, ERR_DIR "/empty.pb", "self_cpu_time_total"), PROF_OK);
            CHECK(stat(ERR_DIR "/empty.pb", &st) == 0);
            CHECK(check_log_has(PROF_E_ARG, "prof_export_pprof: no event has a stack"));
            check_log_reset();
            /* events with stacks but no device time (a CPU list and the
               device metric): empty, as PyTorch writes it, and a warning
               that says why (test_edges4_stacks_pprof: "under 1 us") */
            CHECK_EQ_INT(prof_export_stacks(ev, ERR_DIR "/zero.stacks", "self_cuda_time_total"), PROF_OK);
            CHECK(stat(ERR_DIR "/zero.stacks", &st) == 0 && st.st_size == 0);
            CHECK_EQ_INT(check_log_count(PROF_E_ARG), 1);
            CHECK(check_log_has(PROF_E_ARG, "has no device time"));
            check_log_reset();
            CHECK_EQ_INT(prof_export_stacks_merged(ev, ERR_DIR "/zero_merged.stacks", "self_cuda_time_total"), PROF_OK);
            CHECK_EQ_INT(check_log_count(PROF_E_ARG), 1);
            prof_events_free(plain);
        }
    }

    /* a directory that does not exist */
    for (k = 0; k < CHECK_N_EXPORTERS; k++) expect_io_failure(ev, k, "/nonexistent/dir/x.json", NULL, NULL);

    /* /dev/full: written in place (a device), fails at the first flush */
    if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
        for (k = 0; k < CHECK_N_EXPORTERS; k++) expect_io_failure(ev, k, "/dev/full", "/dev", NULL);
        CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)); /* still the device */
    } else {
        printf("test_export: no /dev/full here, its check skipped\n");
    }

    /* a new regular file under /dev (tmpfs /dev/shm) is created like any
       other file, through a temporary name: /dev is not all devices */
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0) {
        char shm[64];
        snprintf(shm, sizeof shm, "/dev/shm/prof-test-export-%ld", (long)getpid());
        for (k = 0; k < CHECK_N_EXPORTERS; k++) {
            unlink(shm);
            CHECK_MSG(CHECK_EXPORTERS[k].fn(ev, shm) == PROF_OK, "%s(%s) failed: %s", CHECK_EXPORTERS[k].name, shm, prof_last_error());
            CHECK_MSG(stat(shm, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0, "%s(%s) wrote no file", CHECK_EXPORTERS[k].name, shm);
        }
        unlink(shm);
    } else {
        printf("test_export: no writable /dev/shm here, its check skipped\n");
    }

    /* a directory as the target */
    CHECK(mkdir(ERR_DIR "/adir", 0755) == 0);
    for (k = 0; k < CHECK_N_EXPORTERS; k++) expect_io_failure(ev, k, ERR_DIR "/adir", ERR_DIR, NULL);
    CHECK(stat(ERR_DIR "/adir", &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(check_count_tmp(ERR_DIR "/adir") == 0);

    /* a read-only directory, with an existing target. As root (uid 0)
       permissions do not stop writes, so the failure cannot happen there:
       the check is skipped, and the file-size limit below covers "the
       target keeps its content" for everyone. */
    CHECK(mkdir(ERR_DIR "/ro", 0755) == 0);
    CHECK(write_file(ERR_DIR "/ro/x.json", "OLD\n") == 0);
    CHECK(chmod(ERR_DIR "/ro", 0555) == 0);
    if (geteuid() != 0) {
        for (k = 0; k < CHECK_N_EXPORTERS; k++) expect_io_failure(ev, k, ERR_DIR "/ro/x.json", ERR_DIR "/ro", "OLD\n");
    } else {
        printf("test_export: running as root, read-only directory check skipped\n");
    }
    chmod(ERR_DIR "/ro", 0755);

    /* a write that fails midway (RLIMIT_FSIZE: EFBIG): the temporary file
       goes away and the target keeps its old content */
    {
        struct rlimit old_lim, lim;
        void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
        CHECK(mkdir(ERR_DIR "/fsize", 0755) == 0);
        CHECK(write_file(ERR_DIR "/fsize/target", "OLD\n") == 0);
        CHECK(getrlimit(RLIMIT_FSIZE, &old_lim) == 0);
        lim = old_lim;
        for (k = 0; k < CHECK_N_EXPORTERS; k++) {
            /* every format's file is over 4 kB here but the timeline's */
            lim.rlim_cur = CHECK_EXPORTERS[k].fn == check_ex_timeline ? 8 : 4096;
            if (CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0)) {
                expect_io_failure(ev, k, ERR_DIR "/fsize/target", ERR_DIR "/fsize", "OLD\n");
                CHECK(setrlimit(RLIMIT_FSIZE, &old_lim) == 0);
            }
        }
        signal(SIGXFSZ, old_sig);
        /* and a successful export replaces it */
        CHECK_EQ_INT(prof_export_stacks(ev, ERR_DIR "/fsize/target", "self_cpu_time_total"), PROF_OK);
        CHECK(!file_is(ERR_DIR "/fsize/target", "OLD\n"));
        CHECK(check_count_tmp(ERR_DIR "/fsize") == 0);
    }

    /* unknown stacks metric: refused before any file is made */
    {
        static const char *const bad[] = { "cpu_time_total", "self_cpu_time", "SELF_CPU_TIME_TOTAL", "" };
        for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            check_log_reset();
            CHECK_EQ_INT(prof_export_stacks(ev, ERR_DIR "/m.stacks", bad[k]), PROF_E_UNKNOWN_KEY);
            CHECK_EQ_INT(prof_export_stacks_merged(ev, ERR_DIR "/m.stacks", bad[k]), PROF_E_UNKNOWN_KEY);
            CHECK(check_log_count(PROF_E_UNKNOWN_KEY) == 2);
            if (bad[k][0]) CHECK(check_log_has(PROF_E_UNKNOWN_KEY, bad[k]));
        }
        CHECK(!exists(ERR_DIR "/m.stacks"));
        /* (NULL is the default metric: test_limits) */
    }

    /* arguments */
    CHECK_EQ_INT(prof_export_chrome_trace(NULL, ERR_DIR "/n.json"), PROF_E_ARG);
    CHECK_EQ_INT(prof_export_stacks(NULL, ERR_DIR "/n.json", "self_cpu_time_total"), PROF_E_ARG);
    CHECK_EQ_INT(prof_export_memory_timeline(NULL, ERR_DIR "/n.json", PROF_DEVICE_CPU, 0), PROF_E_ARG);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, ""), PROF_E_ARG);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, NULL), PROF_E_ARG);
    CHECK(!exists(ERR_DIR "/n.json"));
    CHECK(check_count_tmp(ERR_DIR) == 0);
    CHECK(check_count_tmp(OUT) == 0);
    prof_events_free(ev);
}

/* ----- paths: what replacing a file keeps -------------------------------- */

/* Exports to path with every exporter; each must succeed. */
static void export_all_ok(prof_events *ev, const char *path) {
    size_t k;
    for (k = 0; k < CHECK_N_EXPORTERS; k++)
        CHECK_MSG(CHECK_EXPORTERS[k].fn(ev, path) == PROF_OK, "%s(%s) failed: %s", CHECK_EXPORTERS[k].name, path, prof_last_error());
}

static void test_paths(void) {
    struct stat st;
    char name[512], link_target[256];
    ssize_t n;
    int fd;
    prof_events *ev = build_small();
    if (!CHECK(ev != NULL)) return;
    rm_tree(ERR_DIR "/p");
    CHECK(mkdir(ERR_DIR "/p", 0755) == 0);

    /* a 250-byte file name: the temporary name must stay within NAME_MAX */
    memset(name, 0, sizeof name);
    memcpy(name, ERR_DIR "/p/", strlen(ERR_DIR "/p/"));
    memset(name + strlen(name), 'n', 245);
    strcat(name, ".json");
    fd = open(name, O_WRONLY | O_CREAT, 0644); /* the name is legal */
    if (CHECK(fd >= 0)) { close(fd); unlink(name); }
    export_all_ok(ev, name);
    CHECK(stat(name, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0);
    CHECK(check_count_tmp(ERR_DIR "/p") == 0);
    unlink(name);

    /* replacing a 0600 file keeps 0600 (and a new file gets fopen's mode) */
    CHECK(write_file(ERR_DIR "/p/private.json", "OLD\n") == 0);
    CHECK(chmod(ERR_DIR "/p/private.json", 0600) == 0);
    export_all_ok(ev, ERR_DIR "/p/private.json");
    CHECK(stat(ERR_DIR "/p/private.json", &st) == 0 && (st.st_mode & 07777) == 0600);
    CHECK(!file_is(ERR_DIR "/p/private.json", "OLD\n"));
    CHECK(chmod(ERR_DIR "/p/private.json", 0640) == 0);
    export_all_ok(ev, ERR_DIR "/p/private.json");
    CHECK(stat(ERR_DIR "/p/private.json", &st) == 0 && (st.st_mode & 07777) == 0640);
    {
        mode_t um = umask(022);
        export_all_ok(ev, ERR_DIR "/p/new.json");
        CHECK(stat(ERR_DIR "/p/new.json", &st) == 0 && (st.st_mode & 07777) == 0644);
        umask(um);
    }

    /* a dangling symlink: the file is created where it points, the link stays */
    CHECK(mkdir(ERR_DIR "/p/other", 0755) == 0);
    CHECK(symlink("other/made.json", ERR_DIR "/p/dangling") == 0);
    export_all_ok(ev, ERR_DIR "/p/dangling");
    CHECK(lstat(ERR_DIR "/p/dangling", &st) == 0 && S_ISLNK(st.st_mode));
    n = readlink(ERR_DIR "/p/dangling", link_target, sizeof link_target - 1);
    CHECK(n == (ssize_t)strlen("other/made.json") && memcmp(link_target, "other/made.json", (size_t)n) == 0);
    CHECK(stat(ERR_DIR "/p/other/made.json", &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0);
    /* through two links, the second relative to the first's directory */
    CHECK(symlink("other/hop", ERR_DIR "/p/hop1") == 0);
    CHECK(symlink("made.json", ERR_DIR "/p/other/hop") == 0);
    CHECK(unlink(ERR_DIR "/p/other/made.json") == 0);
    export_all_ok(ev, ERR_DIR "/p/hop1");
    CHECK(lstat(ERR_DIR "/p/hop1", &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(lstat(ERR_DIR "/p/other/hop", &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(stat(ERR_DIR "/p/other/made.json", &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0);

    /* a symlink loop: an error (as fopen's ELOOP), the links untouched */
    CHECK(symlink("loop_b", ERR_DIR "/p/loop_a") == 0);
    CHECK(symlink("loop_a", ERR_DIR "/p/loop_b") == 0);
    check_log_reset();
    CHECK_EQ_INT(prof_export_chrome_trace(ev, ERR_DIR "/p/loop_a"), PROF_E_IO);
    CHECK(check_log_has(PROF_E_IO, "loop_a"));
    CHECK(lstat(ERR_DIR "/p/loop_a", &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(lstat(ERR_DIR "/p/loop_b", &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(check_count_tmp(ERR_DIR "/p") == 0);
    CHECK(check_count_tmp(ERR_DIR "/p/other") == 0);

    /* metadata cannot take the trace's own keys (the file would have two) */
    {
        static const char *const own[] = { "schemaVersion", "deviceProperties", "displayTimeUnit", "baseTimeNanoseconds", "traceEvents", "traceName",
                                           "systemTraceEvents", "stackFrames", "samples" }; /* (the last three: trace readers' own) */
        size_t k;
        char *text;
        for (k = 0; k < sizeof own / sizeof own[0]; k++) {
            check_log_reset();
            CHECK_EQ_INT(prof_events_add_metadata(ev, own[k], "x"), PROF_E_ARG);
            CHECK_EQ_INT(prof_events_add_metadata_json(ev, own[k], "2"), PROF_E_ARG);
            CHECK_EQ_INT(prof_add_metadata(own[k], "x"), PROF_E_ARG);
            CHECK(check_log_has(PROF_E_ARG, own[k]));
        }
        CHECK_EQ_INT(prof_events_add_metadata(ev, "schemaVersion2", "fine"), PROF_OK);
        CHECK_EQ_INT(prof_export_chrome_trace(ev, ERR_DIR "/p/meta.json"), PROF_OK);
        text = check_read_file_n(ERR_DIR "/p/meta.json", NULL);
        if (CHECK(text != NULL)) {
            const char *a = strstr(text, "\"schemaVersion\": 1,");
            CHECK(a != NULL && strstr(a + 1, "\"schemaVersion\":") == NULL);
            CHECK(strstr(text, "\"schemaVersion2\": \"fine\"") != NULL);
        }
        free(text);
    }

    /* an event longer than int64 ns can hold is refused */
    {
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = "too long";
        d.thread = 1;
        d.start_ns = INT64_MIN;
        d.end_ns = INT64_MAX;
        check_log_reset();
        CHECK_EQ_INT(prof_events_add(ev, &d), -1);
        CHECK(check_log_has(PROF_E_ARG, "too long"));
        d.start_ns = -1;
        d.end_ns = INT64_MAX - 1; /* 2^63 - 1 ns exactly: still fits */
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    prof_events_free(ev);
}

/* An existing writable file in a directory the user cannot write: the
   temporary file cannot be made, so the file is written in place. As root
   the directory's permissions do not apply: the check runs in a child that
   drops to nobody. */
static void test_unwritable_dir(void) {
    struct stat st;
    pid_t pid;
    int status = 0;
    rm_tree(ERR_DIR "/ud");
    CHECK(mkdir(ERR_DIR "/ud", 0755) == 0);
    CHECK(write_file(ERR_DIR "/ud/x.json", "OLD\n") == 0);
    CHECK(chmod(ERR_DIR "/ud/x.json", 0666) == 0);
    CHECK(chmod(ERR_DIR "/ud", 0555) == 0);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        prof_events *ev;
        int ok;
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        if (access(ERR_DIR "/ud", W_OK) == 0) _exit(4); /* still writable: nothing to check */
        ev = build_small();
        ok = ev && prof_export_chrome_trace(ev, ERR_DIR "/ud/x.json") == PROF_OK && prof_export_stacks(ev, ERR_DIR "/ud/y.stacks", "self_cpu_time_total") == PROF_E_IO;
        /* the same in place when the write then fails (RLIMIT_FSIZE of 1
           byte: EFBIG), each format: PROF_E_IO and the file left empty,
           never a part of a trace that looks like one */
        {
            struct rlimit old_lim, lim;
            size_t k;
            signal(SIGXFSZ, SIG_IGN);
            if (getrlimit(RLIMIT_FSIZE, &old_lim) != 0) _exit(6);
            for (k = 0; ok && k < CHECK_N_EXPORTERS; k++) {
                struct stat xs;
                prof_result r;
                if (write_file(ERR_DIR "/ud/x.json", "OLD\n") != 0) _exit(7);
                lim = old_lim;
                lim.rlim_cur = 1;
                if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(8);
                r = CHECK_EXPORTERS[k].fn(ev, ERR_DIR "/ud/x.json");
                if (setrlimit(RLIMIT_FSIZE, &old_lim) != 0) _exit(9);
                if (r != PROF_E_IO || stat(ERR_DIR "/ud/x.json", &xs) != 0 || xs.st_size != 0) {
                    fprintf(stderr, "%s in place, failing: returned %d, the file has %lld bytes (want PROF_E_IO, 0)\n",
                            CHECK_EXPORTERS[k].name, (int)r, (long long)xs.st_size);
                    ok = 0;
                }
            }
            /* and the file is written again once writes succeed */
            ok = ok && prof_export_chrome_trace(ev, ERR_DIR "/ud/x.json") == PROF_OK;
        }
        prof_events_free(ev);
        _exit(ok ? 0 : 5);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 3 || WEXITSTATUS(status) == 4)) {
        printf("test_export: cannot make a directory unwritable here (status %d), in-place check skipped\n", WEXITSTATUS(status));
    } else {
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "in-place export in an unwritable directory: child status %d", status);
        CHECK(stat(ERR_DIR "/ud/x.json", &st) == 0 && st.st_size > 100 && !file_is(ERR_DIR "/ud/x.json", "OLD\n"));
        CHECK(!exists(ERR_DIR "/ud/y.stacks"));
    }
    CHECK(check_count_tmp(ERR_DIR "/ud") == 0);
    chmod(ERR_DIR "/ud", 0755);
}

/* ----- streaming: ~200k events, memory flat ------------------------------- */

static long status_kb(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, field, n) == 0 && line[n] == ':') { v = atol(line + n + 1); break; }
    }
    fclose(f);
    return v;
}

static void test_streaming(void) {
    prof_events *ev = prof_events_create();
    long n = check_scale(200000, 10), i, rss0, hwm0, hwm1, rss1, growth;
    int reset_ok;
    prof_event e;
    char *s;
    size_t len, count = 0;
    const char *p;
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_reserve(ev, (size_t)n), PROF_OK);
    for (i = 0; i + 1 < n; i += 2) {
        int64_t t = i * 1000 + 17;
        uint64_t th = (uint64_t)(i % 8) + 1;
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = "stream parent";
        d.thread = th;
        d.start_ns = t;
        d.end_ns = t + 900;
        if (prof_events_add(ev, &d) < 0) break;
        d.name = "stream child \"c\"";
        d.start_ns = t + 100;
        d.end_ns = t + 800;
        if (prof_events_add(ev, &d) < 0) break;
    }
    CHECK_EQ_INT(prof_events_count(ev), n & ~1L);
    n = (long)prof_events_count(ev);
    CHECK(prof_events_get(ev, 0, &e) == PROF_OK); /* builds the tree before measuring */
    rm_tree(STREAM_DIR);
    CHECK(mkdir(STREAM_DIR, 0755) == 0);
    /* "5" resets VmHWM to the current RSS (Linux >= 4.0) */
    {
        int fd = open("/proc/self/clear_refs", O_WRONLY);
        reset_ok = fd >= 0 && write(fd, "5", 1) == 1;
        if (fd >= 0) close(fd);
    }
    rss0 = status_kb("VmRSS");
    hwm0 = status_kb("VmHWM");
    CHECK_EQ_INT(prof_export_chrome_trace(ev, STREAM_DIR "/big.json"), PROF_OK);
    hwm1 = status_kb("VmHWM");
    rss1 = status_kb("VmRSS");
    growth = reset_ok ? hwm1 - rss0 : (hwm1 - hwm0 > rss1 - rss0 ? hwm1 - hwm0 : rss1 - rss0);
    if (check_under_valgrind() || check_under_msan()) {
        printf("test_export: under valgrind or MSan, RSS growth not checked (%ld kB)\n", growth);
    } else {
        CHECK_MSG(rss0 > 0 && hwm1 > 0 && growth < 8 * 1024,
                  "exporting %ld events grew the peak RSS by %ld kB (VmRSS %ld -> %ld kB, VmHWM %ld -> %ld kB, reset %d), limit 8 MB",
                  n, growth, rss0, rss1, hwm0, hwm1, reset_ok);
    }
    s = check_read_file_n(STREAM_DIR "/big.json", &len);
    if (CHECK(s != NULL)) {
        /* a plain loop: sanitizers' strstr rescans the whole haystack per call */
        static const char pat[] = "{\"ph\": \"X\"";
        static const char ts_pat[] = "\"ts\": ";
        long k = 0, bad = 0;
        for (p = s; p + sizeof pat - 1 <= s + len; p++)
            if (*p == '{' && memcmp(p, pat, sizeof pat - 1) == 0) count++;
        CHECK_EQ_INT(count, n);
        CHECK(len > 3 && memcmp(s + len - 3, "\n}\n", 3) == 0);
        /* every event's ts, in order: a buffer of the writer thread written
           twice, lost or out of turn would break the sequence (parent at
           i * 1000 + 17 ns, its child 100 ns later) */
        for (p = s; p + sizeof ts_pat - 1 <= s + len && k < n; p++) {
            long long whole = 0, frac = 0, expect;
            if (*p != '"' || memcmp(p, ts_pat, sizeof ts_pat - 1) != 0) continue;
            p += sizeof ts_pat - 1;
            while (*p >= '0' && *p <= '9') whole = whole * 10 + (*p++ - '0');
            if (*p == '.') { p++; while (*p >= '0' && *p <= '9') frac = frac * 10 + (*p++ - '0'); }
            expect = (long long)(k / 2) * 2 * 1000 + 17 + (k % 2 ? 100 : 0);
            if (whole * 1000 + frac != expect && bad++ < 3) fprintf(stderr, "event %ld: ts %lld.%03lld us, expected %lld ns\n", k, whole, frac, expect);
            k++;
        }
        CHECK_EQ_INT(k, n);
        CHECK_EQ_INT(bad, 0);
        free(s);
    }
    CHECK(check_count_tmp(STREAM_DIR) == 0);

    /* a write that fails once the writer thread has taken over (past the
       first MiB): an error, no temporary file, the old target intact */
    if (n * 150L > 3L << 20) {
        struct rlimit old_lim, lim;
        void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
        CHECK(write_file(STREAM_DIR "/big.json", "OLD\n") == 0);
        CHECK(getrlimit(RLIMIT_FSIZE, &old_lim) == 0);
        lim = old_lim;
        lim.rlim_cur = 3L << 20;
        if (CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0)) {
            check_log_reset();
            CHECK_EQ_INT(prof_export_chrome_trace(ev, STREAM_DIR "/big.json"), PROF_E_IO);
            CHECK(check_log_has(PROF_E_IO, STREAM_DIR "/big.json"));
            CHECK(setrlimit(RLIMIT_FSIZE, &old_lim) == 0);
        }
        signal(SIGXFSZ, old_sig);
        CHECK(file_is(STREAM_DIR "/big.json", "OLD\n"));
        CHECK(check_count_tmp(STREAM_DIR) == 0);
    }
    rm_tree(STREAM_DIR);
    prof_events_free(ev);
}

/* A chain deeper than any fixed path of ancestors (1100 levels), every
   child ending with its parent, in the range where whole nanoseconds are
   written: each written end must lie strictly before its parent's (the
   trimming gives each level one nanosecond), at every depth. Once the
   trimming kept 256 levels and replayed the 256 above each deeper event
   from an unbounded top, so everything below depth 255 ended with its
   parent, in ns and as doubles. */
static int64_t ns_of_decimal(const char *s) { /* "123.456" -> 123456, exact */
    int64_t v = 0;
    for (; (*s >= '0' && *s <= '9') || *s == '.'; s++) if (*s != '.') v = v * 10 + (*s - '0');
    return v;
}
static void test_deep_nesting(void) {
    enum { DEPTH = 1100 };
    prof_events *ev = prof_events_create();
    int64_t *end = (int64_t *)calloc(DEPTH, sizeof *end);
    double *end_d = (double *)calloc(DEPTH, sizeof *end_d);
    char name[64], *text, *p;
    size_t len = 0;
    int d, seen = 0, bad = 0, bad_d = 0;
    if (!CHECK(ev != NULL && end && end_d)) { prof_events_free(ev); free(end); free(end_d); return; }
    for (d = 0; d < DEPTH; d++) {
        snprintf(name, sizeof name, "deep near %d", d);
        add_ev(ev, name, 7, 1000000 + (int64_t)d * 10, 900000000, NULL, 0);
    }
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/deep_nest.json"), PROF_OK);
    text = check_read_file_n(OUT "/deep_nest.json", &len);
    for (p = text; p && (p = strstr(p, "\"name\": \"deep near ")) != NULL; p++) {
        char *ts = strstr(p, "\"ts\": "), *dur = strstr(p, "\"dur\": ");
        d = atoi(p + strlen("\"name\": \"deep near "));
        if (!CHECK(ts && dur && d >= 0 && d < DEPTH)) break;
        end[d] = ns_of_decimal(ts + 6) + ns_of_decimal(dur + 7);
        end_d[d] = strtod(ts + 6, NULL) + strtod(dur + 7, NULL);
        seen++;
    }
    CHECK_EQ_INT(seen, DEPTH);
    for (d = 1; seen == DEPTH && d < DEPTH; d++) {
        if (!(end[d] < end[d - 1])) bad++;
        if (!(end_d[d] < end_d[d - 1])) bad_d++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(bad_d, 0);
    unlink(OUT "/deep_nest.json"); /* checked here: the expectations' checker does not know it */
    free(text);
    free(end);
    free(end_d);
    prof_events_free(ev);
}

/* The pass that finds top-level events touching their lane's next one
   (and lanes whose top-level events overlap) reads a big list in parts on
   two threads, joined where each thread's events cross from one part to
   the next (prof__touch_parts). Three threads' top-level events each end
   where that thread's next one starts, across every part boundary, and
   one of thread 0's overlaps its next by 1 ns right at the first
   boundary (so it is written as a pair, found by the join alone): the
   trace read in parts equals the one read in one pass, byte for byte, and
   a touching event is written 1 ns short. */
static void touch_parts_list(prof_events *ev, size_t n, size_t overlap_at) {
    size_t i;
    for (i = 0; i < n; i++) {
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = i % 2 ? "tp odd" : "tp even";
        d.thread = (uint64_t)(i % 3) + 1;
        d.start_ns = 1000000 + (int64_t)(i / 3) * 100;
        d.end_ns = d.start_ns + 100 + (i == overlap_at); /* touches its thread's next, or overlaps it */
        CHECK(prof_events_add(ev, &d) >= 0);
    }
}
static void test_touch_parts_same_bytes(void) {
    const size_t n = 3000, b1 = n / 8 & ~(size_t)7; /* the first part boundary (prof__touch_parts) */
    size_t old_min = prof__par_min_events, v;
    for (v = 0; v < 2; v++) {
        prof_events *ev = prof_events_create();
        char *seq, *par;
        size_t seq_len = 0, par_len = 0, k = 0, at = b1 - 1;
        if (!CHECK(ev != NULL)) return;
        while (at % 3) at--; /* thread 0's last event before the boundary */
        touch_parts_list(ev, n, v ? at : n);
        CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
        rm_tree(STREAM_DIR);
        CHECK(mkdir(STREAM_DIR, 0755) == 0);
        prof__par_min_events = (size_t)-1; /* one pass, one thread */
        CHECK_EQ_INT(prof_export_chrome_trace(ev, STREAM_DIR "/a.json"), PROF_OK);
        prof__par_min_events = 0; /* in parts (and the events in chunks) */
        CHECK_EQ_INT(prof_export_chrome_trace(ev, STREAM_DIR "/b.json"), PROF_OK);
        prof__par_min_events = old_min;
        seq = check_read_file_n(STREAM_DIR "/a.json", &seq_len);
        par = check_read_file_n(STREAM_DIR "/b.json", &par_len);
        if (CHECK(seq && par)) {
            char *tn = strstr(par, "b.json\"");
            if (CHECK(tn != NULL)) *tn = 'a'; /* the traceName, the path */
            while (k < seq_len && k < par_len && seq[k] == par[k]) k++;
            CHECK_MSG(seq_len == par_len && k == seq_len, "%s: the trace read in parts differs at byte %zu (sizes %zu, %zu)",
                      v ? "overlap" : "touching", k, seq_len, par_len);
            CHECK(strstr(seq, "\"ts\": 1000.000, \"dur\": 0.099,") != NULL); /* touching: 1 ns short */
            CHECK(!v == !strstr(seq, "\"ph\": \"b\"")); /* the overlapping one: a pair */
        }
        free(seq);
        free(par);
        prof_events_free(ev);
    }
}

/* A big trace written to its file starts on the guess that its events
   nest on the CPU, finding the touching top-level events as it goes, and
   starts over when an event proves it wrong (prof__tpipe): the file is
   the bytes one pass and one thread write, whether the guess holds, fails
   near the end (an overlap: the events already written are thrown away)
   or fails on a device event (a hand-built list without use_device), with
   chunks of 97 events on two threads. */
static void test_guess_same_bytes(void) {
    const size_t n = 3000;
    size_t old_min = prof__par_min_events, old_chunk = prof__par_chunk, v;
    for (v = 0; v < 3; v++) {
        prof_events *ev = prof_events_create();
        char *seq, *par;
        size_t seq_len = 0, par_len = 0, k = 0;
        if (!CHECK(ev != NULL)) return;
        touch_parts_list(ev, n, v == 1 ? n - 9 : n);
        if (v == 2) {
            prof_event_desc d;
            memset(&d, 0, sizeof d);
            d.name = "tp kernel";
            d.device_type = PROF_DEVICE_CUDA;
            d.start_ns = 1000000 + (int64_t)(n / 3) * 100 + 50; /* the last event */
            d.end_ns = d.start_ns + 10;
            CHECK(prof_events_add(ev, &d) >= 0);
        }
        CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK);
        rm_tree(STREAM_DIR);
        CHECK(mkdir(STREAM_DIR, 0755) == 0);
        prof__par_min_events = (size_t)-1; /* one pass, one thread */
        CHECK_EQ_INT(prof_export_chrome_trace(ev, STREAM_DIR "/a.json"), PROF_OK);
        prof__par_min_events = 0;
        prof__par_chunk = 97;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, STREAM_DIR "/b.json"), PROF_OK);
        prof__par_min_events = old_min;
        prof__par_chunk = old_chunk;
        seq = check_read_file_n(STREAM_DIR "/a.json", &seq_len);
        par = check_read_file_n(STREAM_DIR "/b.json", &par_len);
        if (CHECK(seq && par)) {
            char *tn = strstr(par, "b.json\"");
            if (CHECK(tn != NULL)) *tn = 'a'; /* the traceName, the path */
            while (k < seq_len && k < par_len && seq[k] == par[k]) k++;
            CHECK_MSG(seq_len == par_len && k == seq_len, "%s: the trace written on the guess differs at byte %zu (sizes %zu, %zu)",
                      v == 0 ? "nested" : v == 1 ? "late overlap" : "device", k, seq_len, par_len);
            CHECK(strstr(seq, "\"ts\": 1000.000, \"dur\": 0.099,") != NULL); /* touching: 1 ns short */
            CHECK((v == 1) == !!strstr(seq, "\"ph\": \"b\"")); /* the overlapping one: a pair */
            CHECK((v == 2) == !!strstr(seq, "tp kernel"));
        }
        free(seq);
        free(par);
        prof_events_free(ev);
    }
}

/* Big traces are formatted by two threads in chunks: the file must be the
   same bytes as one thread writes. Nesting 6 deep across chunk boundaries,
   chains 520 deep across chunk boundaries (past the trimming's cached path),
   children that end exactly with their parent or one ns before it (the
   trimming's two paths), one thread's times past 2^50 ns (where the doubles
   decide), names and stack entries that need escaping. */
static void test_parallel_same_bytes(void) {
    prof_events *ev = prof_events_create();
    long n = 40000, i = 0; /* 5 chunks: under valgrind and TSan too */
    char *seq, *par;
    size_t seq_len = 0, par_len = 0;
    size_t old_min = prof__par_min_events;
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_events_reserve(ev, (size_t)n), PROF_OK);
    while (i < n) {
        int64_t base = (i / 6) % 2 ? ((int64_t)1 << 50) + 123456789 : 1000;
        int64_t t = base + (int64_t)(i / 6) * 100003, end = t + 50000 + (i % 7);
        int d;
        for (d = 0; d < 6 && i < n; d++, i++) {
            prof_event_desc desc;
            memset(&desc, 0, sizeof desc);
            static const char *const frames[] = { "a.py(1): f \"q\"", "b\\c.py(2): g", "main.py(3): <module>" };
            desc.name = d % 3 == 0 ? "par \"root\"\n" : d % 3 == 1 ? "par mid" : "par leaf \xff";
            desc.thread = (uint64_t)((i / 6) % 2) + 1;
            if (d >= 3) { /* stacks: their strings are kept by node once written */
                desc.stack = frames + (i / 6) % 3;
                desc.stack_depth = 3 - (int)((i / 6) % 3);
            }
            desc.start_ns = t + d * 7;
            desc.end_ns = (d % 2) ? end : end - 1; /* exactly with the parent, or 1 ns short */
            if (!CHECK(prof_events_add(ev, &desc) >= 0)) break;
            end = desc.end_ns;
        }
    }
    {
        /* and 35 chains 520 deep (deeper than the trimming's cached path)
           at 2^52 ns, each child ending with its parent: 18200 events */
        int chain, d;
        for (chain = 0; chain < 35; chain++) {
            int64_t t = ((int64_t)1 << 52) + (int64_t)chain * 10000000;
            for (d = 0; d < 520; d++) {
                prof_event_desc desc;
                memset(&desc, 0, sizeof desc);
                desc.name = d % 2 ? "par deep odd" : "par deep even"; /* same-name single children would be merged */
                desc.thread = 3;
                desc.start_ns = t + d * 3;
                desc.end_ns = t + 5000000;
                CHECK(prof_events_add(ev, &desc) >= 0);
            }
        }
    }
    rm_tree(STREAM_DIR);
    CHECK(mkdir(STREAM_DIR, 0755) == 0);
    prof__par_min_events = (size_t)-1; /* one thread */
    CHECK_EQ_INT(prof_export_chrome_trace(ev, STREAM_DIR "/seq.json"), PROF_OK);
    prof__par_min_events = 0; /* two, whenever there are 2 chunks */
    prof__par_chunk = 97;     /* chunks that begin at every depth */
    CHECK_EQ_INT(prof_export_chrome_trace(ev, STREAM_DIR "/par.json"), PROF_OK);
    prof__par_min_events = old_min;
    prof__par_chunk = PROF__PAR_CHUNK;
    seq = check_read_file_n(STREAM_DIR "/seq.json", &seq_len);
    par = check_read_file_n(STREAM_DIR "/par.json", &par_len);
    if (CHECK(seq && par)) {
        /* the same but for the traceName, which is the path: seq.json / par.json */
        size_t k = 0;
        char *tn = strstr(seq, "\"traceName\": \"");
        if (CHECK(tn != NULL) && CHECK((size_t)(tn - seq) + 40 < par_len)) {
            char *name = strstr(tn, "seq.json");
            if (CHECK(name != NULL)) memcpy(par + (name - seq), "seq.json", 8);
        }
        while (k < seq_len && k < par_len && seq[k] == par[k]) k++;
        CHECK_MSG(seq_len == par_len && k == seq_len, "parallel trace differs from the single-thread one at byte %zu (sizes %zu, %zu)", k, seq_len,
                  par_len);
        CHECK(seq_len > (size_t)n * 100);
        {
            /* every event's ids in order, across chunk starts and the
               9999 -> 10000 carries of the in-place counter */
            const char *q = par, *stop = par + par_len;
            long want = 0, bad = 0;
            /* a plain scan: a sanitizer's strstr reads the whole rest of
               the 10 MB text on every call */
            for (;;) {
                while (q + 15 < stop && (*q != '"' || strncmp(q, "\"External id\": ", 15) != 0)) q++;
                if (q + 15 >= stop) break;
                char *end;
                long ext = strtol(q + 15, &end, 10), idx = -1;
                if (strncmp(end, ", \"Ev Idx\": ", 12) == 0) idx = strtol(end + 12, &end, 10);
                if ((ext != want + 1 || idx != want || (*end != ',' && *end != '}')) && bad++ < 3)
                    fprintf(stderr, "event %ld: External id %ld, Ev Idx %ld\n", want, ext, idx);
                want++;
                q = end;
            }
            CHECK_EQ_INT(bad, 0);
            CHECK_EQ_INT(want, n + 35 * 520);
        }
    }
    free(seq);
    free(par);
    rm_tree(STREAM_DIR);
    prof_events_free(ev);
}

/* The common event is written by prof__w_events_fast in one go, every other
   one by prof__w_event's phases: both must give the same bytes, serial and
   parallel. Every event here goes once through each writer (the fast one
   off, then on): names short, long (past the fixed 64-byte head move) and
   too long to escape ahead, hostile bytes; times below 10^8 ns, across
   every digit count up to 10^16 and past it, at and beside multiples of
   10^8 (the cached high digits of ts), negative, past the nesting's
   exact range; touching siblings and children ending with their parent;
   tids of 1 to 20 digits; stacks, shapes, sequence numbers and FLOPs on
   some (sequence numbers one up from event to event on most, shapes and
   a hostile stack together on some, the memo of their
   joined strings with its budget, or too small a budget for all, for
   none); device events and events with a trace name of their own;
   PROF_ARGS_LIGHT too. */
static void test_fast_same_bytes(void) {
    const char *names[] = { "fast a", "fast \"q\" \\ \n\t\x01 \xff \xc3\xa9 \xe2\x82\xac", "", NULL };
    static const char *const frames[] = { "x.py(1): f \"q\"", "y\\z.py(2): g", "main.py(3): <module>" };
    static const uint64_t tids[] = { 1, 42, 4000000, 18446744073709551615ull, 1234567890123ull };
    static const int64_t dims[] = { 2, 3, 4 };
    static const int ndims[] = { 2, 1 };
    char longname[200], hugename[70000];
    prof_events *ev = prof_events_create();
    size_t old_min = prof__par_min_events, old_chunk = prof__par_chunk;
    int64_t base = 0;
    char *text[2][2][2] = { { { NULL } } };
    size_t len[2][2][2];
    int k, r, fast, par, light, bad = 0;
    if (!CHECK(ev != NULL)) return;
    memset(longname, 'L', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    memcpy(longname, "long \"name\" ", 12);
    memset(hugename, 'H', sizeof hugename - 1); /* past PROF__ESC_MAX / 6: escaped per event */
    hugename[sizeof hugename - 1] = 0;
    names[3] = longname;
    for (r = 0; r < 600; r++) {
        /* a root; children that touch (the last two 1 and 0 ns long), one
           with a child that ends with it; every third root touched by the
           next one on its thread */
        static const int64_t bases[] = { 0, 99999, 100000000 - 5000, 999999999, 123456789012, 9999999999999000, 10000000000000000,
                                         -3000000, -((int64_t)1 << 46) - 1000000, ((int64_t)1 << 50) + 7 };
        static const int64_t span[7][2] = { { 0, 1000 }, { 100, 200 }, { 200, 300 }, { 210, 300 }, { 300, 301 }, { 301, 301 }, { 1000, 1500 } };
        prof_event_desc d;
        int c;
        base = bases[r % 10] + (int64_t)(r / 10) * 1000003;
        for (c = 0; c < (r % 3 ? 6 : 7); c++) {
            memset(&d, 0, sizeof d);
            d.name = r == 0 && c == 1 ? hugename : names[(r + c) % 4];
            d.thread = tids[r % 5];
            d.start_ns = base + span[c][0];
            d.end_ns = base + span[c][1];
            if (r % 7 == 3 && c > 0 && c < 4) { d.stack = frames + c - 1; d.stack_depth = 4 - c; }
            if (r % 11 == 5 && c == 1) { d.set |= PROF_EVENT_SHAPES | PROF_EVENT_SEQUENCE_NR; d.input_shapes.n_inputs = 2; d.input_shapes.ndims = ndims; d.input_shapes.dims = dims; d.sequence_nr = r; }
            if ((c == 1 || c == 4) && r % 11 != 5) { d.set |= PROF_EVENT_SEQUENCE_NR; d.sequence_nr = 7 + 2 * r + (c == 4); } /* one up per event (stepped in place), across 9 -> 10 and 99 -> 100 */
            if ((r % 11 == 5 && c == 1) || (r % 5 == 1 && c == 2)) d.flops = 1000 + r;
            if (r % 13 == 6 && c == 2) { d.device_type = PROF_DEVICE_CUDA; d.device_index = 0; }
            if (r % 17 == 8 && c == 1) d.trace_name = "fast trace name";
            CHECK(prof_events_add(ev, &d) >= 0);
        }
    }
    for (k = 0; k < 15; k++) {
        /* roots 1 ns before, at and after multiples of 10^8 ns (the high
           digits of ts kept from event to event must change exactly there) */
        static const int64_t at[] = { 200000000, 300000000, 1000000000, 1100000000, 9999999900000000 };
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = names[k % 4];
        d.thread = 42;
        d.start_ns = at[k / 3] + k % 3 - 1;
        d.end_ns = d.start_ns + 1;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    rm_tree(STREAM_DIR);
    CHECK(mkdir(STREAM_DIR, 0755) == 0);
    for (light = 0; light < 2; light++) {
        prof_export_options o;
        memset(&o, 0, sizeof o);
        o.args = light ? PROF_ARGS_LIGHT : PROF_ARGS_FULL;
        CHECK_EQ_INT(prof_events_set_export_options(ev, &o), PROF_OK);
        for (fast = 0; fast < 2; fast++) {
            for (par = 0; par < 2; par++) {
                prof__memo_bytes = light ? (size_t)(par ? 0 : 600) : PROF__MEMO_BYTES; /* light: a memo that fills, or none */
                prof__trace_fast = fast;
                prof__par_min_events = par ? 0 : (size_t)-1;
                prof__par_chunk = 97; /* chunks that begin at every depth */
                CHECK_EQ_INT(prof_export_chrome_trace(ev, STREAM_DIR "/fast.json"), PROF_OK);
                text[light][fast][par] = check_read_file_n(STREAM_DIR "/fast.json", &len[light][fast][par]);
            }
        }
        for (k = 1; k < 4; k++) {
            const char *a = text[light][0][0], *b = text[light][k >> 1][k & 1];
            size_t la = len[light][0][0], lb = len[light][k >> 1][k & 1], at = 0;
            if (!CHECK(a && b)) continue;
            while (at < la && at < lb && a[at] == b[at]) at++;
            if (at != la || la != lb) {
                bad++;
                fprintf(stderr, "light %d, fast %d, parallel %d: differs at byte %zu: ...%.80s\n  want ...%.80s\n", light, k >> 1, k & 1, at,
                        b + (at > 40 ? at - 40 : 0), a + (at > 40 ? at - 40 : 0));
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(text[0][0][0] && len[0][0][0] > 3800 * 100); /* every event written */
    prof__trace_fast = 1;
    prof__memo_bytes = PROF__MEMO_BYTES;
    prof__par_min_events = old_min;
    prof__par_chunk = old_chunk;
    for (k = 0; k < 8; k++) free(text[k >> 2][(k >> 1) & 1][k & 1]);
    rm_tree(STREAM_DIR);
    prof_events_free(ev);
}

/* ----- check_export.py ------------------------------------------------------ */

static void run_checker(void) {
    int rc;
    int have_python = system("command -v python3 >/dev/null 2>&1") == 0;
    if (!CHECK_MSG(have_python, "python3 not found: tests/export/check_export.py needs it (Debian: apt-get install python3)")) return;
    fflush(stdout);
    fflush(stderr);
    rc = system("python3 tests/export/check_export.py " OUT);
    CHECK_MSG(rc == 0, "python3 tests/export/check_export.py " OUT " failed (status %d): see its FAIL lines above", rc);
}

/* The exporter's number formatting (in-place digits, the µs form of ns,
   the incrementing counter of "Ev Idx") against snprintf: every length
   boundary, the extremes, and a pseudo-random sweep over all magnitudes. */
static void test_numbers(void) {
    char got[64], want[64];
    uint64_t x = 0x9E3779B97F4A7C15ull, v;
    int k, bad = 0, bad_us = 0, bad_dec = 0;
    prof__dec dec;
    for (k = 0; k < 200000; k++) {
        char *end;
        int64_t ns;
        uint64_t m;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        v = x >> (x % 64);
        if (k < 40) { /* 10^j - 1, 10^j, 10^j + 1 */
            uint64_t p = 1;
            int j;
            for (j = 0; j < k / 2; j++) p *= 10;
            v = (k & 1) ? p : p - 1;
        }
        if (k == 40) v = UINT64_MAX;
        if (k == 41) v = 0;
        memset(got, 'x', sizeof got);
        end = prof__put_u64(got, v);
        *end = 0;
        snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        if (strcmp(got, want) != 0 && bad++ < 3) fprintf(stderr, "put_u64: %s, want %s\n", got, want);
        ns = (int64_t)v;
        if (k & 2) ns = -ns;
        end = prof__put_us(got, ns);
        *end = 0;
        m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
        snprintf(want, sizeof want, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(m / 1000), (unsigned long long)(m % 1000));
        if (strcmp(got, want) != 0 && bad_us++ < 3) fprintf(stderr, "put_us: %s, want %s\n", got, want);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(bad_us, 0);
    /* the counter, stepped across 9 -> 10, 99 -> 100, ..., from every start */
    for (k = 0; k < 19; k++) {
        uint64_t p = 1, start;
        int j, step;
        for (j = 0; j < k; j++) p *= 10;
        start = p > 300 ? p - 300 : 0;
        prof__dec_set(&dec, start);
        for (step = 0; step < 600; step++) {
            char *end = prof__dec_put(got, &dec);
            *end = 0;
            snprintf(want, sizeof want, "%llu", (unsigned long long)(start + (uint64_t)step));
            if ((strcmp(got, want) != 0 || dec.v != start + (uint64_t)step) && bad_dec++ < 3) fprintf(stderr, "dec: %s, want %s\n", got, want);
            prof__dec_inc(&dec);
        }
    }
    CHECK_EQ_INT(bad_dec, 0);
}

int main(void) {
    prof_set_log(check_log, NULL);
    read_comm();
    make_names();
    CHECK(mkdir("build", 0755) == 0 || errno == EEXIST);
    rm_tree(OUT);
    CHECK(mkdir(OUT, 0755) == 0);

#define PHASE(call) do { int64_t t0_ = clock_ns(CLOCK_MONOTONIC); call; \
        if (getenv("TEST_EXPORT_TIMES")) fprintf(stderr, "%-28s %8.3f s\n", #call, (double)(clock_ns(CLOCK_MONOTONIC) - t0_) / 1e9); } while (0)
    PHASE(test_numbers());
    PHASE(test_hand());
    PHASE(test_hand_nesting());
    PHASE(test_device_thread_unnamed());
    PHASE(test_js());
    PHASE(test_recorded());
    PHASE(test_errors());
    PHASE(test_paths());
    PHASE(test_unwritable_dir());
    PHASE(test_streaming());
    PHASE(test_parallel_same_bytes());
    PHASE(test_touch_parts_same_bytes());
    PHASE(test_guess_same_bytes());
    PHASE(test_fast_same_bytes());
    PHASE(test_deep_nesting());
    rm_tree(ERR_DIR); /* only the checked outputs stay in build/export */
    PHASE(run_checker());

    free_names();
    prof_shutdown();
    return check_report();
}
