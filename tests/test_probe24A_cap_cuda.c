/* max_events does not hold for CUDA records, and a capped profile keeps
   the CUDA calls of the scopes it dropped. The manual (max_events): "past
   it events are dropped, counted and reported ... once a thread meets the
   cap no new scope begins recording there, so whole subtrees are dropped,
   never a parent whose children are kept ... Marks, counter samples,
   allocations and async begins/ends count as events too."
   CUPTI's records go into the list at prof_stop (prof__cupti_gather),
   outside the cap: a scope dropped at the cap ("dropped_op") loses its
   record, but the cudaLaunchKernel it made is kept, now as a child of the
   scope around it ("outer"), with the kernel charged to "outer" as its
   own (n_kernels, self CUDA time); and the list holds every API call and
   kernel whatever max_events says (100k launches with max_events 1000:
   200,001 events, none of the CUDA ones counted as dropped).
   Here max_events is 100, 300 scopes fill the thread's share, then a
   scope that launches a kernel begins.
   Wanted: what the manual says: the call made inside the dropped scope is
   dropped with it (and counted in prof_stats.dropped), and the list does
   not grow past max_events by CUDA records without their being counted.
   A fix: note, per thread, when it met the cap, and drop (count) CUPTI's
   API records of that thread from then on, their GPU work with them or
   left unattached; or say in the manual that CUDA activity is outside
   the cap and the subtree rule. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

extern int clock_gettime(clockid_t clk, struct timespec *ts); /* the real one */

static int64_t vc_ns; /* virtual CLOCK_MONOTONIC */
int test_clock_gettime(clockid_t clk, struct timespec *ts) {
    if (clk == CLOCK_MONOTONIC) {
        int64_t v = __atomic_load_n(&vc_ns, __ATOMIC_SEQ_CST);
        ts->tv_sec = (time_t)(v / 1000000000);
        ts->tv_nsec = (long)(v % 1000000000);
        return 0;
    }
    return clock_gettime(clk, ts);
}
static int64_t g_base;
static void at(int64_t t) { __atomic_store_n(&vc_ns, g_base + t, __ATOMIC_SEQ_CST); }
static uint64_t T(int64_t t) { return (uint64_t)(g_base + t); }

static int64_t find(prof_events *ev, const char *name, prof_event *out) {
    size_t i, n = prof_events_count(ev);
    for (i = 0; i < n; i++)
        if (prof_events_get(ev, i, out) == PROF_OK && strcmp(out->name, name) == 0) return (int64_t)i;
    memset(out, 0, sizeof *out);
    return -1;
}

int main(void) {
    prof_config c;
    prof_events *ev;
    prof_stats st;
    int i;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        g_base = ((int64_t)ts.tv_sec + 1000) * 1000000000;
    }
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.max_events = 100;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("outer");
        for (i = 0; i < 300; i++) {
            PROF_SCOPE("filler");
        }
        at(2000);
        {
            PROF_SCOPE("dropped_op"); /* past the cap: dropped */
            CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(2100), T(2200), 5);
            CUpti_ActivityKernel10 k = fake_cupti_kernel("k", T(3000), T(4000), 5);
            CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
            CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
            at(2500);
        }
        at(5000);
    }
    at(6000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    {
        prof_event d, a, o;
        int64_t id = find(ev, "dropped_op", &d), ia = find(ev, "cudaLaunchKernel", &a);
        find(ev, "outer", &o);
        CHECK(st.scopes_dropped > 0);
        CHECK_EQ_INT(id, -1); /* the cap dropped the scope */
        CHECK_MSG(ia < 0, "the cap dropped \"dropped_op\", but the cudaLaunchKernel made inside it is kept (event %lld, parent: %s); "
                  "\"outer\" now owns its kernel (n_kernels %zu, self CUDA %lld ns)", (long long)ia,
                  a.parent >= 0 ? "outer" : "none", o.n_kernels, (long long)o.self_device_time_total_ns);
        CHECK_MSG(prof_events_count(ev) <= c.max_events + 1, "max_events %zu, the list holds %zu events (%llu counted as dropped)",
                  c.max_events, prof_events_count(ev), (unsigned long long)st.dropped);
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
