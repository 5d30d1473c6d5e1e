/* A device event that overlaps another on its stream without nesting (a
   kernel of a programmatic dependent launch; a Stream Sync record, whose
   CPU-side times overlap the kernel it waits for) is written to the JSON
   trace as a "b"/"e" pair, and the manual says the "b" carries the args
   an "X" would have. It carried a CPU op's instead: an "External id" of
   its own index + 1 and an "Ev Idx", where an "X" device event carries
   the id of the op that launched it and no index (prof__w_async_pair
   tested only PROF__API_CALL, prof__w_ev_middle also the device type).
   Found comparing with Kineto, whose device events carry their op's id.
   Here: a scope "step" (External id 1) launches a kernel on stream 7, then
   a second kernel that begins before the first ends (case 1), or calls
   cudaStreamSynchronize, whose Stream Sync record overlaps the kernel
   (case 2). The overlapping event's "b" must read "External id": 1 and
   have no "Ev Idx", like the first kernel's "X". */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"
#include "virtual_mono.h"

#include <sys/stat.h>

#define OUT "build/edges6_device_pair_args"

/* The line of the trace (one event a line) with the phase and name given;
   NULL if none, copied into buf. */
static const char *event_line(const char *text, const char *ph, const char *name, char *buf, size_t cap) {
    char want_ph[32], want_name[128];
    const char *p = text;
    snprintf(want_ph, sizeof want_ph, "\"ph\": \"%s\"", ph);
    snprintf(want_name, sizeof want_name, "\"name\": \"%s\"", name);
    while (p && *p) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n < cap) {
            memcpy(buf, p, n);
            buf[n] = '\0';
            if (strstr(buf, want_ph) && strstr(buf, want_name)) return buf;
        }
        p = end ? end + 1 : NULL;
    }
    return NULL;
}

static void run(int sync_case, int64_t t0) {
    prof_config c;
    prof_events *ev;
    char path[128], line[1024], xline[1024];
    char *text;
    const char *over = sync_case ? "Stream Sync" : "pdl_kernel";
    fake_cupti_reset();
    g_base += t0;
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.cuda_flags = sync_case ? PROF_CUDA_SYNC : 0;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    at(500);
    {
        PROF_SCOPE("step");
        CUpti_ActivityAPI l = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(1000), T(2000), 40);
        CUpti_ActivityKernel10 k = fake_cupti_kernel("long_kernel", T(3000), T(10000), 40);
        k.streamId = 7;
        k.contextId = 1;
        k.deviceId = 0;
        CHECK_EQ_INT(fake_cupti_queue_api(&l), 0);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        if (!sync_case) {
            CUpti_ActivityAPI l2 = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(2500), T(2800), 41);
            CUpti_ActivityKernel10 k2 = fake_cupti_kernel("pdl_kernel", T(8000), T(12000), 41);
            k2.streamId = 7;
            k2.contextId = 1;
            k2.deviceId = 0;
            CHECK_EQ_INT(fake_cupti_queue_api(&l2), 0);
            CHECK_EQ_INT(fake_cupti_queue_kernel(&k2), 0);
        } else {
            CUpti_ActivityAPI s = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, T(5000), T(10500), 41);
            CUpti_ActivitySynchronization2 y = fake_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, T(5100), T(10200), 41);
            y.streamId = 7;
            y.contextId = 1;
            CHECK_EQ_INT(fake_cupti_queue_api(&s), 0);
            CHECK_EQ_INT(fake_cupti_queue_sync(&y), 0);
        }
        at(13000);
    }
    at(14000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    snprintf(path, sizeof path, OUT "/case%d.json", sync_case);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    prof_events_free(ev);
    text = check_read_file(path);
    if (!CHECK(text != NULL)) return;
    if (CHECK_MSG(event_line(text, "X", "long_kernel", xline, sizeof xline) != NULL, "case %d: no \"X\" long_kernel in %s", sync_case, path))
        CHECK_MSG(strstr(xline, "\"args\": {\"External id\": 1, ") && !strstr(xline, "Ev Idx"), "case %d: the kernel's X: %s", sync_case, xline);
    if (CHECK_MSG(event_line(text, "b", over, line, sizeof line) != NULL, "case %d: %s is not a \"b\"/\"e\" pair in %s", sync_case, over, path)) {
        CHECK_MSG(strstr(line, "\"args\": {\"External id\": 1, ") != NULL, "case %d: %s's \"b\" does not carry its op's External id 1: %s", sync_case,
                  over, line);
        CHECK_MSG(strstr(line, "Ev Idx") == NULL, "case %d: %s's \"b\" carries a CPU op's \"Ev Idx\": %s", sync_case, over, line);
        CHECK_MSG(strstr(line, "\"correlation\": 41") != NULL, "case %d: %s", sync_case, line);
    }
    CHECK(event_line(text, "e", over, line, sizeof line) != NULL);
    free(text);
    prof_shutdown();
}

int main(void) {
    unsetenv("FAKE_CUPTI_ENV");
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    virtual_mono_init();
    run(0, 0);
    run(1, 1000000);
    return check_report();
}
