/* GPU work launched by a filtered call goes to an async range instead of
   the scope around the call. For a call that Kineto's filter leaves out
   (cuda_flags 0: e.g. the driver's cuMemcpyHtoD_v2, which a driver-API
   program calls directly), prof__cupti_correlate owns its GPU work
   through the innermost event of the thread open at the call's start
   (prof__cu_open_at over `cpu`, every CPU event sorted by thread and
   start). `cpu` holds the async ranges too (PROF_ASYNC_BEGIN/END, which
   are not in the tree: prof__in_tree), so a range begun on the thread
   inside the scope, before the call, is taken for the innermost scope:
   the copy's "# of kernels" goes to the range ("request": n_kernels 1,
   yet 0 us of CUDA time, its total read through the tree), and the scope
   that made the call ("op") shows no CUDA time at all. A kept call
   (cudaMemcpy) is owned through the tree and is not affected.
   Wanted: "op" owns the copy (n_kernels 1, 200 ns of CUDA time, self 200
   ns), the range none. A fix: leave events that are not in the tree
   (prof__in_tree) out of `cpu` in prof__cupti_correlate. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"

static prof_event find(prof_events *ev, const char *name) {
    size_t i, n = prof_events_count(ev);
    prof_event e;
    for (i = 0; i < n; i++)
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, name) == 0) return e;
    memset(&e, 0, sizeof e);
    e.name = "(missing)";
    return e;
}

int main(void) {
    prof_config c;
    prof_events *ev;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("op");
        at(2000);
        PROF_ASYNC_BEGIN("request", 42);
        {
            /* a driver-API copy: the call is filtered out, the copy carries its id */
            CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, T(3000), T(3500), 5);
            CUpti_ActivityMemcpy6 m = fake_cupti_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, T(3200), T(3400), 5);
            m.runtimeCorrelationId = 0; /* no runtime call around it */
            CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
            CHECK_EQ_INT(fake_cupti_queue_memcpy(&m), 0);
        }
        at(4000);
        PROF_ASYNC_END(42);
        at(5000);
    }
    at(6000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    {
        prof_event op = find(ev, "op"), req = find(ev, "request");
        CHECK(find(ev, "Memcpy HtoD (Pageable -> Device)").device_type == PROF_DEVICE_CUDA);
        CHECK_EQ_INT(find(ev, "cuMemcpyHtoD_v2").start_ns, 0); /* (filtered out: not in the list) */
        CHECK_MSG(op.n_kernels == 1 && op.device_time_total_ns == 200 && op.self_device_time_total_ns == 200,
                  "\"op\" made the copy but owns %zu kernels, %lld ns of CUDA time (self %lld); the async range \"request\" has %zu "
                  "kernels, %lld ns", op.n_kernels, (long long)op.device_time_total_ns, (long long)op.self_device_time_total_ns,
                  req.n_kernels, (long long)req.device_time_total_ns);
        CHECK_EQ_INT(req.n_kernels, 0);
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
