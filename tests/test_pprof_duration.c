/* pprof's duration_nanos (field 10) and time_nanos (9). duration_nanos
   spanned from 0, the session's start, to the last time; a list built by
   hand has no session, and one on the Unix clock (events near 1.765e18 ns)
   got 1,765,000,000,005,000,000 ns (56 years) for 5 ms of events. Now a
   hand-built list's span is its events' (first start to last end), and a
   session's still runs from its start. Read from the file with a small
   protobuf scan (check.h) of the Profile's top-level fields. */
#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof.h"
#include "check.h"

/* A top-level varint field's value, 0 if absent (proto3's default); -1 on
   a malformed file. */
static long long top_field(const char *path, unsigned field) {
    size_t len = 0;
    unsigned char *buf = (unsigned char *)check_read_file_n(path, &len);
    check_pb b, sub;
    unsigned f;
    int wt, bad = check_pb_bad;
    uint64_t v;
    long long got = 0;
    if (!buf) return -1;
    b.p = buf;
    b.end = buf + len;
    while (check_pb_next(&b, &f, &wt, &v, &sub))
        if (wt == 0 && f == field) got = (long long)v;
    if (check_pb_bad != bad || b.p != b.end) got = -1;
    free(buf);
    return got;
}

static void hand_built(int64_t base) {
    static const char *const outer[] = { "main (a.c:1)" }, *const inner[] = { "work (a.c:9)", "main (a.c:1)" };
    prof_events *ev = prof_events_create();
    check_add_event_stack(ev, "outer", 1, base + 1000, base + 5001000, outer, 1);
    check_add_event_stack(ev, "inner", 1, base + 2000, base + 3000, inner, 2);
    CHECK_EQ_INT(prof_export_pprof(ev, "test_pprof_duration.pb", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(top_field("test_pprof_duration.pb", 10), 5000000);
    CHECK_EQ_INT(top_field("test_pprof_duration.pb", 9), 0); /* no session: no wall-clock start */
    prof_events_free(ev);
    unlink("test_pprof_duration.pb");
}

/* A span of 1 ns is a duration (a bound of d > 1 left it out: a seeded
   mutation the suite missed). */
static void one_ns(void) {
    static const char *const st[] = { "f (a.c:7)" };
    prof_events *ev = prof_events_create();
    check_add_event_stack(ev, "op", 1, 0, 1, st, 1);
    CHECK_EQ_INT(prof_export_pprof(ev, "test_pprof_duration.pb", "self_cpu_time_total"), PROF_OK);
    CHECK_EQ_INT(top_field("test_pprof_duration.pb", 10), 1);
    prof_events_free(ev);
    unlink("test_pprof_duration.pb");
}

static void session(void) {
    prof_config cfg = {0};
    prof_events *ev;
    long long d;
    cfg.with_stack = PROF_STACK_SCOPES;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    usleep(20000);
    {
        PROF_SCOPE("late");
        usleep(1000);
    }
    ev = prof_stop();
    if (!CHECK(ev != NULL)) return;
    CHECK_EQ_INT(prof_export_pprof(ev, "test_pprof_duration.pb", "self_cpu_time_total"), PROF_OK);
    d = top_field("test_pprof_duration.pb", 10);
    /* from the session's start (20 ms before the scope) to the scope's end */
    CHECK_MSG(d >= 21000000 && d < 60000000000LL, "duration_nanos %lld", d);
    CHECK(top_field("test_pprof_duration.pb", 9) > 1600000000000000000LL);
    prof_events_free(ev);
    unlink("test_pprof_duration.pb");
}

int main(void) {
    prof_set_log(check_log, NULL);
    hand_built(1765000000000000000LL); /* the Unix clock's ns */
    hand_built(0);
    hand_built(-4000000);
    one_ns();
    session();
    printf("%ld checks failed\n", check_failures());
    return check_failures() ? 1 : 0;
}
