/* With PROF_CUDA_SYNC the table's "Self CUDA %" column added up to more
   than 100%. A synchronization record ("Stream Sync", cuda_sync) was a
   device event with its duration as self CUDA time, and its row showed it
   (0.600us) with a share of "Self CUDA time total"; but the total left it
   out (prof__cug_sync flagged it PROF__F_USER_ANN, and the table sums
   self device time only over device events that are not annotations).
   Two kernels of 1 us and a 0.6 us stream sync printed: big_stream 50.00%,
   big_stream2 50.00%, Stream Sync 30.00%, "Self CUDA time total:
   2.000us". PyTorch counts cuda_sync as a CUDA event (its
   deviceTypeFromActivity maps CUDA_SYNC to CUDA, and KinetoEvent's
   isUserAnnotation is true only for USER_ANNOTATION and
   GPU_USER_ANNOTATION), linked to its op like a kernel, so its total is
   2.600us and the shares 38.46%, 38.46%, 23.08%.
   Wanted: as PyTorch: "Self CUDA time total" equals the sum of the Self
   CUDA times of the rows of CUDA events (2.600us), and op's CUDA time
   holds the sync's 0.6 us. */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"
#include "virtual_mono.h"


static void q_rt(CUpti_CallbackId cbid, int64_t s, int64_t e, uint32_t corr) {
    CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, cbid, T(s), T(e), corr);
    CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
}

int main(void) {
    prof_config c;
    prof_events *ev;
    prof_averages *avg;
    char *table;
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
        CUpti_ActivityKernel10 k = fake_cupti_kernel("big_stream", T(2000), T(3000), 5);
        CUpti_ActivityKernel10 k2 = fake_cupti_kernel("big_stream2", T(3000), T(4000), 6);
        CUpti_ActivitySynchronization2 s = fake_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, T(4000), T(4600), 7);
        s.contextId = k.contextId;
        s.streamId = k.streamId;
        q_rt(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1100, 1200, 5);
        q_rt(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1300, 1400, 6);
        q_rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1500, 4700, 7);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        CHECK_EQ_INT(fake_cupti_queue_kernel(&k2), 0);
        CHECK_EQ_INT(fake_cupti_queue_sync(&s), 0);
        at(5000);
    }
    at(6000);
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    avg = prof_key_averages(ev, NULL);
    table = prof_averages_table(avg, NULL);
    if (CHECK(avg != NULL && table != NULL)) {
        size_t i;
        int64_t sum = 0;
        double total_us = -1;
        const char *p = strstr(table, "Self CUDA time total: ");
        /* PyTorch's total: the self device time of the device events' rows */
        for (i = 0; i < prof_averages_count(avg); i++)
            if (prof_averages_get(avg, i)->device_type != PROF_DEVICE_CPU) sum += prof_averages_get(avg, i)->self_device_time_total_ns;
        if (p) total_us = strtod(p + 22, NULL);
        CHECK_MSG(total_us >= 0 && (int64_t)(total_us * 1000 + 0.5) == sum,
                  "\"Self CUDA time total: %.3fus\" but the CUDA rows' Self CUDA times add up to %.3fus:\n%s", total_us, sum / 1000.0, table);
        CHECK_EQ_INT(sum, 2600);
        CHECK(strstr(table, "38.46%") != NULL && strstr(table, "23.08%") != NULL);
        for (i = 0; i < prof_averages_count(avg); i++)
            if (strcmp(prof_averages_get(avg, i)->key, "op") == 0) CHECK_EQ_INT(prof_averages_get(avg, i)->device_time_total_ns, 2600);
    }
    free(table);
    prof_averages_free(avg);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
