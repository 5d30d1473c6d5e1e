/* The recorded counterpart of test_probe21c_device_nesting.c's first case:
   two kernels that CUPTI reports on one stream overlapping, as Hopper's
   programmatic dependent launch makes them (the second begins while the
   first is finishing). prof_stop keeps both (prof_events_get), and
   prof_export_perfetto gives the second a lane of its own under the
   stream. Found: prof_export_chrome_trace wrote both as "X" events on the
   stream's tid as they were (prof__trace_overlaps skipped device events),
   so DevTools' trace engine left the second out of its call tree and
   speedscope ended the wrong frame. Fixed: the second is an async pair
   (see test_probe21c_device_nesting.c).
   The check reads the JSON's "X" events per (pid, tid) as doubles and asks
   that every two on one lane nest or follow (and runs
   tests/js/check_trace.mjs when node is there). */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define OUT "build/probe21c_cupti_pdl"

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void) {
    prof_config c;
    prof_events *ev;
    CUpti_ActivityKernel10 k1, k2;
    int64_t t0;
    size_t i, kernels = 0;
    char *text;
    FILE *f;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    fake_cupti_reset();

    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    t0 = now_ns();
    k1 = fake_cupti_kernel("k_first", (uint64_t)(t0 + 1000), (uint64_t)(t0 + 20000), 101);
    k2 = fake_cupti_kernel("k_dependent", (uint64_t)(t0 + 15000), (uint64_t)(t0 + 40000), 102);
    CHECK_EQ_INT(k1.streamId, k2.streamId);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k1), 0);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k2), 0);
    while (now_ns() < t0 + 100000) {}
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type == PROF_DEVICE_CUDA) kernels++;
    }
    CHECK_EQ_INT(kernels, 2);

    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/pdl.json"), PROF_OK);
    text = check_read_file(OUT "/pdl.json");
    if (CHECK(text != NULL)) {
        /* the two kernels' lines: one lane each, or nested, or apart */
        const char *a = strstr(text, "\"name\": \"k_first\""), *b = strstr(text, "\"name\": \"k_dependent\"");
        CHECK(a != NULL && b != NULL);
        if (a && b) {
            const char *la = a, *lb = b;
            double ta, da, tb, db, tida, tidb;
            while (la > text && la[-1] != '\n') la--;
            while (lb > text && lb[-1] != '\n') lb--;
            if (strncmp(la, "  {\"ph\": \"X\"", 12) == 0 && strncmp(lb, "  {\"ph\": \"X\"", 12) == 0) {
                tida = strtod(strstr(la, "\"tid\": ") + 7, NULL);
                tidb = strtod(strstr(lb, "\"tid\": ") + 7, NULL);
                ta = strtod(strstr(la, "\"ts\": ") + 6, NULL);
                da = strtod(strstr(la, "\"dur\": ") + 7, NULL);
                tb = strtod(strstr(lb, "\"ts\": ") + 6, NULL);
                db = strtod(strstr(lb, "\"dur\": ") + 7, NULL);
                CHECK_MSG(tida != tidb || tb >= ta + da || tb + db <= ta + da,
                          "k_dependent [%.3f, %.3f] begins inside k_first [%.3f, %.3f] on one lane (tid %.0f) and ends after it: DevTools leaves it out of its tree",
                          tb, tb + db, ta, ta + da, tida);
            }
        }
        free(text);
    }
    f = fopen(OUT "/pdl.expect.json", "w");
    if (CHECK(f != NULL)) {
        fputs("{\"threads\": {}, \"exact_threads\": false}\n", f);
        fclose(f);
        check_viewers(OUT, "pdl", 0);
    }
    prof_events_free(ev);
    return check_report();
}
