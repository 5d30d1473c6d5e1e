/* The JSON trace of a CUDA session names CPU threads that do not exist.
   prof__cu_key files each kernel, copy, set and sync record under a
   thread-table entry keyed by its stream (prof__thread_index(e, stream)),
   and a context-wide sync under (uint64_t)-1. prof__trace_cpu_lanes then
   writes a thread_name and a thread_sort_index record under the CPU
   process's pid for every entry of the table, so next to the real thread
   the trace names "thread 7" (stream 7), "thread 13" and "thread
   18446744073709551615" (the sync lane, written as tid 2147483647) as
   threads of the process (tests/test_cupti.c's own build/cupti/trace_sync.json
   has them); prof_export_perfetto writes thread descriptors for them as
   well. Kineto names only the process's threads there; the streams are
   named under their GPU's pid ("stream 7"), as prof.h also does.
   Wanted: under the CPU pid, thread_name records only for threads that
   ran something on the CPU (here the one thread). A fix: skip, in
   prof__trace_cpu_lanes (and the Perfetto thread descriptors), table
   entries that only device events use (or give device lanes a table of
   their own). */
#define _GNU_SOURCE 1
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OUT "build/probe24A_phantom_threads"

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void) {
    prof_config c;
    prof_events *ev;
    int64_t t0;
    char *text, key[128];
    const char *p;
    long pid = (long)getpid(), tid = (long)syscall(SYS_gettid);
    int named = 0, real = 0;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.cuda_flags = PROF_CUDA_SYNC;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    t0 = now_ns();
    {
        PROF_SCOPE("op");
        CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, (uint64_t)now_ns(),
                                             (uint64_t)now_ns() + 1, 41);
        CUpti_ActivityKernel10 k7 = fake_cupti_kernel("k_stream7", (uint64_t)(t0 + 1000), (uint64_t)(t0 + 2000), 41);
        CUpti_ActivityKernel10 k13 = fake_cupti_kernel("k_stream13", (uint64_t)(t0 + 2000), (uint64_t)(t0 + 3000), 42);
        CUpti_ActivitySynchronization2 s = fake_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, (uint64_t)(t0 + 3000),
                                                           (uint64_t)(t0 + 4000), 43); /* no stream: the "sync" lane */
        k13.streamId = 13;
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k7), 0);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k13), 0);
        CHECK_EQ_INT(fake_cupti_queue_sync(&s), 0);
        while (now_ns() < t0 + 100000) {}
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/trace.json"), PROF_OK);
    text = check_read_file(OUT "/trace.json");
    if (CHECK(text != NULL)) {
        CHECK(strstr(text, "\"name\": \"k_stream13\"") != NULL && strstr(text, "\"name\": \"Context Sync\"") != NULL);
        snprintf(key, sizeof key, "{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %ld, \"tid\": ", pid);
        for (p = text; (p = strstr(p, key)) != NULL; p++) {
            const char *t = p + strlen(key), *nm = strstr(t, "\"name\": ");
            const char *eol = strchr(t, '\n');
            named++;
            if (strtol(t, NULL, 10) == tid) { real++; continue; }
            (void)CHECK_MSG(0, "the CPU process (pid %ld) names a thread that does not exist: tid %ld, %.*s", pid, strtol(t, NULL, 10),
                      (int)(nm && eol && nm < eol ? eol - nm : 0), nm ? nm : "");
        }
        CHECK_EQ_INT(real, 1);
        CHECK_MSG(named == 1, "%d thread_name records under the CPU pid for its one thread", named);
        free(text);
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
