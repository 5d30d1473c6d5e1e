/* A scope whose clock reads go backwards: its end tick is before its
   start tick. On x86-64 prof.h times scopes with the TSC whenever CPUID
   says it is invariant, and warns (prof_start) only when it is not, that
   "times of threads on different cores may drift": a thread moved to
   another core inside a scope then reads an end before its start. The
   same happens where the TSC is invariant but the cores' counters are
   not synchronized (firmware that writes TSC_ADJUST, some multi-socket
   boards, VMs: the kernel then marks the TSC unstable and leaves it, as
   on the session-24 VM, booted with tsc=unstable, while CPUID still says
   invariant).

   prof.h turns such a record into an event that ends before it starts:
   end_ns < start_ns (prof_events_add refuses exactly that, PROF_E_ARG),
   a negative CPU total and self time in the table ("-1.004us",
   "-0.03%", the parent's self time above its total, "100.03%"), and
   "dur": -1.004 in the JSON trace, which viewers cannot draw. Expected:
   no event ends before it starts (the end clamped to the start, a
   zero-length event, or the scope counted as dropped), so no negative
   times anywhere.

   Time is virtual (clock_gettime, nanosleep and __builtin_ia32_rdtsc land
   here, as in test_probe24C_clock_slew.c); x86-64 only, elsewhere the
   test is skipped. */
#define _GNU_SOURCE
#include "fake_tsc.h"
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "fake_tsc.h"
#include "check.h"

#define TRACE "build/test_probe24C_clock_backwards.json"

#if defined(PROBE_FAKE_TSC)
#define TSC_HZ 2500000000u /* 5 ticks per 2 ns */
static uint64_t test_rdtsc(void) {
    uint64_t t;
    return fake_tsc_take(&t) ? t : fake_tsc_ticks(__atomic_load_n(&vc, __ATOMIC_SEQ_CST), TSC_HZ);
}
#endif

int main(void) {
#if defined(PROBE_FAKE_TSC)
    prof_config cfg;
    prof_events *ev;
    prof_averages *av;
    prof_stats st;
    int64_t base;
    size_t i, n;
    char *trace;
    FILE *f;
    long len;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    base = vc;
    if (!CHECK_EQ_INT(prof_start(&cfg), PROF_OK)) return check_report();
    vc = base + 1000;
    {
        PROF_SCOPE("outer");
        vc = base + 2000000;
        /* inner: the end read 2500 ticks (1 us) before the start */
        fake_tsc_force(fake_tsc_ticks(vc, TSC_HZ));
        fake_tsc_force(fake_tsc_ticks(vc, TSC_HZ) - 2500);
        { PROF_SCOPE("inner"); }
        vc = base + 4000000;
    }
    vc = base + 30000000; /* past the first stop's 20 ms fit: no wait */
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return check_report();
    n = prof_events_count(ev);
    CHECK(n >= 1);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (!CHECK_EQ_INT(prof_events_get(ev, i, &e), PROF_OK)) continue;
        CHECK_MSG(e.end_ns >= e.start_ns, "event '%s' ends at %lld ns, before it starts (%lld ns)", e.name, (long long)e.end_ns,
                  (long long)e.start_ns);
        CHECK_MSG(e.cpu_time_total_ns >= 0 && e.self_cpu_time_total_ns >= 0 && e.self_cpu_time_total_ns <= e.cpu_time_total_ns,
                  "event '%s': cpu_time_total %lld ns, self %lld ns", e.name, (long long)e.cpu_time_total_ns,
                  (long long)e.self_cpu_time_total_ns);
    }
    st = prof_events_stats(ev);
    CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
    av = prof_key_averages(ev, NULL);
    if (CHECK(av != NULL)) {
        char *t = prof_averages_table(av, NULL);
        if (CHECK(t != NULL)) {
            CHECK_MSG(!strstr(t, "-0.") && !strstr(t, "-1.") && !strstr(t, "100.03%"), "the table shows negative times:\n%s", t);
            prof_free_string(t);
        }
        prof_averages_free(av);
    }
    if (CHECK_EQ_INT(prof_export_chrome_trace(ev, TRACE), PROF_OK) && CHECK((f = fopen(TRACE, "rb")) != NULL)) {
        fseek(f, 0, SEEK_END);
        len = ftell(f);
        fseek(f, 0, SEEK_SET);
        trace = (char *)malloc((size_t)len + 1);
        if (CHECK(trace != NULL) && CHECK_EQ_INT(fread(trace, 1, (size_t)len, f), len)) {
            trace[len] = 0;
            CHECK_MSG(!strstr(trace, "\"dur\": -"), "the trace has a negative dur:\n%s", trace);
        }
        free(trace);
        fclose(f);
    }
    prof_events_free(ev);
    return check_report();
#else
    puts("test_probe24C_clock_backwards: skipped (the TSC is faked on x86-64 only)");
    return 0; /* (the plain unit test has no SKIP_RETURN_CODE) */
#endif
}
