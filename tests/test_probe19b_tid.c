/* Threads of a hand-built list (prof_event_desc.thread is a uint64_t) must
   stay apart in the JSON trace for the readers the README names:

   - Perfetto's JSON importer (ui.perfetto.dev, trace_processor) reads
     "tid" with json::CoerceToUint32, which gives nullopt past 2^32 - 1,
     and then uses tid = pid: every thread id of 2^32 or more (a pthread_t,
     Python's threading.get_ident() such as 140000000000, a hash) lands on
     the process's main-thread track, merged with the others there.
   - DevTools' trace engine and speedscope (JavaScript) read "tid" as a
     double, so 2^64-1 and 2^64-2 (or 2^53 and 2^53+1) are one thread
     there; their events then overlap on one track and DevTools drops them
     (tests/js/check_trace.mjs: "trace engine left 1 of 2 complete events
     out of its call tree").
   - prof_export_perfetto: ThreadDescriptor.tid is an int64 in the proto,
     but trace_processor's TrackEventTokenizer reads it as
     static_cast<uint32_t>(thread.tid()) (ReserveDescriptorThreadTrack), as
     tests/export/check_perfetto.py's i32() models: 7 and 2^32+7 are one
     thread there (check_perfetto.py: "thread 7: name ['thread 4294967303',
     'thread 7']"); any two ids equal mod 2^32 likewise.

   Files go to build/probe19b_tid/ (cwd = repo root). */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe19b_tid"

/* The distinct "tid" values of the JSON text, as text and as doubles. */
static void count_tids(const char *path, int *ntext, int *ndouble, int *nbig) {
    static char buf[1 << 16];
    char texts[64][32];
    double dbl[64];
    size_t n;
    int nt = 0, nd = 0, i;
    const char *p;
    FILE *f = fopen(path, "rb");
    *ntext = *ndouble = *nbig = 0;
    if (!CHECK(f != NULL)) return;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    for (p = buf; (p = strstr(p, "\"tid\": ")) != NULL; p += 7) {
        char t[32];
        size_t k = strspn(p + 7, "-0123456789");
        double d;
        int seen = 0;
        if (k == 0 || k >= sizeof t) continue;
        memcpy(t, p + 7, k); t[k] = 0;
        if (strcmp(t, "0") == 0) continue; /* process metadata */
        for (i = 0; i < nt; i++) seen |= strcmp(texts[i], t) == 0;
        if (!seen && nt < 64) strcpy(texts[nt++], t);
        if (!seen && strtoull(t, NULL, 10) > 4294967295ull) ++*nbig;
        d = strtod(t, NULL);
        seen = 0;
        for (i = 0; i < nd; i++) seen |= dbl[i] == d;
        if (!seen && nd < 64) dbl[nd++] = d;
    }
    *ntext = nt; *ndouble = nd;
}

int main(void) {
    prof_events *ev = prof_events_create();
    int nt, nd, nbig;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    /* per pair: one range each, overlapping across the two threads */
    check_add_event(ev, "A", 18446744073709551615ull, 0, 10000);
    check_add_event(ev, "B", 18446744073709551614ull, 5000, 15000);
    check_add_event(ev, "C", 9007199254740993ull, 0, 10000);
    check_add_event(ev, "D", 9007199254740992ull, 5000, 15000);
    check_add_event(ev, "E", 4294967296ull + 7, 0, 10000);
    check_add_event(ev, "F", 7, 5000, 15000);
    check_add_event(ev, "G", 140000000000ull, 0, 10000);       /* Python-style idents */
    check_add_event(ev, "H", 140000000001ull, 5000, 15000);
    /* a thread whose own id is the one the first big id is written under
       (ids past INT32_MAX are written under ids counted down from it):
       that one moves */
    check_add_event(ev, "I", 2147483647ull, 5000, 15000);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/trace.json"), PROF_OK);
    CHECK_EQ_INT(prof_export_perfetto(ev, OUT "/trace.json.pftrace"), PROF_OK);

    count_tids(OUT "/trace.json", &nt, &nd, &nbig);
    CHECK_EQ_INT(nt, 9);
    CHECK_EQ_INT(nd, 9);   /* as a JavaScript reader sees them: 7 before */
    CHECK_EQ_INT(nbig, 0); /* tids Perfetto's JSON importer replaces by the pid: 7 today */

    if (system("protoc --version >/dev/null 2>&1") == 0) {
        /* the eight ThreadDescriptors' tids as trace_processor keeps them (uint32) */
        CHECK_MSG(system("protoc --decode=perfetto.protos.Trace -I tests/export/proto perfetto_trace.proto < " OUT "/trace.json.pftrace "
                         "| grep -A3 'thread {' | sed -n 's/^ *tid: //p' "
                         "| python3 -c 'import sys; v = {int(x) % 2**32 for x in sys.stdin}; sys.exit(0 if len(v) == 9 else 1)'") == 0,
                  "Perfetto: the nine threads' tids are not eight distinct uint32 values (%s)", OUT "/trace.json.pftrace");
    } else {
        printf("test_probe19b_tid: protoc missing: Perfetto part skipped\n");
    }
    { /* the default names keep the real ids; prof_event.thread too */
        char *text = check_read_file(OUT "/trace.json");
        prof_event e;
        CHECK(text && strstr(text, "\"thread 18446744073709551615\"") && strstr(text, "\"thread 140000000000\"") && strstr(text, "\"tid\": 7,"));
        free(text);
        CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
        CHECK(e.thread == 18446744073709551615ull || e.thread == 9007199254740993ull || e.thread == 4294967303ull || e.thread == 140000000000ull);
    }
    prof_events_free(ev);
    return check_report();
}
