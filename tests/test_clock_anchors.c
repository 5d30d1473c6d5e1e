/* The session's anchors in the other clocks, found by the timing-accuracy
   probe:
   - the wall clock (the JSON's baseTimeNanoseconds, pprof's time_nanos)
     was read on its own after the TSC/MONOTONIC pair that is time 0: some
     tens of ns late always, and a whole preemption late (0.25 ms seen)
     when the thread lost the CPU in between. Expected: the wall clock at
     time 0 itself, read between two reads of MONOTONIC and moved to the
     pair's time;
   - the Perfetto trace names its times CLOCK_BOOTTIME (clock 6, the clock
     of the kernel's tracers, with which trace_processor lines it up) but
     they were the wall clock's, and its clock snapshot gave BOOTTIME and
     REALTIME one value: 56 years apart from a kernel trace of the same
     boot. Expected: BOOTTIME times, and REALTIME in the snapshot at the
     wall clock's value for the same moment.
   The clocks are the test's own (clock_gettime and nanosleep renamed in
   this file): every read moves them 1000 ns, REALTIME and BOOTTIME are
   MONOTONIC plus constants, so the exact answers are known. */
#define _GNU_SOURCE 1
#include <stdint.h>
#include <time.h>
#define clock_gettime test_clock_gettime
#define nanosleep test_nanosleep
int test_clock_gettime(clockid_t clk, struct timespec *ts);
int test_nanosleep(const struct timespec *req, struct timespec *rem);
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#undef clock_gettime
#undef nanosleep

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define REAL_MINUS_MONO 1700000000123456789LL
#define BOOT_MINUS_MONO 5000000000777LL
static int64_t g_v = 1000000000000LL; /* MONOTONIC, ns */
int test_clock_gettime(clockid_t clk, struct timespec *ts) {
    int64_t v = __atomic_add_fetch(&g_v, 1000, __ATOMIC_SEQ_CST);
    if (clk == CLOCK_REALTIME) v += REAL_MINUS_MONO;
    else if (clk == (clockid_t)7) v += BOOT_MINUS_MONO; /* CLOCK_BOOTTIME */
    else if (clk != CLOCK_MONOTONIC) return clock_gettime(clk, ts);
    ts->tv_sec = (time_t)(v / 1000000000);
    ts->tv_nsec = (long)(v % 1000000000);
    return 0;
}
int test_nanosleep(const struct timespec *req, struct timespec *rem) {
    (void)rem;
    __atomic_add_fetch(&g_v, (int64_t)req->tv_sec * 1000000000 + req->tv_nsec, __ATOMIC_SEQ_CST);
    return 0;
}

/* The clocks of the first ClockSnapshot in a Perfetto file: REALTIME (1)
   and BOOTTIME (6); 0 where absent. */
static void snapshot_clocks(const char *path, uint64_t *real, uint64_t *boot) {
    size_t len = 0;
    char *data = check_read_file_n(path, &len);
    check_pb b, pkt, sub, cs, c;
    unsigned f, g, h;
    int wt, w2, w3, done = 0;
    uint64_t v, x, y;
    *real = *boot = 0;
    if (!CHECK(data != NULL)) return;
    b.p = (const unsigned char *)data;
    b.end = b.p + len;
    while (!done && check_pb_next(&b, &f, &wt, &v, &pkt)) {
        if (f != 1 || wt != 2) continue;
        while (check_pb_next(&pkt, &g, &w2, &x, &cs)) {
            if (g != 6 || w2 != 2) continue; /* TracePacket.clock_snapshot */
            while (check_pb_next(&cs, &h, &w3, &y, &c)) {
                unsigned k; int w4; uint64_t id = 0, ts = 0, z; check_pb s4;
                if (h != 1 || w3 != 2) continue; /* clocks */
                while (check_pb_next(&c, &k, &w4, &z, &s4)) {
                    if (k == 1 && w4 == 0) id = z;
                    if (k == 2 && w4 == 0) ts = z;
                }
                if (id == 1) *real = ts;
                if (id == 6) *boot = ts;
            }
            done = 1;
        }
    }
    (void)sub;
    free(data);
}

int main(void) {
    prof_events *ev;
    prof_event e;
    char *js;
    uint64_t real = 0, boot = 0;
    long long base = 0;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    if (!CHECK_EQ_INT(prof_start(NULL), PROF_OK)) return check_report();
    { PROF_SCOPE("work"); }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    if (!CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK)) return check_report();
    /* the wall clock at time 0: MONOTONIC's there plus the constant */
    if (CHECK_EQ_INT(prof_export_chrome_trace(ev, "build/test_clock_anchors.json"), PROF_OK) &&
        CHECK((js = check_read_file("build/test_clock_anchors.json")) != NULL)) {
        const char *p = strstr(js, "\"baseTimeNanoseconds\": ");
        if (CHECK(p != NULL)) sscanf(p + strlen("\"baseTimeNanoseconds\": "), "%lld", &base);
        CHECK_EQ_INT(base - prof__g.mono_start, REAL_MINUS_MONO);
        free(js);
    }
    /* Perfetto: BOOTTIME, with the wall clock of the same moment beside it */
    if (CHECK_EQ_INT(prof_export_perfetto(ev, "build/test_clock_anchors.pftrace"), PROF_OK)) {
        snapshot_clocks("build/test_clock_anchors.pftrace", &real, &boot);
        CHECK(real != 0 && boot != 0);
        CHECK_EQ_INT((int64_t)(real - boot), REAL_MINUS_MONO - BOOT_MINUS_MONO);
        /* both at the trace's first time, as far from the session's start */
        CHECK_EQ_INT((int64_t)real - base, (int64_t)boot - prof__g.mono_start - BOOT_MINUS_MONO);
        CHECK((int64_t)real - base <= e.start_ns);
    }
    prof_events_free(ev);
    return check_report();
}
