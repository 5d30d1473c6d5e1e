/* A device allocation whose CUPTI correlation id is 2^31 or more loses its
   scope. prof__cug_memory keeps a MEMORY2 record's correlation id in the
   memory record's thread field until prof__cupti_correlate gives it the
   launching call's thread, encoded as UINT32_MAX - correlationId %
   0x7fffffff; the join decodes UINT32_MAX - thread, which is the id only
   below 0x7fffffff. CUPTI's correlation ids are uint32_t and count every
   traced runtime and driver call (one counter for the process; whether
   cuptiFinalize resets it is not documented): a long session, or a
   long-running job profiled again and again, goes past 2^31 (a server's
   10^5 calls a second reach it in six hours). Then the id decoded is another (0x80000005 ->
   6), the cudaMalloc of the session is not found, and the allocation goes
   to the "CUDA" lane of its own: the scope around the cudaMalloc, and the
   call itself, show no CUDA memory (device_memory_usage 0 instead of 4
   MiB; the table's "CUDA Mem" column 0 B).
   Wanted: the allocation charged to the scope and the call that made it,
   whatever the id. A fix: keep the correlation id whole (a field of its
   own in prof__memrec, or a side array indexed like e->mem, used only
   between the gather and the join). */
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

/* One session: a scope around a cudaMalloc of 4 MiB with correlation id corr. */
static void session(uint32_t corr) {
    prof_config c;
    prof_events *ev;
    CUpti_ActivityAPI a;
    CUpti_ActivityMemory4 m;
    g_base += 1000000000;
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.profile_memory = 1;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    at(1000);
    {
        PROF_SCOPE("alloc_scope");
        a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, T(1500), T(2000), corr);
        CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
        m = fake_cupti_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x7f3200000000ull, 4u << 20, T(1800), corr);
        CHECK_EQ_INT(fake_cupti_queue_memory(&m), 0);
        at(3000);
    }
    at(4000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    {
        prof_event s = find(ev, "alloc_scope"), call = find(ev, "cudaMalloc");
        CHECK_MSG(s.device_memory_usage == (4 << 20) && call.self_device_memory_usage == (4 << 20),
                  "correlation id 0x%08x: the scope around cudaMalloc has %lld bytes of CUDA memory, the call %lld; expected 4 MiB each",
                  (unsigned)corr, (long long)s.device_memory_usage, (long long)call.self_device_memory_usage);
    }
    prof_events_free(ev);
}

int main(void) {
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    session(0x7ffffff0u); /* below 2^31 - 1 */
    session(0x80000005u); /* past it */
    session(0xfffffff0u);
    prof_shutdown();
    return check_report();
}
