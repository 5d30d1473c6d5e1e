/* A launch whose CUPTI record ends a few ns after the scope around it.
   The scopes are timed with the CPU's ticks (the TSC on x86-64), CUPTI's
   API records with CLOCK_MONOTONIC through prof.h's timestamp callback;
   prof_stop puts both on one timeline through a (tick, ns) pair read at
   prof_start (prof__clock_pair: good to within half its read window, which
   it accepts up to 2 us) and a rate fitted over the process's history. So
   the two agree to some tens or hundreds of ns, not exactly, and a scope
   that does little but launch (PROF_SCOPE("op") { k<<<...>>>(); }) ends
   within that of its launch's end.
   prof.h ties a kernel to the scope that owns its launching call's event,
   and that event's parent comes from the tree, which nests it only if it
   lies wholly inside (prof__cupti_correlate -> prof__cu_owner(e, a),
   a = the API event, walking e->ev[a].parent). A call that overhangs its
   scope by 10 ns is not the scope's child but its parent's: the kernel,
   its CUDA time and "# of kernels" go to the enclosing scope ("outer"),
   and "op" shows none. PyTorch (Kineto) ties the kernel to the op that was
   open when the call began (the external correlation id pushed at the
   op's start), whatever the clocks say about its end; prof.h does the same
   for a filtered call (prof__cu_open_at: the innermost scope open at the
   call's start), but not for a kept one such as cudaLaunchKernel.
   Here the virtual clock stands for CLOCK_MONOTONIC (PROF_CLOCK_MONOTONIC,
   as tests/test_cupti.c), and the API record is stamped [4000, 5010] ns
   inside "op" [2000, 5000].
   Wanted: "op" owns its kernel (n_kernels 1, 1 us of CUDA time, self 1
   us), "outer" owns none of its own; in the JSON trace the call and the
   kernel both carry op's "External id", as the table counts the kernel
   in op (the trace once linked the call to its tree parent, outer). A fix: in prof__cupti_correlate,
   take the owner of a kept call from prof__cu_open_at(its thread, its
   start), as for filtered calls (or clamp a CUPTI API event's end to the
   scope open at its start before the tree is built). */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"

#include "virtual_mono.h"


int main(void) {
    prof_config c;
    prof_events *ev;
    CUpti_ActivityAPI a;
    CUpti_ActivityKernel10 k;
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
        PROF_SCOPE("outer");
        at(2000);
        {
            PROF_SCOPE("op");
            /* the launch, as CUPTI stamps it: 10 ns past the scope's end */
            a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(4000), T(5010), 5);
            CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
            k = fake_cupti_kernel("op_kernel", T(6000), T(7000), 5);
            CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
            at(5000);
        }
        at(9000);
    }
    at(10000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    {
        int64_t io = check_find_event(ev, "op", 0), iu = check_find_event(ev, "outer", 0), il = check_find_event(ev, "cudaLaunchKernel", 0);
        prof_event op = check_get_event(ev, io), outer = check_get_event(ev, iu), launch = check_get_event(ev, il);
        CHECK(io >= 0 && iu >= 0 && il >= 0 && check_find_event(ev, "op_kernel", 0) >= 0);
        CHECK_MSG(op.n_kernels == 1 && op.device_time_total_ns == 1000 && op.self_device_time_total_ns == 1000,
                  "\"op\" launched op_kernel (the call began inside it, 1 us before its end) but owns %zu kernels, %lld ns of CUDA time "
                  "(self %lld); the call's record ends 10 ns after op (two clocks), so the tree made it outer's child",
                  op.n_kernels, (long long)op.device_time_total_ns, (long long)op.self_device_time_total_ns);
        CHECK_MSG(outer.self_device_time_total_ns == 0, "\"outer\" has %lld ns of self CUDA time: op's kernel",
                  (long long)outer.self_device_time_total_ns);
        /* (where the call itself nests is the tree's business: PyTorch's
           tree, by time, would not nest it in op either) */
        CHECK_EQ_INT(launch.thread, op.thread);
        mkdir("build", 0777);
        if (CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/probe24A_launch_overhang.json"), PROF_OK)) {
            char *text = check_read_file("build/probe24A_launch_overhang.json");
            if (CHECK(text != NULL)) {
                long xo = check_json_ext_id(text, "op"), xl = check_json_ext_id(text, "cudaLaunchKernel"), xk = check_json_ext_id(text, "op_kernel");
                CHECK_EQ_INT(xo, io + 1);
                CHECK_MSG(xl == xo && xk == xo, "op's External id is %ld, its launch's %ld, its kernel's %ld", xo, xl, xk);
                free(text);
            }
        }
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
