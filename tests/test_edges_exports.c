/* Exports at their edges, each file read back byte by byte:
   - the JSON trace escapes DEL (0x7f) as \u007f wherever a string goes,
     the "Call stack" of an event's stack included (its frames go through
     a per-address cache of "needs escaping"; the name beside it takes
     another path): no raw 0x7f byte is in the file;
   - Perfetto: the interned SourceLocation of an event with a file,
     function and line carries all three (line_number 42);
   - pprof: each Function has its system_name (the name's string index;
     pprof prints it where a name is missing); a frame "name (file:line)"
     is split into function "name", file and line, while a frame whose
     parentheses hold no line digits ("root (a.c:)") is no such frame:
     the whole text is the function's name, with no file and line 0.
   The protobuf files are read with check.h's small decoder (no protoc
   needed); protoc, when installed, must also decode the Perfetto trace. */
#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof.h"
#include "check.h"

static char g_dir[] = "/tmp/prof_edges_exports_XXXXXX";

/* ----- JSON: DEL in a stack frame ----- */
static void json_del_in_frame(void) {
    static const char *const stk[] = { "inner\x7f (a.c:1)", "outer (a.c:)" };
    prof_events *e = prof_events_create();
    prof_event_desc d;
    char path[256];
    char *text;
    size_t len = 0;
    memset(&d, 0, sizeof d);
    d.thread = 1;
    d.name = "del\x7fname"; d.start_ns = 0; d.end_ns = 128000; d.stack = stk; d.stack_depth = 2;
    CHECK(prof_events_add(e, &d) >= 0);
    d.name = "plain"; d.start_ns = 200000; d.end_ns = 328000;
    CHECK(prof_events_add(e, &d) >= 0);
    snprintf(path, sizeof path, "%s/del.json", g_dir);
    CHECK_EQ_INT(prof_export_chrome_trace(e, path), PROF_OK);
    text = check_read_file_n(path, &len);
    if (CHECK(text != NULL)) {
        const char *a = strstr(text, "\"name\": \"del\\u007fname\""), *b = strstr(text, "\"name\": \"plain\"");
        const char *want = "\"Call stack\": \"inner\\u007f (a.c:1);outer (a.c:);\"";
        CHECK_EQ_INT(strlen(text), len);
        CHECK(memchr(text, 0x7f, len) == NULL);
        CHECK(a != NULL && b != NULL);
        if (a && b) {
            const char *sa = strstr(a, want), *sb = strstr(b, want);
            CHECK(sa != NULL && sa < b); /* the first event's line */
            CHECK(sb != NULL);
            CHECK(strchr(a, '\n') > sa);
        }
        CHECK(prof_json_valid(text));
    }
    free(text);
    unlink(path);
    prof_events_free(e);
}

/* ----- Perfetto: a SourceLocation's line ----- */
static int g_srcloc_found;
static void pft_walk(check_pb b, int depth) {
    unsigned f;
    int wt;
    uint64_t v;
    check_pb s;
    while (check_pb_next(&b, &f, &wt, &v, &s)) {
        if (wt != 2) continue;
        if (depth == 0 && f == 1) pft_walk(s, 1);           /* Trace.packet */
        else if (depth == 1 && f == 12) pft_walk(s, 2);     /* TracePacket.interned_data */
        else if (depth == 2 && f == 4) {                    /* InternedData.source_locations */
            check_pb x = s;
            unsigned g;
            int w;
            uint64_t u, iid = 0, line = 0;
            int file_ok = 0, fn_ok = 0, has_line = 0;
            check_pb t;
            while (check_pb_next(&x, &g, &w, &u, &t)) {
                if (g == 1 && w == 0) iid = u;
                else if (g == 2 && w == 2) file_ok = check_pb_is(&t, "a.c");
                else if (g == 3 && w == 2) fn_ok = check_pb_is(&t, "fn");
                else if (g == 4 && w == 0) { line = u; has_line = 1; }
            }
            if (!file_ok) continue;
            g_srcloc_found++;
            CHECK(iid > 0);
            CHECK(fn_ok);
            CHECK(has_line);
            CHECK_EQ_INT(line, 42);
        }
    }
}
static void perfetto_line(void) {
    prof_events *e = prof_events_create();
    prof_event_desc d;
    char path[256], cmd[600];
    char *buf;
    size_t len = 0;
    memset(&d, 0, sizeof d);
    d.thread = 1; d.name = "op"; d.start_ns = 0; d.end_ns = 1000; d.file = "a.c"; d.func = "fn"; d.line = 42;
    CHECK(prof_events_add(e, &d) >= 0);
    snprintf(path, sizeof path, "%s/line.pftrace", g_dir);
    CHECK_EQ_INT(prof_export_perfetto(e, path), PROF_OK);
    buf = check_read_file_n(path, &len);
    if (CHECK(buf != NULL)) {
        check_pb b;
        b.p = (const unsigned char *)buf;
        b.end = b.p + len;
        g_srcloc_found = 0;
        check_pb_bad = 0;
        pft_walk(b, 0);
        CHECK_EQ_INT(check_pb_bad, 0);
        CHECK_EQ_INT(g_srcloc_found, 1);
    }
    free(buf);
    if (system("protoc --version >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd, "protoc --proto_path=tests/export/proto --decode=perfetto.protos.Trace perfetto_trace.proto < %s > /dev/null", path);
        CHECK_MSG(system(cmd) == 0, "%s", cmd);
    } else {
        printf("test_edges_exports: protoc missing: the Perfetto trace is only read here\n");
    }
    unlink(path);
    prof_events_free(e);
}

/* ----- pprof: functions and lines ----- */
#define MAXS 64
typedef struct pp_fn { uint64_t id; int64_t name, sys, file, start; int has_sys; } pp_fn;
typedef struct pp_loc { uint64_t id, fid; int64_t line; int nlines; } pp_loc;
typedef struct pp { check_pb str[MAXS]; size_t nstr; pp_fn fn[MAXS]; size_t nfn; pp_loc loc[MAXS]; size_t nloc; } pp;
static void pp_read(pp *p, const char *path, char **keep) {
    size_t len = 0;
    check_pb b, s;
    unsigned f;
    int wt;
    uint64_t v;
    memset(p, 0, sizeof *p);
    *keep = check_read_file_n(path, &len);
    if (!CHECK(*keep != NULL)) return;
    b.p = (const unsigned char *)*keep;
    b.end = b.p + len;
    while (check_pb_next(&b, &f, &wt, &v, &s)) {
        check_pb x = s, t;
        unsigned g;
        int w;
        uint64_t u;
        if (wt != 2) continue;
        if (f == 6 && CHECK(p->nstr < MAXS)) p->str[p->nstr++] = s;
        else if (f == 5 && CHECK(p->nfn < MAXS)) {
            pp_fn *fn = &p->fn[p->nfn++];
            while (check_pb_next(&x, &g, &w, &u, &t)) {
                if (w != 0) continue;
                if (g == 1) fn->id = u;
                else if (g == 2) fn->name = (int64_t)u;
                else if (g == 3) { fn->sys = (int64_t)u; fn->has_sys = 1; }
                else if (g == 4) fn->file = (int64_t)u;
                else if (g == 5) fn->start = (int64_t)u;
            }
        } else if (f == 4 && CHECK(p->nloc < MAXS)) {
            pp_loc *l = &p->loc[p->nloc++];
            while (check_pb_next(&x, &g, &w, &u, &t)) {
                if (g == 1 && w == 0) l->id = u;
                else if (g == 4 && w == 2) { /* Line */
                    check_pb y = t, z;
                    unsigned h;
                    int ww;
                    uint64_t q;
                    l->nlines++;
                    while (check_pb_next(&y, &h, &ww, &q, &z)) {
                        if (h == 1 && ww == 0) l->fid = q;
                        else if (h == 2 && ww == 0) l->line = (int64_t)q;
                    }
                }
            }
        }
    }
}
static int pp_str_is(const pp *p, int64_t i, const char *text) {
    return i >= 0 && (size_t)i < p->nstr && check_pb_is(&p->str[i], text);
}
static const pp_fn *pp_fn_named(const pp *p, const char *name) {
    size_t i;
    for (i = 0; i < p->nfn; i++) if (pp_str_is(p, p->fn[i].name, name)) return &p->fn[i];
    return NULL;
}
static const pp_loc *pp_loc_of(const pp *p, uint64_t fid) {
    size_t i;
    for (i = 0; i < p->nloc; i++) if (p->loc[i].fid == fid) return &p->loc[i];
    return NULL;
}
static void pprof_functions(void) {
    static const char *const s1[] = { "leaf (a.c:1)", "root (a.c:)" };
    prof_events *e = prof_events_create();
    prof_event_desc d;
    char path[256];
    char *keep = NULL;
    pp *p = (pp *)calloc(1, sizeof *p);
    const pp_fn *leaf, *root;
    if (!CHECK(p != NULL)) return;
    memset(&d, 0, sizeof d);
    d.thread = 1;
    d.name = "leaf"; d.start_ns = 0; d.end_ns = 5000; d.stack = s1; d.stack_depth = 2;
    CHECK(prof_events_add(e, &d) >= 0);
    snprintf(path, sizeof path, "%s/fn.check_pb", g_dir);
    CHECK_EQ_INT(prof_export_pprof(e, path, "self_cpu_time_total"), PROF_OK);
    check_pb_bad = 0;
    pp_read(p, path, &keep);
    CHECK_EQ_INT(check_pb_bad, 0);
    CHECK(p->nstr > 0 && pp_str_is(p, 0, ""));
    CHECK_EQ_INT(p->nfn, 2);
    CHECK_EQ_INT(p->nloc, 2);
    leaf = pp_fn_named(p, "leaf");
    root = pp_fn_named(p, "root (a.c:)");
    CHECK(pp_fn_named(p, "root") == NULL);
    if (CHECK(leaf != NULL)) {
        const pp_loc *l = pp_loc_of(p, leaf->id);
        CHECK(leaf->id > 0);
        CHECK(leaf->has_sys);
        CHECK_EQ_INT(leaf->sys, leaf->name);
        CHECK(pp_str_is(p, leaf->file, "a.c"));
        if (CHECK(l != NULL)) {
            CHECK_EQ_INT(l->nlines, 1);
            CHECK_EQ_INT(l->line, 1);
        }
    }
    if (CHECK(root != NULL)) {
        const pp_loc *l = pp_loc_of(p, root->id);
        CHECK(root->id > 0);
        CHECK(root->has_sys);
        CHECK_EQ_INT(root->sys, root->name);
        CHECK_EQ_INT(root->file, 0); /* "" */
        if (CHECK(l != NULL)) {
            CHECK_EQ_INT(l->nlines, 1);
            CHECK_EQ_INT(l->line, 0);
        }
    }
    free(keep);
    free(p);
    unlink(path);
    prof_events_free(e);
}

int main(void) {
    prof_set_log(check_log, NULL);
    if (!CHECK(mkdtemp(g_dir) != NULL)) return check_report();
    json_del_in_frame();
    perfetto_line();
    pprof_functions();
    CHECK_EQ_INT(check_count_tmp(g_dir), 0);
    rmdir(g_dir);
    return check_report();
}
