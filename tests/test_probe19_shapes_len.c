/* PROF_SCOPE_ARGS with a prof_args.shapes_len past the 64 values a scope
   can carry (or negative) recorded no shapes at all and said nothing: the
   op looked like one without input shapes, and prof_stats.malformed_shapes
   (whose warning tells the user their shapes are wrong) stayed 0. Such a
   list is now counted as malformed and shows [[]]; 64 values still work. */
#include "prof.h"
#include "check.h"

#include <string.h>

static void op(const int64_t *shapes, int len) {
    prof_args a;
    memset(&a, 0, sizeof a);
    a.shapes = shapes;
    a.shapes_len = len;
    {
        PROF_SCOPE_ARGS("aten::cat", &a);
    }
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_event e;
    prof_stats st;
    int64_t vals[100];
    int i;
    /* 32 inputs of one dim each: 64 values */
    for (i = 0; i < 100; i++) vals[i] = i % 2 == 0 ? 1 : i;
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    op(vals, 64);
    op(vals, 65);
    op(vals, 100);
    op(vals, -3);
    op(vals, 2);
    op(vals, 0);
    ev = prof_stop();
    CHECK(ev != NULL);
    if (!ev) return check_report();
    CHECK_EQ_INT(prof_events_count(ev), 6);
    st = prof_events_stats(ev);
    CHECK_EQ_INT((int)st.malformed_shapes, 3);
    CHECK_EQ_INT(check_log_count(PROF_E_ARG), 1);
    if (prof_events_count(ev) == 6) {
        CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
        CHECK(e.input_shapes && strncmp(e.input_shapes, "[[1], [3], [5], ", 16) == 0 && strstr(e.input_shapes, "[63]]") != NULL);
        for (i = 1; i <= 3; i++) {
            CHECK_EQ_INT(prof_events_get(ev, (size_t)i, &e), PROF_OK);
            CHECK_EQ_STR(e.input_shapes, "[[]]");
        }
        CHECK_EQ_INT(prof_events_get(ev, 4, &e), PROF_OK);
        CHECK_EQ_STR(e.input_shapes, "[[1]]");
    }
    prof_events_free(ev);
    return check_report();
}
