/* max_events and CUDA memory: a cudaMalloc call that the cap drops left
   its memory record (not capped) without its call; the join then put the
   record on a "CUDA" lane of its own instead of the calling thread, so the
   op that allocated lost the bytes and a thread "CUDA" (tid 0) appeared in
   the trace. Wanted: with room for two of the three calls, "a" still has
   its 3000 bytes of device memory (the dropped call's record keeps its
   thread) and the trace names no "CUDA" thread. (Found in review.) */
#define clock_gettime test_clock_gettime
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"
#include "virtual_mono.h"

#include <sys/stat.h>

static void run(size_t max_events) {
    prof_config c;
    prof_events *ev;
    size_t i, n;
    fake_cupti_reset();
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.max_events = max_events;
    c.profile_memory = 1;
    c.log = check_log;
    at(1000);
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    at(11000);
    {
        PROF_SCOPE("a");
        for (i = 0; i < 3; i++) {
            CUpti_ActivityAPI l = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
                                                 T(11100 + 100 * i), T(11150 + 100 * i), 11 + (uint32_t)i);
            CUpti_ActivityMemory4 m = fake_cupti_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x7000000 + 0x10000 * i, 1000,
                                                        T(11120 + 100 * i), 11 + (uint32_t)i);
            CHECK_EQ_INT(fake_cupti_queue_api(&l), 0);
            CHECK_EQ_INT(fake_cupti_queue_memory(&m), 0);
        }
        at(40000);
    }
    at(41000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event x;
        if (prof_events_get(ev, i, &x) != PROF_OK) continue;
        if (strcmp(x.name, "a") == 0)
            CHECK_MSG(x.device_memory_usage == 3000, "max_events %zu: \"a\" has %lld bytes of device memory", max_events, (long long)x.device_memory_usage);
    }
    {
        char path[96], *text;
        prof_stats st = prof_events_stats(ev);
        CHECK_EQ_INT(st.dropped, max_events == 3 ? 1 : 0);
        CHECK_EQ_INT(n, max_events == 3 ? 3 : 4);
        snprintf(path, sizeof path, "build/probe25_cap_cuda_memory_%zu.json", max_events);
        mkdir("build", 0777);
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        if (CHECK((text = check_read_file(path)) != NULL)) {
            CHECK_MSG(strstr(text, "\"name\": \"CUDA\"") == NULL, "max_events %zu: the trace names a thread \"CUDA\"", max_events);
            free(text);
        }
    }
    prof_events_free(ev);
}
int main(void) {
    unsetenv("FAKE_CUPTI_ENV");
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    at(0);
    run(100);
    run(3);
    prof_shutdown();
    return check_report();
}
