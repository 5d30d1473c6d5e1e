/* max_events and CUDA. CUPTI's records (API calls and the GPU work they
   launched) reach the list only at prof_stop (prof__cupti_gather),
   outside the threads' record streams, so the cap had never applied to
   them:
   - a scope dropped at the cap ("dropped_op") lost its record, but the
     cudaLaunchKernel it made was kept, now as a child of the scope around
     it ("outer"), with the kernel charged to "outer" as its own
     (n_kernels, self CUDA time); the copy of a filtered driver call made
     there went to "outer" too: against the manual's "whole subtrees are
     dropped, never a parent whose children are kept";
   - 100k launches with max_events 1000 gave 200,001 events, none of the
     CUDA ones counted as dropped.
   Wanted (session 1): once the cap refused a thread, its CUDA calls are
   dropped with their work, and the rest take the room the CPU's events
   left: here none, so the launch "outer" made before the cap goes too,
   with its kernel; all counted in prof_stats.dropped, with a warning; the
   list stays within max_events.
   Session 2: 3 scopes under a cap of 12 leave room for 9 CUDA records:
   calls are kept with their work in the order they began while they fit
   (a launch and its kernel, a graph launch and its 3 kernels, a launch
   and its kernel: 8), and from the first that does not fit (cost 2, 1
   left) on, all later ones are dropped, a filtered call's copy with
   them. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"
#include "virtual_mono.h"

static int64_t find(prof_events *ev, const char *name, prof_event *out, int nth) {
    size_t i, n = prof_events_count(ev);
    for (i = 0; i < n; i++)
        if (prof_events_get(ev, i, out) == PROF_OK && strcmp(out->name, name) == 0 && nth-- == 0) return (int64_t)i;
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
    virtual_mono_init();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.max_events = 100;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("outer");
        {   /* before the cap: kept */
            CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(1100), T(1200), 4);
            CUpti_ActivityKernel10 k = fake_cupti_kernel("k_before", T(1300), T(1500), 4);
            CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
            CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        }
        at(1600);
        for (i = 0; i < 300; i++) {
            PROF_SCOPE("filler");
        }
        at(2000);
        {
            PROF_SCOPE("dropped_op"); /* past the cap: dropped */
            CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(2100), T(2200), 5);
            CUpti_ActivityKernel10 k = fake_cupti_kernel("k", T(3000), T(4000), 5);
            CUpti_ActivityAPI d = fake_cupti_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, T(2300), T(2400), 6);
            CUpti_ActivityMemcpy6 m = fake_cupti_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, T(4100), T(4200), 6);
            m.runtimeCorrelationId = 0; /* no runtime call around it */
            CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
            CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
            CHECK_EQ_INT(fake_cupti_queue_api(&d), 0);
            CHECK_EQ_INT(fake_cupti_queue_memcpy(&m), 0);
            at(2500);
        }
        at(5000);
    }
    at(6000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    {
        prof_event d, a, o, k, x;
        int64_t id = find(ev, "dropped_op", &d, 0), ia = find(ev, "cudaLaunchKernel", &a, 0);
        CHECK(find(ev, "outer", &o, 0) >= 0);
        CHECK(st.scopes_dropped > 0);
        CHECK_EQ_INT(id, -1); /* the cap dropped the scope */
        CHECK_MSG(ia < 0, "the cap dropped \"dropped_op\", but a cudaLaunchKernel is kept (at %lld ns)", (long long)a.start_ns);
        CHECK_MSG(find(ev, "k", &k, 0) < 0, "the kernel of the dropped launch is kept");
        CHECK_MSG(find(ev, "Memcpy HtoD (Pageable -> Device)", &x, 0) < 0, "the copy of the filtered call past the cap is kept");
        CHECK(find(ev, "k_before", &k, 0) < 0); /* no room left for it */
        CHECK_MSG(o.n_kernels == 0 && o.self_device_time_total_ns == 0, "\"outer\" owns %zu kernels, self CUDA %lld ns",
                  o.n_kernels, (long long)o.self_device_time_total_ns);
        CHECK_MSG(prof_events_count(ev) <= c.max_events + 1, "max_events %zu, the list holds %zu events (%llu counted as dropped)",
                  c.max_events, prof_events_count(ev), (unsigned long long)st.dropped);
        CHECK_EQ_INT(st.dropped, st.scopes_dropped + 5); /* two calls, two kernels, the copy */
        CHECK(check_log_has(PROF_E_DROPPED, "2 CUDA API calls and 3 kernels, copies or sets dropped at the cap of 100 events (raise prof_config.max_events)"));
        CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
    }
    prof_events_free(ev);

    /* session 2: the room left */
    check_log_reset();
    fake_cupti_reset();
    c.max_events = 12;
    at(10000);
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(11000);
    {
        static const struct { int64_t at; const char *kernel; uint32_t corr; int n; } launches[] = {
            { 11100, "l1", 11, 1 }, { 11200, "g2", 12, 3 }, { 11300, "l3", 13, 1 }, { 11400, "l4", 14, 1 }, { 11500, "l5", 15, 1 }
        };
        PROF_SCOPE("a");
        { PROF_SCOPE("b"); }
        { PROF_SCOPE("c"); }
        for (i = 0; i < 5; i++) { /* queued out of order: the order is the calls' */
            int j = (i * 3) % 5, m;
            CUpti_ActivityAPI l = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, j == 1 ? CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000
                                                                                   : CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                                 T(launches[j].at), T(launches[j].at + 50), launches[j].corr);
            CHECK_EQ_INT(fake_cupti_queue_api(&l), 0);
            for (m = 0; m < launches[j].n; m++) {
                CUpti_ActivityKernel10 k = fake_cupti_kernel(launches[j].kernel, T(20000 + 1000 * j + 100 * m), T(20000 + 1000 * j + 100 * m + 50), launches[j].corr);
                CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
            }
        }
        {
            CUpti_ActivityAPI d = fake_cupti_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, T(11450), T(11460), 16);
            CUpti_ActivityMemcpy6 m = fake_cupti_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 4096, T(30000), T(30100), 16);
            m.runtimeCorrelationId = 0;
            CHECK_EQ_INT(fake_cupti_queue_api(&d), 0);
            CHECK_EQ_INT(fake_cupti_queue_memcpy(&m), 0);
        }
        at(40000);
    }
    at(41000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    st = prof_events_stats(ev);
    {
        prof_event x, a;
        CHECK_EQ_INT(prof_events_count(ev), 11); /* a, b, c; l1 and its call, the graph launch and g2 x3, l3 and its call */
        CHECK(find(ev, "l1", &x, 0) >= 0 && find(ev, "l3", &x, 0) >= 0 && find(ev, "g2", &x, 2) >= 0);
        CHECK(find(ev, "l4", &x, 0) < 0 && find(ev, "l5", &x, 0) < 0);
        CHECK(find(ev, "Memcpy HtoD (Pageable -> Device)", &x, 0) < 0);
        CHECK(find(ev, "cudaLaunchKernel", &x, 1) >= 0 && find(ev, "cudaLaunchKernel", &x, 2) < 0);
        CHECK(find(ev, "cudaGraphLaunch", &x, 0) >= 0);
        CHECK(find(ev, "a", &a, 0) >= 0);
        CHECK_EQ_INT(a.n_kernels, 5);
        CHECK_EQ_INT(st.dropped, 5); /* l4, l5 with their calls, the copy */
        CHECK(check_log_has(PROF_E_DROPPED, "2 CUDA API calls and 3 kernels, copies or sets dropped at the cap of 12 events"));
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
