/* CUDA's kernels are joined to their ops before _remove_dup_nodes, as
   PyTorch's _parse_kineto_results attaches each to the op open at its
   launch before _build_tree. A kernel launched in an op "a" that is the
   only child of an op "a" belongs to the inner one; the merge hands it up
   to the outer, which gives it back whenever the list is analysed again.
   prof_stop joined after the merge (the inner op was gone by then), so the
   kernel went to the outer op's own kernels, and the next analysis (after
   a prof_events_add, or a kernel appended to any op) put the inner op
   back and merged it again, replacing the outer op's kernels with the
   inner's, which had none: the kernel's op showed 0 kernels and 0 device
   time. Checked: right after prof_stop, after a kernel appended by hand
   to another op, and after an unrelated event added; and, with a second
   child added inside the outer op (no merge), the kernel is the inner op's.
   Also the trace's link of GPU work to its op ("External id"): a kernel
   the outer op launched through a call Kineto's filter leaves out (no
   second child: the merge stands) is counted nowhere, as PyTorch's merge
   replaces the parent's kernels, but Kineto links it to the op open at
   its launch; joined before the merge, the trace gave it its own
   correlation id (the op's kernel list no longer held it). */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include "fake_cupti_control.h"

#include <stdlib.h>
#include <string.h>

static volatile unsigned spin;
static void wait_ns(uint64_t d) {
    uint64_t t0 = fake_cupti_now();
    while (fake_cupti_now() < t0 + d) spin++;
}
/* a launch of a kernel of kdur ns, its records queued; filtered: by a
   call Kineto's filter leaves out (cudaGetDevice's callback id) */
static void launch_as(uint32_t corr, uint64_t kdur, const char *name, int filtered) {
    uint64_t t0 = fake_cupti_now();
    CUpti_ActivityAPI a;
    CUpti_ActivityKernel10 k;
    wait_ns(4);
    a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME,
                       filtered ? CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020 : CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t0 + 1, t0 + 2,
                       corr);
    k = fake_cupti_kernel(name, t0 + 3, t0 + 3 + kdur, corr);
    CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
}
static void launch(uint32_t corr, uint64_t kdur) { launch_as(corr, kdur, "kern", 0); }
/* the outer op's own kernel, by a filtered call, in the trace */
static void filtered_in_merged(void) {
    prof_config c;
    prof_events *ev;
    prof_event a;
    char *text;
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return;
    {
        PROF_SCOPE("a");
        wait_ns(20000);
        launch_as(600, 700, "outer_kernel", 1);
        wait_ns(20000);
        {
            PROF_SCOPE("a");
            wait_ns(20000);
            launch_as(601, 1000, "inner_kernel", 0);
            wait_ns(20000);
        }
        wait_ns(20000);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(check_find_event(ev, "a", 0), 0);
    a = check_get_event(ev, 0); /* merged: the inner op's kernel alone */
    CHECK_EQ_INT(a.n_kernels, 1);
    CHECK_EQ_INT(a.device_time_total_ns, 1000);
    if (CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/join_before_merge.json"), PROF_OK) &&
        CHECK((text = check_read_file("build/join_before_merge.json")) != NULL)) {
        long op = check_json_ext_id(text, "a");
        CHECK(op > 0);
        CHECK_EQ_INT(check_json_ext_id(text, "inner_kernel"), op);
        CHECK_EQ_INT(check_json_ext_id(text, "outer_kernel"), op); /* not 600 */
        free(text);
    }
    prof_events_free(ev);
}
/* the outer "a" has the kernel (1 of 1000 ns) and the list no inner "a" */
static void check_merged(prof_events *ev, const char *when) {
    prof_event a = check_event_named(ev, "a");
    CHECK_MSG(a.n_kernels == 1 && a.device_time_total_ns == 1000 && a.self_device_time_total_ns == 1000,
              "%s: op a has %zu kernels, %lld ns of device time (%lld its own); want 1, 1000 (1000)", when, a.n_kernels,
              (long long)a.device_time_total_ns, (long long)a.self_device_time_total_ns);
    CHECK_MSG(check_count_named(ev, "a") == 1, "%s: %ld ops a (not merged)", when, check_count_named(ev, "a"));
}

int main(void) {
    prof_config c;
    prof_events *ev;
    prof_event e, outer, inner;
    int64_t b, i;
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    {
        PROF_SCOPE("a");
        wait_ns(20000);
        {
            PROF_SCOPE("a");
            wait_ns(20000);
            launch(501, 1000);
            wait_ns(20000);
        }
        wait_ns(20000);
    }
    {
        PROF_SCOPE("b");
        wait_ns(20000);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    CHECK_EQ_INT(prof_events_stats(ev).merged, 1);
    check_merged(ev, "after prof_stop");

    b = check_find_event(ev, "b", 0);
    if (CHECK(b >= 0)) CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)b, "by_hand", 0, 50), PROF_OK);
    check_merged(ev, "after a kernel appended to op b");
    e = check_event_named(ev, "b");
    CHECK_EQ_INT(e.n_kernels, 1);
    CHECK_EQ_INT(e.device_time_total_ns, 50);

    check_add_event(ev, "z", 12345, 1, 2);
    check_merged(ev, "after an unrelated event added");

    /* a second child inside the outer a, on its thread: no merge; the
       kernel is the inner a's, and the outer's total holds it */
    outer = check_event_named(ev, "a");
    check_add_event(ev, "c", outer.thread, outer.end_ns - 10, outer.end_ns - 5);
    i = check_find_event(ev, "a", 0);
    outer = check_get_event(ev, i);
    inner = check_get_event(ev, check_find_event(ev, "a", 1));
    CHECK_EQ_INT(outer.n_kernels, 0);
    CHECK_EQ_INT(outer.device_time_total_ns, 1000);
    CHECK_EQ_INT(outer.self_device_time_total_ns, 0);
    CHECK_EQ_INT(inner.n_kernels, 1);
    CHECK_EQ_INT(inner.device_time_total_ns, 1000);
    CHECK_EQ_INT(inner.parent, i);
    CHECK_EQ_INT(prof_events_stats(ev).merged, 0);
    prof_events_free(ev);
    filtered_in_merged();
    prof_shutdown();
    return check_report();
}
