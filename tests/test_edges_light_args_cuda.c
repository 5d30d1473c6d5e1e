/* PROF_ARGS_LIGHT on a CUDA launch and its kernel: the JSON trace leaves
   out the per-event ids, "correlation" included (prof_args_level's doc:
   no "External id", "Ev Idx", "correlation", "Sequence number"), while
   the API call keeps "cbid" and the launch-to-kernel flow (ac2g) stays;
   PROF_ARGS_FULL writes "correlation" on both. Found by mutation testing:
   writing "correlation" under PROF_ARGS_LIGHT left every other test
   passing. Timed on the virtual clock of virtual_mono.h, with the fake
   CUPTI. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"

#include <sys/stat.h>

#define OUT "build/test_edges_light_args_cuda.json"

static prof_events *run(void) {
    prof_config c;
    CUpti_ActivityAPI a;
    CUpti_ActivityKernel10 k;
    fake_cupti_reset();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return NULL;
    at(1000);
    {
        PROF_SCOPE("outer");
        a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(3000), T(4000), 5);
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        k = fake_cupti_kernel("the_kernel", T(6000), T(7000), 5);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        at(9000);
    }
    at(10000);
    return prof_stop();
}


int main(void) {
    prof_events *ev;
    prof_export_options o;
    char *t;
    unsetenv("FAKE_CUPTI_ENV");
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    ev = run();
    if (CHECK(ev != NULL)) {
        if (CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT), PROF_OK) && CHECK((t = check_read_file(OUT)) != NULL)) {
            CHECK_EQ_INT(check_count_str(t, "\"correlation\": 5"), 2); /* the call's and the kernel's */
            free(t);
        }
        memset(&o, 0, sizeof o);
        o.args = PROF_ARGS_LIGHT;
        CHECK_EQ_INT(prof_events_set_export_options(ev, &o), PROF_OK);
        if (CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT), PROF_OK) && CHECK((t = check_read_file(OUT)) != NULL)) {
            CHECK(strstr(t, "\"the_kernel\"") != NULL);
            CHECK_EQ_INT(check_count_str(t, "\"correlation\""), 0);
            CHECK_EQ_INT(check_count_str(t, "\"External id\""), 0);
            CHECK(strstr(t, "\"cbid\": ") != NULL);
            CHECK_EQ_INT(check_count_str(t, "\"cat\": \"ac2g\""), 2); /* the flow's two ends stay */
            free(t);
        }
        prof_events_free(ev);
    }
    prof_shutdown();
    return check_report();
}
