/* CUDA synchronization records (PROF_CUDA_SYNC): a record names a
   context, not a device; prof.h takes the device from the kernels, copies
   and sets of that context (prof__cug_sync, settled once every buffer was
   read: prof__cug_settle_devices), and device 0 when the context ran
   none. A sync that took no time (start == end) is still a sync.
   Checked: a Context Sync of 0 ns on a context that ran nothing is kept,
   on device 0 (not -1); a Stream Sync on a context whose only kernel (on
   device 3) comes later in the buffers is on device 3. (Mutation pass:
   `s->end < s->start` made `<=`, the device fallback, the settle step and
   the kernel's context -> device entry could each go without a test
   failing.) */
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
    unsetenv("FAKE_CUPTI_ENV");
    fake_cupti_reset();
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.cuda_flags = PROF_CUDA_SYNC;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return check_report();
    at(1000);
    {
        PROF_SCOPE("op");
        CUpti_ActivitySynchronization2 ctx = fake_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, T(1500), T(1500), 31);
        CUpti_ActivitySynchronization2 str = fake_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, T(1600), T(1700), 32);
        CUpti_ActivityKernel10 k = fake_cupti_kernel("k_dev3", T(1650), T(1690), 33);
        ctx.contextId = 99; /* ran nothing */
        str.contextId = 5;
        k.contextId = 5;
        k.deviceId = 3;
        CHECK_EQ_INT(fake_cupti_queue_sync(&ctx), 0);
        CHECK_EQ_INT(fake_cupti_queue_sync(&str), 0); /* before the kernel that names its device */
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        at(2000);
    }
    at(3000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    {
        prof_event cs = check_event_named(ev, "Context Sync"), ss = check_event_named(ev, "Stream Sync"), k = check_event_named(ev, "k_dev3");
        CHECK_EQ_INT(cs.start_ns, 1500);
        CHECK_EQ_INT(cs.end_ns, 1500);
        CHECK_EQ_INT(cs.device_type, PROF_DEVICE_CUDA);
        CHECK_EQ_INT(cs.device_index, 0);
        CHECK_EQ_INT(ss.start_ns, 1600);
        CHECK_EQ_INT(ss.device_index, 3);
        CHECK_EQ_INT(k.device_index, 3);
    }
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
