/* The JSON writer's escapes and UTF-8 repair, byte for byte:
   - DEL is written \u007f (in a name and inside a metadata value given as
     JSON), a tab \t, other control bytes \u00XX with the high digit first;
   - a backslash in an event name, a stack frame and an overload name
     is escaped (the last two go through the writer's cache of clean
     strings);
   - an overlong 2-byte lead (C0 80), a surrogate (ED A0 80) and a code
     point past U+10FFFF (F4 90 80 80) are replaced by U+FFFD, never
     written through (one per byte: none of them starts a sequence that
     could have been valid past its first byte, or its second);
   - maximal subparts: F0 90 80 cut short is one U+FFFD, E2 followed by a
     byte that cannot continue it is U+FFFD for E2 and another for that byte;
   - an export to a pipe with no reader fails with the stream's message;
   - a counter sample of -infinity is written null (the trace stays JSON),
     and a finite one as its value.
   Found by mutation testing (third pass). */
#include "prof.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACE "build/test_edges3_writer.json"

/* The trace's "name" string of the event whose name is `name`, escaped as written: found by a prefix. */
static int has(const char *t, const char *s) { return strstr(t, s) != NULL; }

int main(void) {
    prof_events *e;
    char *t;
    int64_t ts = 0;
    static const char *const names[] = {
        "del\x7f" "end", "tab\tend", "ctl\x01" "end", "back\\slash", "over\xc0\x80" "end", "surr\xed\xa0\x80" "end",
        "big\xf4\x90\x80\x80" "end", "cut4\xf0\x90\x80" "A", "cut3\xe2\xc0" "B",
    };
    size_t i;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);
    e = prof_events_create();
    for (i = 0; i < sizeof names / sizeof *names; i++, ts += 100) check_add_event(e, names[i], 1, ts, ts + 50);
    CHECK_EQ_INT(prof_events_add_metadata_json(e, "d", "\"a\x7f" "b\""), PROF_OK);
    {
        /* a stack frame and an overload name with a backslash (written through the writer's cache of clean strings) */
        static const char *const stk[] = { "fr\\ame" };
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = "with_stack";
        d.thread = 1;
        d.start_ns = ts;
        d.end_ns = ts + 50;
        d.stack = stk;
        d.stack_depth = 1;
        d.overload_name = "ov\\er";
        CHECK(prof_events_add(e, &d) >= 0);
        CHECK(prof_events_add(e, &d) >= 0);
    }
    if (CHECK_EQ_INT(prof_export_chrome_trace(e, TRACE), PROF_OK) && CHECK((t = check_read_file(TRACE)) != NULL)) {
        CHECK_EQ_INT(prof_json_valid(t), 1);
        CHECK(has(t, "\"del\\u007fend\""));
        CHECK(has(t, "\"tab\\tend\""));
        CHECK(has(t, "\"ctl\\u0001end\""));
        CHECK(has(t, "\"back\\\\slash\""));
        CHECK(has(t, "\"over\\ufffd\\ufffdend\""));
        CHECK(has(t, "\"surr\\ufffd\\ufffd\\ufffdend\""));
        CHECK(has(t, "\"big\\ufffd\\ufffd\\ufffd\\ufffdend\""));
        CHECK(has(t, "\"cut4\\ufffdA\""));
        CHECK(has(t, "\"cut3\\ufffd\\ufffdB\""));
        CHECK(has(t, "\"d\": \"a\\u007fb\""));
        CHECK(has(t, "\"fr\\\\ame;\"")); /* (each Call stack entry ends in ';', as PyTorch's stacksToStr) */
        CHECK(has(t, "\"ov\\\\er\""));
        CHECK(strchr(t, 0x7f) == NULL);
        free(t);
    }
    {
        /* a pipe whose reader is gone: the stream's message (what was sent stays sent) */
        int fds[2];
        char path[64];
        if (CHECK(pipe(fds) == 0)) {
            close(fds[0]);
            snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
            check_log_reset();
            CHECK_EQ_INT(prof_export_chrome_trace(e, path), PROF_E_IO);
            CHECK(check_log_has(PROF_E_IO, "written as it goes"));
            close(fds[1]);
        }
    }
    prof_events_free(e);

    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        PROF_COUNTER("neg_inf", -HUGE_VAL);
        PROF_COUNTER("pos_inf", HUGE_VAL);
        PROF_COUNTER("plain_value", 12.625);
        { PROF_SCOPE("op"); }
        e = prof_stop();
        if (CHECK(e != NULL)) {
            if (CHECK_EQ_INT(prof_export_chrome_trace(e, TRACE), PROF_OK) && CHECK((t = check_read_file(TRACE)) != NULL)) {
                CHECK_EQ_INT(prof_json_valid(t), 1);
                CHECK(strstr(t, "inf") == NULL || strstr(t, "neg_inf") != NULL);
                CHECK(!has(t, "-inf") && !has(t, "e+308") && !has(t, "-1.79"));
                CHECK(has(t, "12.625"));
                free(t);
            }
            prof_events_free(e);
        }
    }
    return check_report();
}
