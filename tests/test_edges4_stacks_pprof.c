/* The folded stacks and the pprof profile at their edges (hand-built
   lists; the profile read back field by field with check_pb_*, field
   numbers from profile.proto):
   - a frame holding U+009F, the last C1 control, is written with '_' (as
     U+0080 is), and so is Unicode's other white space, which flamegraph.pl
     (reading UTF-8: Perl's \s) splits a line at: U+00A0 before digits,
     "layer\u00a012 5000", was read as a differential line (the pprof probe);
     the character past each range (U+00A1, U+200B, U+2030) is kept;
   - "self_xpu_time_total" is a metric of the stack exporters and of pprof
     (as PyTorch's export_stacks takes it), the device's self time;
   - the profile's period (field 12) is 1;
   - two frames of one function name in two files are two functions,
     each with its own file (a function is a name and a file);
   - the sample type is "cpu" for the CPU metric and "device" for the
     device's, in "nanoseconds";
   - the device metric on a list with no device time: each exporter says so.
   Found by mutation testing (fourth pass): each of these, changed alone,
   left every other test passing. */
#include "prof.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define STACKS "build/test_edges4_stacks_pprof.stacks"
#define STACKS2 "build/test_edges4_stacks_pprof.2.stacks"
#define PPROF "build/test_edges4_stacks_pprof.pb"

/* ----- a profile, decoded ----- */
#define MAXN 32
typedef struct profile {
    char str[MAXN][64];
    int nstr;
    int64_t st_type, st_unit, pt_type, pt_unit, period;
    int nsample;
    int64_t fn_id[MAXN], fn_name[MAXN], fn_file[MAXN];
    int nfn;
    int64_t loc_id[MAXN], loc_fn[MAXN], loc_line[MAXN], loc_addr[MAXN];
    int nloc;
} profile;

static void value_type(check_pb sub, int64_t *type, int64_t *unit) {
    unsigned f; int wt; uint64_t v; check_pb s;
    while (check_pb_next(&sub, &f, &wt, &v, &s)) {
        if (f == 1 && wt == 0) *type = (int64_t)v;
        if (f == 2 && wt == 0) *unit = (int64_t)v;
    }
}
static int read_profile(const char *path, profile *p) {
    size_t len = 0;
    char *data = check_read_file_n(path, &len);
    check_pb b, sub;
    unsigned f; int wt; uint64_t v;
    int bad = check_pb_bad;
    memset(p, 0, sizeof *p);
    p->st_type = p->st_unit = p->pt_type = p->pt_unit = p->period = -1;
    if (!CHECK(data != NULL)) return 0;
    b.p = (const unsigned char *)data;
    b.end = b.p + len;
    while (check_pb_next(&b, &f, &wt, &v, &sub)) {
        if (f == 6 && wt == 2 && p->nstr < MAXN) {
            size_t k = (size_t)(sub.end - sub.p);
            if (k > 63) k = 63;
            memcpy(p->str[p->nstr], sub.p, k);
            p->str[p->nstr++][k] = 0;
        } else if (f == 1 && wt == 2) value_type(sub, &p->st_type, &p->st_unit);
        else if (f == 11 && wt == 2) value_type(sub, &p->pt_type, &p->pt_unit);
        else if (f == 12 && wt == 0) p->period = (int64_t)v;
        else if (f == 2 && wt == 2) p->nsample++;
        else if (f == 5 && wt == 2 && p->nfn < MAXN) { /* Function */
            unsigned g; int w2; uint64_t x; check_pb s2;
            int i = p->nfn++;
            while (check_pb_next(&sub, &g, &w2, &x, &s2)) {
                if (g == 1 && w2 == 0) p->fn_id[i] = (int64_t)x;
                if (g == 2 && w2 == 0) p->fn_name[i] = (int64_t)x;
                if (g == 4 && w2 == 0) p->fn_file[i] = (int64_t)x;
            }
        } else if (f == 4 && wt == 2 && p->nloc < MAXN) { /* Location, one Line */
            unsigned g; int w2; uint64_t x; check_pb s2;
            int i = p->nloc++;
            while (check_pb_next(&sub, &g, &w2, &x, &s2)) {
                if (g == 3 && w2 == 0) p->loc_addr[i] = (int64_t)x;
                if (g == 1 && w2 == 0) p->loc_id[i] = (int64_t)x;
                if (g == 4 && w2 == 2) {
                    unsigned h; int w3; uint64_t y; check_pb s3;
                    while (check_pb_next(&s2, &h, &w3, &y, &s3)) {
                        if (h == 1 && w3 == 0) p->loc_fn[i] = (int64_t)y;
                        if (h == 2 && w3 == 0) p->loc_line[i] = (int64_t)y;
                    }
                }
            }
        }
    }
    free(data);
    return CHECK_EQ_INT(check_pb_bad, bad) && CHECK(b.p == b.end);
}
static const char *pstr(const profile *p, int64_t i) { return i >= 0 && i < p->nstr ? p->str[i] : "(out of the table)"; }
/* The "name file" of the function of the location whose line is line. */
static void loc_fn_of_line(const profile *p, int64_t line, char *out, size_t n) {
    int i, k;
    snprintf(out, n, "(no location)");
    for (i = 0; i < p->nloc; i++) {
        if (p->loc_line[i] != line) continue;
        snprintf(out, n, "(no function)");
        for (k = 0; k < p->nfn; k++)
            if (p->fn_id[k] == p->loc_fn[i]) snprintf(out, n, "%s %s", pstr(p, p->fn_name[k]), pstr(p, p->fn_file[k]));
    }
}

static prof_events *one_event(const char *frame) {
    prof_events *e = prof_events_create();
    prof_event_desc d;
    const char *st[1];
    st[0] = frame;
    if (!CHECK(e != NULL)) return NULL;
    memset(&d, 0, sizeof d);
    d.thread = 1; d.name = "x"; d.start_ns = 0; d.end_ns = 5000; d.stack = st; d.stack_depth = 1;
    CHECK(prof_events_add(e, &d) >= 0);
    return e;
}

/* frames with U+0080, U+009F (both controls: '_'), Unicode white space
   ('_': U+00A0, U+1680, U+2000, U+200A, U+202F, U+205F, U+3000) and the
   characters next to it (kept: U+00A1, U+200B, U+2030) */
static void c1_controls(void) {
    prof_events *e = one_event("a\xC2\x80" "b\xC2\x9F" "c\xC2\xA0" "12" "\xE1\x9A\x80" "\xE2\x80\x80" "\xE2\x80\x8A"
                               "\xE2\x80\xAF" "\xE2\x81\x9F" "\xE3\x80\x80" "|\xC2\xA1" "\xE2\x80\x8B" "\xE2\x80\xB0" "d");
    char *t;
    if (!e) return;
    if (CHECK_EQ_INT(prof_export_stacks(e, STACKS, NULL), PROF_OK) && CHECK((t = check_read_file(STACKS)) != NULL)) {
        CHECK_EQ_STR(t, "a_b_c_12______|\xC2\xA1" "\xE2\x80\x8B" "\xE2\x80\xB0" "d 5\n");
        free(t);
    }
    prof_events_free(e);
}

/* "self_xpu_time_total": accepted, and the same as the device's self time */
static void xpu_metric(void) {
    static const char *const st[1] = { "f" };
    prof_events *e = prof_events_create();
    prof_event_desc d;
    char *a, *b;
    profile p;
    if (!CHECK(e != NULL)) return;
    memset(&d, 0, sizeof d);
    d.thread = 1; d.name = "k"; d.start_ns = 0; d.end_ns = 7000; d.stack = st; d.stack_depth = 1;
    d.device_type = PROF_DEVICE_CUDA; d.device_index = 0;
    CHECK(prof_events_add(e, &d) >= 0);
    unlink(STACKS);
    CHECK_EQ_INT(prof_export_stacks(e, STACKS, "self_xpu_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks(e, STACKS2, "self_device_time_total"), PROF_OK);
    a = check_read_file(STACKS);
    b = check_read_file(STACKS2);
    if (CHECK(a != NULL && b != NULL)) CHECK_EQ_STR(a, b);
    free(a);
    free(b);
    CHECK_EQ_INT(prof_export_stacks_merged(e, STACKS, "self_xpu_time_total"), PROF_OK);
    if (CHECK_EQ_INT(prof_export_pprof(e, PPROF, "self_xpu_time_total"), PROF_OK) && read_profile(PPROF, &p))
        CHECK_EQ_STR(pstr(&p, p.st_type), "device");
    CHECK_EQ_INT(prof_export_stacks(e, STACKS, "self_nothing_time_total"), PROF_E_UNKNOWN_KEY);
    prof_events_free(e);
}

/* f in a.c and f in b.c under main: three functions; period 1; "cpu"/"device" */
static void pprof_functions(void) {
    static const char *const s1[] = { "f (/src/proj/a.c:1)", "main (/src/proj/m.c:9)" };
    static const char *const s2[] = { "f (/src/proj/b.c:2)", "main (/src/proj/m.c:9)" };
    prof_events *e = prof_events_create();
    prof_event_desc d;
    profile p;
    char fn[160];
    if (!CHECK(e != NULL)) return;
    memset(&d, 0, sizeof d);
    d.thread = 1; d.name = "x";
    d.start_ns = 1000; d.end_ns = 5000; d.stack = s1; d.stack_depth = 2;
    CHECK(prof_events_add(e, &d) >= 0);
    d.start_ns = 6000; d.end_ns = 9000; d.stack = s2; d.stack_depth = 2;
    CHECK(prof_events_add(e, &d) >= 0);
    if (CHECK_EQ_INT(prof_export_pprof(e, PPROF, "self_cpu_time_total"), PROF_OK) && read_profile(PPROF, &p)) {
        CHECK_EQ_STR(pstr(&p, 0), "");
        CHECK_EQ_STR(pstr(&p, p.st_type), "cpu");
        CHECK_EQ_STR(pstr(&p, p.st_unit), "nanoseconds");
        CHECK_EQ_STR(pstr(&p, p.pt_type), "cpu");
        CHECK_EQ_STR(pstr(&p, p.pt_unit), "nanoseconds");
        CHECK_EQ_INT(p.period, 1);
        CHECK_EQ_INT(p.nsample, 2);
        CHECK_EQ_INT(p.nloc, 3);
        CHECK_EQ_INT(p.nfn, 3);
        loc_fn_of_line(&p, 1, fn, sizeof fn);
        CHECK_EQ_STR(fn, "f /src/proj/a.c");
        loc_fn_of_line(&p, 2, fn, sizeof fn);
        CHECK_EQ_STR(fn, "f /src/proj/b.c");
        loc_fn_of_line(&p, 9, fn, sizeof fn);
        CHECK_EQ_STR(fn, "main /src/proj/m.c");
    }
    if (CHECK_EQ_INT(prof_export_pprof(e, PPROF, "self_device_time_total"), PROF_OK) && read_profile(PPROF, &p)) {
        CHECK_EQ_STR(pstr(&p, p.st_type), "device");
        CHECK_EQ_STR(pstr(&p, p.st_unit), "nanoseconds");
        CHECK_EQ_STR(pstr(&p, p.pt_type), "device");
        CHECK_EQ_INT(p.period, 1);
    }
    prof_events_free(e);
}

/* Native frames, "function (module+0xoffset)": a function's return
   addresses are locations of one Function (name and module), each with
   its offset as the address; an unnamed function ("??") stays whole. Each
   frame was a function of its own: go tool pprof -top listed main three
   times (the pprof probe). */
static void pprof_native(void) {
    static const char *const s1[] = { "leaf (app+0x3f150)", "main (app+0x475a)", "_start (app+0x47d1)" };
    static const char *const s2[] = { "leaf (app+0x3f150)", "main (app+0x475f)", "_start (app+0x47d1)" };
    static const char *const s3[] = { "?? (libc.so.6+0x2724a)", "_start (app+0x47d1)" };
    static const char *const s4[] = { "plug_work (libplug (1).so+0x125e)", "_start (app+0x47d1)" }; /* a module's name with " (" */
    static const char *const *const st[] = { s1, s2, s3, s4 };
    static const int depth[] = { 3, 3, 2, 2 };
    prof_events *e = prof_events_create();
    prof_event_desc d;
    profile p;
    int k, i, main_fn = 0, mains = 0, unnamed = 0, plug = 0;
    if (!CHECK(e != NULL)) return;
    memset(&d, 0, sizeof d);
    d.thread = 1; d.name = "x";
    for (k = 0; k < 4; k++) {
        d.start_ns = 10000 * k; d.end_ns = 10000 * k + 5000; d.stack = st[k]; d.stack_depth = depth[k];
        CHECK(prof_events_add(e, &d) >= 0);
    }
    if (CHECK_EQ_INT(prof_export_pprof(e, PPROF, NULL), PROF_OK) && read_profile(PPROF, &p)) {
        CHECK_EQ_INT(p.nloc, 6);
        CHECK_EQ_INT(p.nfn, 5); /* leaf, main, _start, "?? (libc.so.6+0x2724a)", plug_work */
        for (i = 0; i < p.nfn; i++) {
            if (strcmp(pstr(&p, p.fn_name[i]), "main") == 0) { main_fn = (int)p.fn_id[i]; CHECK_EQ_STR(pstr(&p, p.fn_file[i]), "app"); }
            if (strcmp(pstr(&p, p.fn_name[i]), "?? (libc.so.6+0x2724a)") == 0) { unnamed++; CHECK_EQ_STR(pstr(&p, p.fn_file[i]), ""); }
            if (strcmp(pstr(&p, p.fn_name[i]), "plug_work") == 0) { plug++; CHECK_EQ_STR(pstr(&p, p.fn_file[i]), "libplug (1).so"); }
        }
        CHECK(main_fn > 0);
        CHECK_EQ_INT(unnamed, 1);
        CHECK_EQ_INT(plug, 1);
        for (i = 0; i < p.nloc; i++) {
            if (p.loc_fn[i] != main_fn) continue;
            mains++;
            CHECK(p.loc_addr[i] == 0x475a || p.loc_addr[i] == 0x475f);
        }
        CHECK_EQ_INT(mains, 2);
    }
    prof_events_free(e);
}

/* The device metric on a list with no device time (no device set): each
   exporter says so; the stacks ones said "every stack's self device time
   is under 1 us" and pprof nothing (the pprof probe). */
static void no_device_time(void) {
    prof_events *e = one_event("f");
    if (!e) return;
    check_log_reset();
    CHECK_EQ_INT(prof_export_stacks(e, STACKS, "self_device_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks_merged(e, STACKS, "self_device_time_total"), PROF_OK);
    CHECK_EQ_INT(prof_export_pprof(e, PPROF, "self_device_time_total"), PROF_OK);
    CHECK_EQ_INT(check_log_find(PROF_E_ARG, "has no device time", NULL), 3);
    CHECK(!check_log_has(PROF_E_ARG, "under 1 us"));
    prof_events_free(e);
    /* ... where a stack's self time under 1 us is what empties the file */
    if ((e = prof_events_create()) != NULL) {
        prof_event_desc d;
        const char *st[1] = { "short" };
        memset(&d, 0, sizeof d);
        d.thread = 1; d.name = "x"; d.start_ns = 0; d.end_ns = 500; d.stack = st; d.stack_depth = 1;
        CHECK(prof_events_add(e, &d) >= 0);
        check_log_reset();
        CHECK_EQ_INT(prof_export_stacks(e, STACKS, NULL), PROF_OK);
        CHECK(check_log_has(PROF_E_ARG, "under 1 us"));
        CHECK(!check_log_has(PROF_E_ARG, "has no device time"));
        prof_events_free(e);
    }
}

/* The shortest frame that splits into a function and a line: " (:1)"
   (5 bytes) is function "" of file "" at line 1, as " (:12)" is at 12;
   a bound one byte longer kept it whole, as a function named " (:1)"
   (a seeded mutation the suite missed). */
static void pprof_shortest_split(void) {
    static const char *const frames[] = { " (:1)", " (:12)" };
    static const int64_t lines[] = { 1, 12 };
    int k;
    for (k = 0; k < 2; k++) {
        prof_events *e = one_event(frames[k]);
        profile p;
        char fn[160];
        if (!e) return;
        if (CHECK_EQ_INT(prof_export_pprof(e, PPROF, "self_cpu_time_total"), PROF_OK) && read_profile(PPROF, &p)) {
            CHECK_EQ_INT(p.nloc, 1);
            loc_fn_of_line(&p, lines[k], fn, sizeof fn);
            CHECK_MSG(strcmp(fn, " ") == 0, "frame \"%s\": the location of line %lld is %s (wanted function \"\" of file \"\")", frames[k],
                      (long long)lines[k], fn);
        }
        prof_events_free(e);
    }
}

int main(void) {
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    c1_controls();
    xpu_metric();
    pprof_functions();
    pprof_native();
    no_device_time();
    pprof_shortest_split();
    unlink(STACKS);
    unlink(STACKS2);
    unlink(PPROF);
    return check_report();
}
