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

#include <stdio.h>
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
static int64_t find(prof_events *ev, const char *name, int64_t after, prof_event *out);
/* "External id" of the trace's first "X" event named `name` (-1: none) */
static long long external_id(const char *text, const char *name) {
    char key[64];
    const char *p, *end, *x;
    snprintf(key, sizeof key, "\"name\": \"%s\",", name);
    if (!(p = strstr(text, key))) return -1;
    end = strchr(p, '\n');
    if (!(x = strstr(p, "\"External id\": ")) || (end && x > end)) return -1;
    return strtoll(x + 15, NULL, 10);
}
/* the outer op's own kernel, by a filtered call, in the trace */
static void filtered_in_merged(void) {
    prof_config c;
    prof_events *ev;
    prof_event a;
    FILE *f;
    char *text;
    long n;
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
    if (CHECK(find(ev, "a", -1, &a) == 0)) { /* merged: the inner op's kernel alone */
        CHECK_EQ_INT(a.n_kernels, 1);
        CHECK_EQ_INT(a.device_time_total_ns, 1000);
    }
    if (CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/join_before_merge.json"), PROF_OK) &&
        CHECK((f = fopen("build/join_before_merge.json", "rb")) != NULL)) {
        text = (char *)calloc(1, 1 << 20);
        n = text ? (long)fread(text, 1, (1 << 20) - 1, f) : 0;
        fclose(f);
        if (CHECK(n > 0)) {
            long long op = external_id(text, "a");
            CHECK(op > 0);
            CHECK_EQ_INT(external_id(text, "inner_kernel"), op);
            CHECK_EQ_INT(external_id(text, "outer_kernel"), op); /* not 600 */
        }
        free(text);
    }
    prof_events_free(ev);
}
/* the first CPU event named `name` (after `after`, an index), or -1 */
static int64_t find(prof_events *ev, const char *name, int64_t after, prof_event *out) {
    size_t i, n = prof_events_count(ev);
    for (i = (size_t)(after + 1); i < n; i++)
        if (prof_events_get(ev, i, out) == PROF_OK && out->device_type == PROF_DEVICE_CPU && strcmp(out->name, name) == 0) return (int64_t)i;
    return -1;
}
/* the outer "a" has the kernel (1 of 1000 ns) and the list no inner "a" */
static void check_merged(prof_events *ev, const char *when) {
    prof_event a;
    int64_t i = find(ev, "a", -1, &a);
    if (!CHECK_MSG(i >= 0, "%s: no op a", when)) return;
    CHECK_MSG(a.n_kernels == 1 && a.device_time_total_ns == 1000 && a.self_device_time_total_ns == 1000,
              "%s: op a has %zu kernels, %lld ns of device time (%lld its own); want 1, 1000 (1000)", when, a.n_kernels,
              (long long)a.device_time_total_ns, (long long)a.self_device_time_total_ns);
    CHECK_MSG(find(ev, "a", i, &a) < 0, "%s: a second op a (not merged)", when);
}

int main(void) {
    prof_config c;
    prof_events *ev;
    prof_event e, outer, inner;
    prof_event_desc d;
    int64_t b, i, k;
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

    b = find(ev, "b", -1, &e);
    if (CHECK(b >= 0)) CHECK_EQ_INT(prof_events_append_kernel(ev, (size_t)b, "by_hand", 0, 50), PROF_OK);
    check_merged(ev, "after a kernel appended to op b");
    if (CHECK((b = find(ev, "b", -1, &e)) >= 0)) {
        CHECK_EQ_INT(e.n_kernels, 1);
        CHECK_EQ_INT(e.device_time_total_ns, 50);
    }

    memset(&d, 0, sizeof d);
    d.name = "z";
    d.thread = 12345;
    d.start_ns = 1;
    d.end_ns = 2;
    CHECK(prof_events_add(ev, &d) >= 0);
    check_merged(ev, "after an unrelated event added");

    /* a second child inside the outer a, on its thread: no merge; the
       kernel is the inner a's, and the outer's total holds it */
    if (CHECK((i = find(ev, "a", -1, &outer)) >= 0)) {
        d.name = "c";
        d.thread = outer.thread;
        d.start_ns = outer.end_ns - 10;
        d.end_ns = outer.end_ns - 5;
        CHECK(prof_events_add(ev, &d) >= 0);
        i = find(ev, "a", -1, &outer);
        k = find(ev, "a", i, &inner);
        if (CHECK(i >= 0 && k >= 0)) {
            CHECK_EQ_INT(outer.n_kernels, 0);
            CHECK_EQ_INT(outer.device_time_total_ns, 1000);
            CHECK_EQ_INT(outer.self_device_time_total_ns, 0);
            CHECK_EQ_INT(inner.n_kernels, 1);
            CHECK_EQ_INT(inner.device_time_total_ns, 1000);
            CHECK_EQ_INT(inner.parent, i);
        }
        CHECK_EQ_INT(prof_events_stats(ev).merged, 0);
    }
    prof_events_free(ev);
    filtered_in_merged();
    prof_shutdown();
    return check_report();
}
