/* A device event's lane in the JSON trace is its stream, the
   device_resource_id (default: the event's thread). prof_export_chrome_trace
   writes a thread id past INT32_MAX under an id of its own, counted down
   from INT32_MAX (manual: prof_event_desc.thread; test_probe19b_tid), but
   writes a device stream's id as it is: a kernel of a thread 140000000000
   (a Python-style ident, the default resource id) goes on "tid":
   140000000000. Perfetto's JSON importer reads "tid" with CoerceToUint32,
   which gives nullopt past 2^32 - 1, and then uses tid = pid: the streams
   140000000000 and 140000000001 of GPU 0 become one track there, where
   their overlapping kernels do not nest (and JavaScript readers merge ids
   past 2^53). Correct, as for threads: each stream past INT32_MAX written
   under a distinct id of at most INT32_MAX on its GPU's pid, its
   thread_name keeping the real id ("stream 140000000000"). */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OUT "build/probe20a_stream_tid"

static void add(prof_events *ev, const char *name, uint64_t thread, int64_t s, int64_t e) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = thread;
    d.start_ns = s;
    d.end_ns = e;
    d.device_type = PROF_DEVICE_CUDA;
    CHECK(prof_events_add(ev, &d) >= 0);
}

/* A kernel on stream `res` (an explicit resource id) of GPU 0. */
static void add_res(prof_events *ev, const char *name, int64_t res, int64_t s, int64_t e) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 7;
    d.start_ns = s;
    d.end_ns = e;
    d.device_type = PROF_DEVICE_CUDA;
    d.set = PROF_EVENT_RESOURCE_ID;
    d.device_resource_id = res;
    CHECK(prof_events_add(ev, &d) >= 0);
}

/* The "tid" of the "X" event named `name`, as written. */
static long long tid_of(const char *text, const char *name) {
    char key[64];
    const char *p, *t;
    snprintf(key, sizeof key, "\"name\": \"%s\", \"pid\": 0, \"tid\": ", name);
    p = strstr(text, key);
    if (!p) return -1;
    t = p + strlen(key);
    return strtoll(t, NULL, 10);
}

int main(void) {
    prof_events *ev = prof_events_create();
    char *text;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    add(ev, "k0", 140000000000ull, 0, 100);
    add(ev, "k1", 140000000001ull, 50, 150);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/trace.json"), PROF_OK);
    text = check_read_file(OUT "/trace.json");
    if (CHECK(text != NULL)) {
        long long a = tid_of(text, "k0"), b = tid_of(text, "k1");
        CHECK_MSG(a >= 0 && a <= 2147483647LL, "k0's tid %lld is past INT32_MAX", a);
        CHECK_MSG(b >= 0 && b <= 2147483647LL, "k1's tid %lld is past INT32_MAX", b);
        CHECK(a != b);
        CHECK(strstr(text, "\"name\": \"stream 140000000000\"") != NULL);
        CHECK(strstr(text, "\"name\": \"stream 140000000001\"") != NULL);
        free(text);
    }
    prof_events_free(ev);
    /* Negative streams (hand-built): Perfetto's importer reads each as tid
       0, so -2, -3 and 0 shared one track there; -1 stays (Kineto's sync
       lane), the others get ids of their own */
    ev = prof_events_create();
    if (!CHECK(ev != NULL)) return check_report();
    add_res(ev, "s0", 0, 0, 100);
    add_res(ev, "sm1", -1, 10, 110);
    add_res(ev, "sm2", -2, 20, 120);
    add_res(ev, "sm3", -3, 30, 130);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/neg.json"), PROF_OK);
    text = check_read_file(OUT "/neg.json");
    if (CHECK(text != NULL)) {
        long long t0 = tid_of(text, "s0"), t1 = tid_of(text, "sm1"), t2 = tid_of(text, "sm2"), t3 = tid_of(text, "sm3");
        CHECK_EQ_INT(t0, 0);
        CHECK_EQ_INT(t1, -1);
        CHECK_MSG(t2 > 0 && t3 > 0 && t2 != t3, "streams -2 and -3 written as tids %lld and %lld", t2, t3);
        CHECK(strstr(text, "\"name\": \"stream -2\"") != NULL);
        CHECK(strstr(text, "\"name\": \"stream -3\"") != NULL);
        free(text);
    }
    prof_events_free(ev);
    return check_report();
}
