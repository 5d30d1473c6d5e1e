/* PROF_SCOPE_ARGS: the manual says "The pointers must stay valid until the
   scope ends", but the overload name's pointer was kept in the records and
   read at prof_stop: a name in a buffer reused after the scope ended shows
   the buffer's last text on every event, and a freed one is read after
   free (ASan: heap-use-after-free in prof__intern under prof_stop). The
   shapes, also given by pointer, are copied when the scope ends, as the
   manual says; the overload name must be too (or the manual must say it
   lives until prof_stop). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void op(const char *overload, char *buf, size_t cap) {
    prof_args a;
    snprintf(buf, cap, "%s", overload);
    memset(&a, 0, sizeof a);
    a.overload_name = buf;
    {
        PROF_SCOPE_ARGS("aten::add", &a);
    }
}

int main(void) {
    prof_config cfg;
    prof_events *ev;
    prof_event e;
    char buf[32];
    char *heap = (char *)malloc(32);
    prof_set_log(check_log, NULL);
    memset(&cfg, 0, sizeof cfg);
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    op("Tensor", buf, sizeof buf);
    op("Scalar", buf, sizeof buf);
    CHECK(heap != NULL);
    if (heap) {
        op("out", heap, 32);
        free(heap);
    }
    memset(buf, 0, sizeof buf);
    ev = prof_stop();
    CHECK(ev != NULL);
    CHECK_EQ_INT(prof_events_count(ev), 3);
    if (prof_events_count(ev) == 3) {
        CHECK_EQ_INT(prof_events_get(ev, 0, &e), PROF_OK);
        CHECK_EQ_STR(e.overload_name, "Tensor");
        CHECK_EQ_INT(prof_events_get(ev, 1, &e), PROF_OK);
        CHECK_EQ_STR(e.overload_name, "Scalar");
        CHECK_EQ_INT(prof_events_get(ev, 2, &e), PROF_OK);
        CHECK_EQ_STR(e.overload_name, "out");
    }
    prof_events_free(ev);
    return check_report();
}
