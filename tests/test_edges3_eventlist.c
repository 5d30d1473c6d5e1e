/* The edges of the hand-built list's checks (prof_events_add,
   prof_events_append_kernel, prof_events_add_memory, prof_events_set_device):
   the last value each range takes is accepted and the first one past it
   refused, with the list left as it was:
   - device_type 0-31 (32 refused), scope 0-255 (256 refused);
   - an input with ndims -1 refused, dims NULL refused for one dim in all;
   - append_kernel on index n (one past the last event) and with a
     duration of -1 ns refused; duration 0 taken;
   - add_memory's device index 0-63 (64 refused);
   - a device name of 23 characters taken, 24 refused; '_' allowed;
   - a description's device memory alone, or its forward thread, is kept;
     kernels attach to CPU events only, a third one is listed after the
     second, and their time saturates at INT64_MAX;
   - a memory record added after the tree is in the next count, and keeps
     its device index (the timeline of cuda:1 has it);
   - stats.events counts each event added; after the tree merged a
     duplicate, an event added without a stack has none (not the stale
     stack left in the merged one's slot).
   Found by mutation testing (third pass): moving any of these bounds by
   one left every other test passing. */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static prof_event_desc desc(const char *name, int64_t s, int64_t e) {
    prof_event_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.thread = 1;
    d.start_ns = s;
    d.end_ns = e;
    return d;
}

int main(void) {
    prof_events *e;
    prof_event_desc d;
    prof_event ev;
    int nd[1];
    int64_t dims[1] = { 4 };
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    e = prof_events_create();
    CHECK(e != NULL);

    d = desc("dev31", 0, 10);
    d.device_type = (prof_device_type)31;
    CHECK(prof_events_add(e, &d) >= 0);
    d = desc("dev32", 0, 10);
    d.device_type = (prof_device_type)32;
    check_log_reset();
    CHECK_EQ_INT(prof_events_add(e, &d), -1);
    CHECK(check_log_count(PROF_E_ARG) == 1);

    d = desc("scope255", 20, 30);
    d.scope = 255;
    CHECK(prof_events_add(e, &d) >= 0);
    d = desc("scope256", 20, 30);
    d.scope = 256;
    CHECK_EQ_INT(prof_events_add(e, &d), -1);

    d = desc("ndims_minus1", 40, 50);
    d.set = PROF_EVENT_SHAPES;
    nd[0] = -1;
    d.input_shapes.n_inputs = 1;
    d.input_shapes.ndims = nd;
    d.input_shapes.dims = dims;
    CHECK_EQ_INT(prof_events_add(e, &d), -1);
    d = desc("one_dim_no_dims", 40, 50);
    d.set = PROF_EVENT_SHAPES;
    nd[0] = 1;
    d.input_shapes.n_inputs = 1;
    d.input_shapes.ndims = nd;
    d.input_shapes.dims = NULL; /* one dim to read and nowhere to read it */
    CHECK_EQ_INT(prof_events_add(e, &d), -1);
    d.input_shapes.dims = dims;
    CHECK(prof_events_add(e, &d) >= 0);

    /* the list: dev31, scope255, one_dim_no_dims (3 events) */
    CHECK_EQ_INT(prof_events_count(e), 3);
    check_log_reset();
    CHECK_EQ_INT(prof_events_append_kernel(e, 3, "k_past", 0, 5), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_append_kernel(e, 1, "k_neg", 0, -1), PROF_E_ARG);
    CHECK_EQ_INT(check_log_count(PROF_E_ARG), 2);
    CHECK_EQ_INT(prof_events_append_kernel(e, 1, "k_zero", 0, 0), PROF_OK);
    CHECK_EQ_INT(prof_events_count(e), 3);
    if (CHECK_EQ_INT(prof_events_get(e, 1, &ev), PROF_OK)) CHECK_EQ_INT(ev.n_kernels, 1);

    CHECK_EQ_INT(prof_events_add_memory(e, 1, 5, 64, PROF_DEVICE_CUDA, 63), PROF_OK);
    CHECK_EQ_INT(prof_events_add_memory(e, 1, 6, 64, PROF_DEVICE_CUDA, 64), PROF_E_ARG);

    CHECK_EQ_INT(prof_events_set_device(e, "abcdefghijklmnopqrstuvw"), PROF_OK);   /* 23 */
    CHECK_EQ_INT(prof_events_set_device(e, "abcdefghijklmnopqrstuvwx"), PROF_E_ARG); /* 24 */
    CHECK_EQ_INT(prof_events_set_device(e, "my_dev"), PROF_OK);
    CHECK_EQ_INT(prof_events_set_device(e, "my-dev"), PROF_E_ARG);

    /* the figures a description gives alone are kept: device memory,
       a forward thread (its flag with it) */
    {
        prof_events *f = prof_events_create();
        int64_t i;
        CHECK_EQ_INT(prof_events_set_device(f, "cuda"), PROF_OK);
        d = desc("devmem_only", 0, 10);
        d.device_memory_usage = 4096;
        i = prof_events_add(f, &d);
        CHECK(i >= 0);
        d = desc("fwd", 20, 30);
        d.set = PROF_EVENT_FWD_THREAD;
        d.fwd_thread = 7;
        CHECK(prof_events_add(f, &d) >= 0);
        if (CHECK_EQ_INT(prof_events_get(f, 0, &ev), PROF_OK)) CHECK_EQ_INT(ev.device_memory_usage, 4096);
        if (CHECK_EQ_INT(prof_events_get(f, 1, &ev), PROF_OK)) {
            CHECK_EQ_INT(ev.has_fwd_thread, 1);
            CHECK_EQ_INT(ev.fwd_thread, 7);
        }
        /* kernels attach to CPU events only; three kernels all listed, in order */
        d = desc("gpu_ev", 40, 50);
        d.device_type = PROF_DEVICE_CUDA;
        i = prof_events_add(f, &d);
        CHECK_EQ_INT(prof_events_append_kernel(f, (size_t)i, "k_on_gpu", 0, 5), PROF_E_ARG);
        CHECK_EQ_INT(prof_events_append_kernel(f, 1, "k1", 0, 1), PROF_OK);
        CHECK_EQ_INT(prof_events_append_kernel(f, 1, "k2", 0, 2), PROF_OK);
        CHECK_EQ_INT(prof_events_append_kernel(f, 1, "k3", 0, 4), PROF_OK);
        if (CHECK_EQ_INT(prof_events_get(f, 1, &ev), PROF_OK)) {
            CHECK_EQ_INT(ev.n_kernels, 3);
            CHECK_EQ_INT(ev.device_time_total_ns, 7);
        }
        /* kernel time saturates at INT64_MAX instead of wrapping */
        CHECK_EQ_INT(prof_events_append_kernel(f, 0, "big1", 0, INT64_MAX - 1), PROF_OK);
        CHECK_EQ_INT(prof_events_append_kernel(f, 0, "big2", 0, 10), PROF_OK);
        if (CHECK_EQ_INT(prof_events_get(f, 0, &ev), PROF_OK)) CHECK_EQ_INT(ev.device_time_total_ns, INT64_MAX);
        /* a memory record added after the tree was built is in the next count:
           outside every CPU event it is a [memory] row */
        i = (int64_t)prof_events_count(f);
        CHECK_EQ_INT(prof_events_add_memory(f, 1, 1000, 64, PROF_DEVICE_CPU, 0), PROF_OK);
        CHECK_EQ_INT(prof_events_count(f), i + 1);
        prof_events_free(f);
    }

    /* after the tree merged a duplicate (its slot freed), an event added
       without a stack has none, not the merged one's; stats.events counts
       each event added */
    {
        prof_events *f = prof_events_create();
        static const char *const stk[] = { "frameA" };
        prof_stats st;
        check_add_event(f, "one", 1, 0, 100);
        check_add_event(f, "two", 1, 200, 300);
        check_add_event(f, "three", 1, 300, 350);
        st = prof_events_stats(f);
        CHECK_EQ_INT(st.events, 3);
        check_add_event_stack(f, "dup", 1, 400, 500, stk, 1);
        check_add_event_stack(f, "dup", 1, 400, 500, stk, 1);
        CHECK_EQ_INT(prof_events_count(f), 4); /* the two "dup" merged */
        d = desc("nostack", 600, 700);
        CHECK(prof_events_add(f, &d) >= 0);
        if (CHECK_EQ_INT(prof_events_get(f, prof_events_count(f) - 1, &ev), PROF_OK)) {
            CHECK_EQ_STR(ev.name, "nostack");
            CHECK_EQ_INT(ev.stack_depth, 0);
        }
        prof_events_free(f);
    }
    /* a memory record keeps its device index: the timeline of cuda:1 has it */
    {
        prof_events *f = prof_events_create();
        char *t;
        check_add_event(f, "op", 1, 0, 100000);
        CHECK_EQ_INT(prof_events_add_memory(f, 1, 1000, 1048576, PROF_DEVICE_CUDA, 1), PROF_OK);
        if (CHECK_EQ_INT(prof_export_memory_timeline(f, "build/test_edges3_eventlist_tl.json", PROF_DEVICE_CUDA, 1), PROF_OK) &&
            CHECK((t = check_read_file("build/test_edges3_eventlist_tl.json")) != NULL)) {
            CHECK(strstr(t, "1048576") != NULL);
            free(t);
        }
        prof_events_free(f);
    }
    prof_events_free(e);
    return check_report();
}
