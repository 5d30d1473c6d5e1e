/* prof_events_append_kernel walks the event's kernel list to its tail on
   every call (prof__append_kernel: `while (e->kern[k].next >= 0) k =
   e->kern[k].next;`), so n kernels on one event cost n^2 / 2 steps.
   prof_stop under PROF_CUPTI attaches every kernel, copy and set through
   it (prof__cupti_correlate) to the scope that owns its launch, so a scope
   around a loop of many launches (an epoch, a training step of a big
   model, PROF_SCOPE("main")) makes prof_stop quadratic: measured on the
   dev VM (-O2), 10k kernels 0.45 s, 20k 1.6 s, 40k 4.5 s, 80k 16 s; 1M
   would take hours, a hang.
   Correct: constant time per kernel (keep a tail index per event, or
   link new kernels at the head and reverse once), so 300k kernels on one
   event take milliseconds. Fixed: the list's head keeps its tail.

   Not a timing test: a linear append of 300k kernels needs ~10 ms of CPU
   (well under a second in the sanitizer builds); the quadratic one ~4.5e10
   list steps (minutes). The guard fails the test after 30 s of CPU time,
   a margin of over 1000x either way. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

enum { KERNELS = 300000 };

static void on_cpu_limit(int sig) {
    static const char msg[] = "test_probe20a_append_kernel_quadratic: 300000 appends to one event took over 30 s of CPU: quadratic (prof__append_kernel walks to the tail)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) {}
    _exit(1);
}

int main(void) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    prof_event e;
    struct itimerval it;
    int i, failed = 0;
    prof_set_log(check_log, NULL);
    memset(&d, 0, sizeof d);
    d.name = "epoch"; d.thread = 1; d.start_ns = 0; d.end_ns = 10000000000LL;
    CHECK_EQ_INT(prof_events_add(ev, &d), 0);
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);

    signal(SIGVTALRM, on_cpu_limit);
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = 30;
    setitimer(ITIMER_VIRTUAL, &it, NULL);
    for (i = 0; i < KERNELS; i++)
        if (prof_events_append_kernel(ev, 0, "k", 0, 10) != PROF_OK) failed++;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_VIRTUAL, &it, NULL);

    CHECK_EQ_INT(failed, 0);
    CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
    CHECK_EQ_INT(e.n_kernels, KERNELS);
    CHECK_EQ_INT(e.device_time_total_ns, 10LL * KERNELS);
    prof_events_free(ev);

    /* the tail kept right: lists of two events appended in turn, and a
       list that _remove_dup_nodes moved to the parent ("a" in "a": the
       child's kernels go up in place of the parent's), appended to after
       the move: the new kernels are the parent's own, which the merge
       replaces as long as it stands (what the same kernels appended
       before the read give) and which show once the parent has a second
       child ("c", added last: the list analysed again from every event) */
    ev = prof_events_create();
    memset(&d, 0, sizeof d);
    d.thread = 1;
    d.name = "a"; d.start_ns = 0; d.end_ns = 1000;
    CHECK_EQ_INT(prof_events_add(ev, &d), 0);
    d.name = "a"; d.start_ns = 100; d.end_ns = 900;
    CHECK_EQ_INT(prof_events_add(ev, &d), 1);
    d.name = "b"; d.start_ns = 2000; d.end_ns = 3000;
    CHECK_EQ_INT(prof_events_add(ev, &d), 2);
    CHECK_EQ_INT(prof_events_set_device(ev, "cuda"), PROF_OK);
    for (i = 0; i < 5; i++) {
        CHECK_EQ_INT(prof_events_append_kernel(ev, 1, "k1", 0, 1), PROF_OK);
        CHECK_EQ_INT(prof_events_append_kernel(ev, 2, "k2", 0, 100), PROF_OK);
    }
    CHECK_EQ_INT(prof_events_append_kernel(ev, 0, NULL, 0, 1), PROF_E_ARG); /* a name is needed */
    CHECK_EQ_INT(prof_events_build_tree(ev), PROF_OK); /* the inner "a" merged into the outer */
    CHECK_EQ_INT(prof_events_count(ev), 2);
    for (i = 0; i < 3; i++) CHECK_EQ_INT(prof_events_append_kernel(ev, 0, "k0", 0, 10000), PROF_OK);
    CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
    CHECK_EQ_INT(e.n_kernels, 5); /* the inner a's, merged */
    CHECK_EQ_INT(e.device_time_total_ns, 5);
    CHECK_EQ_INT(prof_events_get(ev, 1, &e), PROF_OK);
    CHECK_EQ_INT(e.n_kernels, 5);
    CHECK_EQ_INT(e.device_time_total_ns, 500);
    d.name = "c"; d.start_ns = 950; d.end_ns = 990;
    CHECK(prof_events_add(ev, &d) >= 0);
    CHECK_EQ_INT(prof_events_count(ev), 4);
    CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
    CHECK_EQ_STR(e.name, "a");
    CHECK_EQ_INT(e.n_kernels, 3); /* its own */
    CHECK_EQ_INT(e.device_time_total_ns, 30000 + 5);
    CHECK_EQ_INT(prof_events_get(ev, 1, &e), PROF_OK);
    CHECK_EQ_INT(e.start_ns, 100);
    CHECK_EQ_INT(e.n_kernels, 5);
    CHECK_EQ_INT(e.device_time_total_ns, 5);
    prof_events_free(ev);
    return check_report();
}
