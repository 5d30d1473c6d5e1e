/* A schedule's warm-up does not warm CUPTI up. torch.profiler.schedule's
   warm-up steps exist because "the overhead at the beginning of profiling
   is high and easily brings skew to the profiling result": the profiler
   starts tracing at the first warm-up step and throws those steps'
   results away, and Kineto keeps CUPTI enabled from the warm-up into the
   active steps: it enables the activities when the warm-up begins
   (CuptiActivityProfiler::configure: "Enabling CUPTI activity tracing
   incurs a larger perf hit at first ... It's therefore useful to perform
   some warmup before starting recording") and only marks the start of the
   window when recording begins. prof.h's
   prof__transit ends the warm-up like a recording (prof__end_recording:
   prof__cupti_stop, i.e. cuptiActivityDisable of each kind, a forced
   flush, cuptiUnsubscribe and cuptiFinalize) and begins the active steps
   with prof__begin_recording (cuptiSubscribe, the timestamp and buffer
   callbacks, cuptiActivityEnableAndDump and cuptiActivityEnable of each
   kind again). So the first active step pays CUPTI's start-up (on a GPU
   the first enable instruments the contexts and the first launches after
   it: what the warm-up was for), and the warm-up window's forced flush
   reports GPU work still running at the step as "not finished at
   prof_stop ... call cudaDeviceSynchronize() before prof_stop" for steps
   whose results are discarded.
   Here: schedule wait 0, warm-up 1, active 1; step 0 (warm-up) launches a
   kernel that runs into step 1; step 1 (active) launches one that ends
   in it.
   Wanted: no CUPTI call that ends or begins a CUPTI session between the
   warm-up and the active step (cuptiFinalize, cuptiSubscribe,
   cuptiActivityEnable), no warning from the discarded warm-up, the
   active step's kernel in the window's results and not the warm-up's
   (it began before the window), and CUPTI ended at prof_stop.
   A second run: the buffers CUPTI completed during the warm-up hold only
   the warm-up's records and are forgotten when the window begins
   (prof__cupti_forget_done), so nothing of the warm-up reaches the
   window's statistics. There the warm-up's buffer, completed mid-warm-up
   (as CUPTI does when a buffer fills), holds a kernel CUPTI could not
   time (start = end = 0, which no time window can place): the window
   must not count it in prof_stats.cuda_no_timestamps nor warn about it.
   (Mutation pass: dropping the prof__cupti_forget_done call went
   unnoticed.) */
#define clock_gettime test_clock_gettime /* prof.h's clock reads land in this file */
#define PROF_CLOCK_MONOTONIC 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#undef clock_gettime
#include "check.h"
#include "fake_cupti_control.h"
#include "virtual_mono.h"


static uint64_t g_no_ts;
static int g_windows, g_active_kernel, g_warmup_kernel;
static void ready(prof_events *ev, void *user) {
    size_t i;
    (void)user;
    g_windows++;
    g_no_ts = prof_events_stats(ev).cuda_no_timestamps;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, "active_kernel") == 0) g_active_kernel++;
        if (prof_events_get(ev, i, &e) == PROF_OK && strcmp(e.name, "warmup_kernel") == 0) g_warmup_kernel++;
    }
}

static void launch(const char *kernel, int64_t t, int64_t k0, int64_t k1, uint32_t corr) {
    CUpti_ActivityAPI a = fake_cupti_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, T(t), T(t + 100), corr);
    CUpti_ActivityKernel10 k = fake_cupti_kernel(kernel, T(k0), T(k1), corr);
    CHECK_EQ_INT(fake_cupti_queue_api(&a), 0);
    CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
}

/* untimed: the second run (the warm-up's buffer completed in the warm-up,
   with a kernel CUPTI could not time); at t0 ns on the virtual clock */
static void run(int untimed, int64_t t0) {
    prof_config c;
    prof_events *ev;
    int fin, sub, en, drops;
    fake_cupti_reset();
    g_no_ts = 99;
    g_windows = g_active_kernel = g_warmup_kernel = 0;
    g_base += t0;
    at(0);
    memset(&c, 0, sizeof c);
    c.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    c.schedule.warmup = 1;
    c.schedule.active = 1;
    c.on_trace_ready = ready;
    c.log = check_log;
    if (!CHECK_EQ_INT(prof_start(&c), PROF_OK)) return; /* step 0: warm-up */
    at(1000);
    if (!untimed) {
        PROF_SCOPE("warmup_step");
        launch("warmup_kernel", 1100, 1500, 12000, 1); /* runs on into step 1 */
        at(2000);
    } else {
        PROF_SCOPE("warmup_step");
        launch("warmup_kernel", 1100, 1500, 1900, 1);
        {
            CUpti_ActivityKernel10 k = fake_cupti_kernel("untimed_kernel", 0, 0, 3); /* CUPTI could not time it */
            CHECK_EQ_INT(fake_cupti_queue_kernel(&k), 0);
        }
        CHECK(fake_cupti_deliver_pending() > 0); /* the buffer filled: completed now, in the warm-up */
        at(2000);
    }
    at(10000);
    check_log_reset();
    fin = fake_cupti_call_count("cuptiFinalize");
    sub = fake_cupti_call_count("cuptiSubscribe");
    en = fake_cupti_call_count("cuptiActivityEnable");
    CHECK_EQ_INT(prof_step(), PROF_OK); /* step 1: recording */
    drops = check_log_count(PROF_E_DROPPED);
    CHECK_MSG(fake_cupti_call_count("cuptiFinalize") == fin && fake_cupti_call_count("cuptiSubscribe") == sub &&
                  fake_cupti_call_count("cuptiActivityEnable") == en,
              "from the warm-up to the active step prof.h ended CUPTI and began it again: cuptiFinalize %d, cuptiSubscribe %d, "
              "cuptiActivityEnable %d calls at the step (the warm-up is to have that cost behind)",
              fake_cupti_call_count("cuptiFinalize") - fin, fake_cupti_call_count("cuptiSubscribe") - sub,
              fake_cupti_call_count("cuptiActivityEnable") - en);
    CHECK_MSG(drops == 0, "the discarded warm-up step logged %d PROF_E_DROPPED warning(s), e.g. \"%s\"", drops,
              check_log_get(0) ? check_log_get(0)->message : "");
    at(20000);
    {
        PROF_SCOPE("active_step");
        launch("active_kernel", 20100, 20500, 21000, 2);
        at(22000);
    }
    at(30000);
    ev = prof_stop(); /* the active window's results, through on_trace_ready */
    prof_events_free(ev);
    CHECK_EQ_INT(g_windows, 1);
    CHECK_EQ_INT(g_active_kernel, 1);
    CHECK_EQ_INT(g_warmup_kernel, 0); /* it began before the window */
    CHECK_EQ_INT(g_no_ts, 0);
    CHECK_MSG(!check_log_has(PROF_E_DROPPED, "without timestamps"), "the window warned about the warm-up's untimed kernel");
    CHECK_EQ_INT(fake_cupti_call_count("cuptiFinalize"), fin + 1); /* the stop ended CUPTI */
    prof_shutdown();
}

int main(void) {
    unsetenv("FAKE_CUPTI_ENV");
    prof_set_log(check_log, NULL);
    virtual_mono_init();
    run(0, 0);
    run(1, 1000000);
    return check_report();
}
