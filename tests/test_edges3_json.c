/* prof_json_valid at its edges, and the metadata calls that use it:
   - 64 nested arrays are valid, 65 are not; {} and [] are; a key must be
     a string; false is a whole literal;
   - a string must not hold a raw byte below 0x20 (0x1f included), a
     \u needs four hex digits (the fourth checked too), and a backslash
     at the very end of the text is no escape (nothing past the NUL read);
   - a number needs digits after '.' and after 'e' (and its sign);
   - text after the value (but white space) makes it invalid;
   - "samples" and "traceEvents" are the trace's own keys (refused for a
     list and for the session); the session's calls refuse invalid JSON
     and are refused outside a session;
   - a key set as JSON and then as plain text is written as a string.
   Found by mutation testing (third pass). */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TRACE "build/test_edges3_json.json"

static char *nested(int depth) {
    char *s = (char *)malloc((size_t)depth * 2 + 1);
    int i;
    for (i = 0; i < depth; i++) { s[i] = '['; s[depth + i] = ']'; }
    s[2 * depth] = 0;
    return s;
}

int main(void) {
    static const char tail_escape[] = "\"a\\\0\""; /* "a\ then a NUL, then a quote that is not the text's */
    prof_events *e;
    char *t;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);

    t = nested(64);
    CHECK_EQ_INT(prof_json_valid(t), 1);
    free(t);
    t = nested(65);
    CHECK_EQ_INT(prof_json_valid(t), 0);
    free(t);
    CHECK_EQ_INT(prof_json_valid("{}"), 1);
    CHECK_EQ_INT(prof_json_valid(" [ ] "), 1);
    CHECK_EQ_INT(prof_json_valid("{\"a\": [1, {}]}"), 1);
    CHECK_EQ_INT(prof_json_valid("{1: 2}"), 0);
    CHECK_EQ_INT(prof_json_valid("false"), 1);
    CHECK_EQ_INT(prof_json_valid("[false, true, null]"), 1);
    CHECK_EQ_INT(prof_json_valid("\"\x1f\""), 0);
    CHECK_EQ_INT(prof_json_valid("\"\x20\""), 1);
    CHECK_EQ_INT(prof_json_valid("\"\\u12aF\""), 1);
    CHECK_EQ_INT(prof_json_valid("\"\\u123G\""), 0);
    CHECK_EQ_INT(prof_json_valid(tail_escape), 0);
    CHECK_EQ_INT(prof_json_valid("1."), 0);
    CHECK_EQ_INT(prof_json_valid("1.5"), 1);
    CHECK_EQ_INT(prof_json_valid("1e"), 0);
    CHECK_EQ_INT(prof_json_valid("1e+"), 0);
    CHECK_EQ_INT(prof_json_valid("-1.5e-3"), 1);
    CHECK_EQ_INT(prof_json_valid("1 x"), 0);
    CHECK_EQ_INT(prof_json_valid("{} {}"), 0);
    CHECK_EQ_INT(prof_json_valid(" 1 \n"), 1);

    e = prof_events_create();
    check_add_event(e, "op", 1, 0, 1000);
    CHECK_EQ_INT(prof_events_add_metadata(e, "samples", "x"), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_add_metadata(e, "traceEvents", "x"), PROF_E_ARG);
    CHECK_EQ_INT(prof_events_add_metadata_json(e, "k", "123"), PROF_OK);
    CHECK_EQ_INT(prof_events_add_metadata(e, "k", "abc"), PROF_OK);
    if (CHECK_EQ_INT(prof_export_chrome_trace(e, TRACE), PROF_OK) && CHECK((t = check_read_file(TRACE)) != NULL)) {
        CHECK(strstr(t, "\"k\": \"abc\"") != NULL);
        CHECK_EQ_INT(prof_json_valid(t), 1);
        free(t);
    }
    prof_events_free(e);

    check_log_reset();
    CHECK_EQ_INT(prof_add_metadata("outside", "x"), PROF_E_STATE);
    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        CHECK_EQ_INT(prof_add_metadata("samples", "x"), PROF_E_ARG);
        CHECK_EQ_INT(prof_add_metadata_json("bad", "{"), PROF_E_ARG);
        CHECK_EQ_INT(prof_add_metadata_json("good", "{\"n\": 1}"), PROF_OK);
        e = prof_stop();
        if (CHECK(e != NULL)) {
            if (CHECK_EQ_INT(prof_export_chrome_trace(e, TRACE), PROF_OK) && CHECK((t = check_read_file(TRACE)) != NULL)) {
                CHECK(strstr(t, "\"good\": {\"n\": 1}") != NULL);
                CHECK(strstr(t, "\"bad\"") == NULL);
                CHECK(strstr(t, "\"outside\"") == NULL);
                free(t);
            }
            prof_events_free(e);
        }
    }
    /* a counter's value reads back as the same double: 17 significant
       digits (16 wrote 0.1 + 0.2 as 0.3, another double; a seeded
       mutation the suite missed) */
    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        volatile double a = 0.1, b = 0.2;
        {
            PROF_SCOPE("op");
            PROF_COUNTER("ratio", a + b);
            PROF_COUNTER("tiny", 4.9406564584124654e-324);
        }
        e = prof_stop();
        if (CHECK(e != NULL)) {
            if (CHECK_EQ_INT(prof_export_chrome_trace(e, TRACE), PROF_OK) && CHECK((t = check_read_file(TRACE)) != NULL)) {
                const char *r = strstr(t, "\"ratio\": "), *y = strstr(t, "\"tiny\": ");
                CHECK_MSG(r && strtod(r + 9, NULL) == a + b, "0.1 + 0.2 written as %.24s", r ? r + 9 : "(no counter)");
                CHECK_MSG(y && strtod(y + 8, NULL) == 4.9406564584124654e-324, "the smallest double written as %.24s", y ? y + 8 : "(no counter)");
                free(t);
            }
            prof_events_free(e);
        }
    }
    return check_report();
}
