/* A device event's thread is its stream (prof_event.thread), which has no
   name; the list knows threads by id, and a CPU thread whose id equals a
   stream's (small ids are common in a container: a process's threads
   from 1, streams 7, 13, ...) shared one entry with it, so the stream's
   kernels read that thread's name in prof_event.thread_name. Here the
   main thread is named and launches a kernel on a stream whose id is the
   thread's own: the kernel must have no thread name, the thread's scope
   its name, and the trace's lanes stay apart. */
#define _GNU_SOURCE
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(void) {
    prof_config c;
    prof_events *ev;
    uint64_t tid = (uint64_t)syscall(SYS_gettid), t0;
    prof_event k, s;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    PROF_THREAD_NAME("main loop");
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    {
        PROF_SCOPE("step");
        CUpti_ActivityAPI a;
        CUpti_ActivityKernel10 kr;
        t0 = now_ns();
        a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t0 + 100, t0 + 200, 9);
        kr = fake_cupti_kernel("k_on_stream", t0 + 300, t0 + 400, 9);
        kr.streamId = (uint32_t)tid; /* the stream's id is the thread's */
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&kr), 0);
        while (now_ns() < t0 + 1000) {}
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    k = check_event_named(ev, "k_on_stream");
    s = check_event_named(ev, "step");
    CHECK_EQ_INT(k.thread, tid);
    CHECK(k.device_type == PROF_DEVICE_CUDA);
    CHECK_MSG(k.thread_name == NULL, "the kernel on stream %llu reads the CPU thread's name \"%s\"", (unsigned long long)tid,
              k.thread_name ? k.thread_name : "");
    CHECK_EQ_INT(s.thread, tid);
    CHECK_EQ_STR(s.thread_name ? s.thread_name : "(none)", "main loop");
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
