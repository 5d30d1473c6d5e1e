/* The JSON trace does not link GPU work of a filtered call to the op that
   owns it. A call Kineto's filter leaves out (cuda_flags 0: the driver's
   cuMemcpyHtoD_v2 of a driver-API program) is not an event, but
   prof__cupti_correlate still gives its copy to the scope open at the
   call (op: n_kernels 1, its CUDA time). The trace's "External id" of a
   device event (prof__linked_external_id) looks only at the kept calls
   (cx->calls) and, finding none, writes the copy's own correlation id
   (5), while op is "External id": 1. Kineto's "External id" of GPU work is
   the op's id (its external correlation maps every call, kept in the
   trace or not, to the op open at it), and tools that tie kernels to ops
   by it (HTA, the TensorBoard plugin) see the copy as nobody's: the
   trace and the table disagree.
   Wanted: the copy's "External id" is op's. A fix: remember, per device
   event, the owner prof__cupti_correlate found (or give
   prof__linked_external_id the filtered calls' owners too). */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"
#include "virtual_mono.h"

#include <sys/stat.h>

#define OUT "build/probe24A_hidden_external_id"


int main(void) {
    prof_config c;
    prof_events *ev;
    char *text;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    virtual_mono_init();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("op");
        CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, T(3000), T(3500), 5);
        CUpti_ActivityMemcpy6 m = fake_cupti_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, T(3200), T(3400), 5);
        m.runtimeCorrelationId = 0; /* no runtime call around it */
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        CHECK_EQ_INT(fake_cupti_queue_memcpy(&m), 0);
        at(5000);
    }
    at(6000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    {
        size_t i;
        for (i = 0; i < prof_events_count(ev); i++) {
            prof_event e;
            if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, "op") == 0) CHECK_EQ_INT(e.n_kernels, 1); /* the copy is op's */
        }
    }
    CHECK_EQ_INT(prof_export_chrome_trace(ev, OUT "/trace.json"), PROF_OK);
    text = check_read_file(OUT "/trace.json");
    if (CHECK(text != NULL)) {
        long op = check_json_ext_id(text, "op"), cp = check_json_ext_id(text, "Memcpy HtoD (Pageable -> Device)");
        CHECK(op > 0);
        CHECK_MSG(cp == op, "the copy (owned by op, \"External id\": %ld) is written with \"External id\": %ld (its correlation id)", op, cp);
        free(text);
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
