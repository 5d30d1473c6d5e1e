/* test_probe20a_stream_tid's defect, through the explicit stream id: a
   device event's lane in the JSON trace is "tid": <its stream>, and a
   stream past INT32_MAX must be written under an id of at most INT32_MAX
   (Perfetto's JSON importer reads "tid" with CoerceToUint32, which gives
   nullopt past 2^32 - 1, and then uses tid = pid, so two such streams of
   one GPU become one track where their overlapping kernels do not nest;
   JavaScript readers merge ids past 2^53). The fix of probe20a remaps the
   default (the event's thread, prof__thr.tid_w); prof__stream_tid
   returns an explicit resource id (prof_event_desc.device_resource_id with
   PROF_EVENT_RESOURCE_ID, or a CUPTI stream) as it is, so a hand-built list
   with streams 140000000000 and 140000000001 writes "tid": 140000000000
   and "tid": 140000000001 again.
   Wanted: each of the two streams under a distinct tid of at most
   INT32_MAX on GPU 0's pid, its thread_name keeping the real id ("stream
   140000000000"), as for the default case; neither the id of another lane
   (here a kernel on thread 2147483647's default lane, and stream
   2147483646); the sync lane's -1 as Kineto writes it. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe24A_resource_tid"

static void add(prof_events *ev, const char *name, int64_t stream, int64_t s, int64_t e) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = stream == 0 ? 2147483647 : 1; /* 0: no stream, the thread's lane */
    d.start_ns = s;
    d.end_ns = e;
    d.device_type = PROF_DEVICE_CUDA;
    d.set = stream == 0 ? 0u : PROF_EVENT_RESOURCE_ID;
    d.device_resource_id = stream;
    CHECK(prof_events_add(ev, &d) >= 0);
}

/* The "tid" of the "X" event named `name`, as written. */
static long long tid_of(const char *text, const char *name) {
    char key[64];
    const char *p;
    snprintf(key, sizeof key, "\"name\": \"%s\", \"pid\": 0, \"tid\": ", name);
    p = strstr(text, key);
    return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

int main(void) {
    prof_events *ev = prof_events_create();
    char *text;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    add(ev, "k0", 140000000000ll, 0, 100);
    add(ev, "k1", 140000000001ll, 50, 150);
    add(ev, "k2", 0, 60, 160);
    add(ev, "k3", 2147483646ll, 70, 170);
    add(ev, "k4", -1, 80, 180);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/trace.json"), PROF_OK);
    text = check_read_file(OUT "/trace.json");
    if (CHECK(text != NULL)) {
        long long a = tid_of(text, "k0"), b = tid_of(text, "k1");
        CHECK_MSG(a >= 0 && a <= 2147483647LL, "k0 (stream 140000000000) is written with tid %lld", a);
        CHECK_MSG(b >= 0 && b <= 2147483647LL, "k1 (stream 140000000001) is written with tid %lld", b);
        CHECK(a != b);
        CHECK_MSG(a != 2147483647LL && b != 2147483647LL, "a stream took thread 2147483647's lane");
        CHECK_MSG(a != 2147483646LL && b != 2147483646LL, "a stream took stream 2147483646's lane");
        CHECK_EQ_INT((int)tid_of(text, "k2"), 2147483647);
        CHECK_EQ_INT((int)tid_of(text, "k3"), 2147483646);
        CHECK(strstr(text, "\"name\": \"k4\", \"pid\": 0, \"tid\": -1,") != NULL);
        CHECK(strstr(text, "\"name\": \"stream 140000000000\"") != NULL);
        CHECK(strstr(text, "\"name\": \"stream 140000000001\"") != NULL);
        free(text);
    }
    prof_events_free(ev);
    return check_report();
}
