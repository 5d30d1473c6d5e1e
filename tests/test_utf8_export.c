/* Invalid UTF-8 in every string an exporter writes reads as a standard
   decoder reads the raw bytes: Python's bytes.decode("utf-8", "replace"),
   the WHATWG TextDecoder of DevTools, Perfetto UI and speedscope. Each
   maximal invalid subpart is one U+FFFD: "\xe2\x82" cut short before ASCII
   or at the end is one, "\xed\xa0\x80" (a surrogate) three, "\xc0\xaf"
   two. Names, overload names, stack entries, source files and functions,
   metadata keys and values: crafted byte strings and random ones, through
   the JSON trace, Perfetto, folded stacks and pprof, each checked by
   tests/export/check_utf8.py against the raw bytes it reads from
   OUT/raw.txt.

   Files go to build/utf8_export/ (cwd = repo root). */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define OUT "build/utf8_export"

static int have_tools(void) {
    return system("python3 -c 'import sys' >/dev/null 2>&1") == 0 && system("protoc --version >/dev/null 2>&1") == 0;
}

/* Bodies put between "[" and "]" so a checker finds each one whole (no
   U+FFFD of a neighbour counted in or out). */
static const char *const CRAFTED[] = {
    "cut 3 \xe2\x82" "A", "cut 4 \xf0\x9f\x98" "B", "cut 4/2 \xf0\x9f" "C", "cut 2 \xc3" "D",
    "end 3 \xe2\x82", "end 4 \xf0\x9f\x98", "end 4/2 \xf0\x9f", "end 2 \xc3", "\xf4\x8f\xbf",
    "lone \x80 \xbf\xbf \x80\x80\x80",
    "never \xc0 \xc1 \xf5 \xf6 \xf7 \xf8 \xfb \xfc \xfd \xfe \xff",
    "overlong \xc0\xaf \xc1\xbf \xe0\x80\xaf \xe0\x9f\xbf \xf0\x80\x80\xaf \xf0\x8f\xbf\xbf",
    "surrogate \xed\xa0\x80 \xed\xbf\xbf \xed\xa0 \xed\x9f\xbf ok",
    "past max \xf4\x90\x80\x80 \xf4\x90 \xf5\x80\x80\x80",
    "cut then cont \xe2\x82\xe2\x82\xac \xf0\x9f\x98\xf0\x9f\x98\x80",
    "lead then lead \xe2\xe2\x82\xac \xc3\xc3\xa9 \xf1\xf1\x80\x80\x80",
    "valid caf\xc3\xa9 \xe2\x9c\x93 \xe6\x97\xa5 \xf0\x9f\x98\x80 \xef\xbf\xbd \xc2\x80 \xef\xbf\xbf \xf4\x8f\xbf\xbf",
    "\xe1\x80", "\xee\x80", "\xf1\x80\x80", "\xf3\xbf\xbf", "\xe0\xa0", "\xf0\x90", "\xf0\x90\x80",
};
#define N_CRAFTED (sizeof CRAFTED / sizeof CRAFTED[0])
#define N_RANDOM 300
#define N_ALL (N_CRAFTED + N_RANDOM)

static uint32_t g_rng = 0x12345u;
static uint32_t rnd(uint32_t n) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng % n;
}

/* A random body: ASCII letters, valid 2/3/4-byte characters whole or cut
   short, and bytes 0x80..0xFF alone (no NUL, no '[' or ']'). */
static void random_body(char *out, size_t cap) {
    static const char *const valid[] = { "\xc3\xa9", "\xdf\xbf", "\xe2\x82\xac", "\xed\x9f\xbf", "\xee\x80\x80",
                                         "\xe0\xa0\x80", "\xf0\x9f\x98\x80", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
                                         "\xf3\xbf\xbf\xbf", "\xed\xa0\x80", "\xe0\x80\xaf", "\xf4\x90\x80\x80" };
    size_t n = 0, parts = 1 + rnd(12), k;
    for (k = 0; k < parts && n + 8 < cap; k++) {
        uint32_t what = rnd(4);
        if (what == 0) out[n++] = (char)('a' + rnd(26));
        else if (what == 1) out[n++] = (char)(0x80 + rnd(0x80));
        else {
            const char *v = valid[rnd(sizeof valid / sizeof valid[0])];
            size_t len = strlen(v), cut = what == 2 ? len : 1 + rnd((uint32_t)len);
            memcpy(out + n, v, cut);
            n += cut;
        }
    }
    out[n] = 0;
}

static void run_checker(const char *args) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "python3 tests/export/check_utf8.py " OUT " %s", args);
    fflush(stdout);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
}

static void test_every_format(void) {
    static char bodies[N_ALL][64], names[N_ALL][96], files[N_ALL][96], funcs[N_ALL][96], ovl[N_ALL][96];
    prof_events *ev = prof_events_create();
    FILE *raw;
    size_t i, b;
    if (!CHECK(ev != NULL)) return;
    for (i = 0; i < N_ALL; i++) {
        if (i < N_CRAFTED) snprintf(bodies[i], sizeof bodies[i], "%.63s", CRAFTED[i]);
        else random_body(bodies[i], sizeof bodies[i]);
        snprintf(names[i], sizeof names[i], "n%u[%.63s]", (unsigned)i, bodies[i]);
        snprintf(files[i], sizeof files[i], "f%u[%.63s].c", (unsigned)i, bodies[i]);
        snprintf(funcs[i], sizeof funcs[i], "fn%u[%.63s]", (unsigned)i, bodies[i]);
        snprintf(ovl[i], sizeof ovl[i], "o%u[%.63s]", (unsigned)i, bodies[i]);
    }
    if (!CHECK((raw = fopen(OUT "/raw.txt", "w")) != NULL)) { prof_events_free(ev); return; }
    /* one line a string: its kind and its bytes in hex */
    for (i = 0; i < N_ALL; i++) {
        const char *kinds[] = { "name", "file", "func", "overload" };
        const char *strs[4];
        int k;
        strs[0] = names[i]; strs[1] = files[i]; strs[2] = funcs[i]; strs[3] = ovl[i];
        for (k = 0; k < 4; k++) {
            fprintf(raw, "%s ", kinds[k]);
            for (b = 0; strs[k][b]; b++) fprintf(raw, "%02x", (unsigned char)strs[k][b]);
            fprintf(raw, "\n");
        }
    }
    for (i = 0; i < N_ALL; i += 7) {
        char key[96];
        snprintf(key, sizeof key, "k%u[%.63s]", (unsigned)i, bodies[i]);
        CHECK_EQ_INT(prof_events_add_metadata(ev, key, names[i]), PROF_OK);
        fprintf(raw, "metakey ");
        for (b = 0; key[b]; b++) fprintf(raw, "%02x", (unsigned char)key[b]);
        fprintf(raw, "\n");
    }
    fclose(raw);
    prof_events_set_flags(ev, 0, 0);
    for (i = 0; i < N_ALL; i++) {
        prof_event_desc d;
        const char *stack[2];
        memset(&d, 0, sizeof d);
        stack[0] = funcs[i];
        stack[1] = funcs[(i + 1) % N_ALL];
        d.name = names[i];
        d.overload_name = ovl[i];
        d.thread = 1 + i % 3;
        d.start_ns = 1000000 + (int64_t)i * 10000;
        d.end_ns = d.start_ns + 5000;
        d.stack = stack;
        d.stack_depth = 2;
        d.file = files[i];
        d.func = funcs[i];
        d.line = (int)i + 1;
        d.sequence_nr = -1;
        d.node_id = -1;
        d.device_resource_id = (int64_t)d.thread;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/t.json"), PROF_OK);
    CHECK_EQ_INT(prof_export_perfetto(ev, OUT "/t.pftrace"), PROF_OK);
    CHECK_EQ_INT(prof_export_stacks(ev, OUT "/t.stacks", NULL), PROF_OK);
    CHECK_EQ_INT(prof_export_pprof(ev, OUT "/t.pb", NULL), PROF_OK);
    prof_events_free(ev);
    run_checker("t");
}

int main(void) {
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    if (have_tools()) test_every_format();
    else printf("test_utf8_export: python3 or protoc missing: skipped\n");
    prof_shutdown();
    return check_report();
}
