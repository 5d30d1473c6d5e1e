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

    /* Lengths around the copy's 16-byte records (15, 16, 17 bytes and the
       NUL), one of 4095 (the longest copied into the records) and one of
       5000 (the thread's name table), all from one reused buffer, with
       shapes and FLOPs around them; and the same name twice is one string. */
    {
        static const size_t lens[] = { 1, 15, 16, 17, 31, 32, 4095, 5000 };
        const size_t nlens = sizeof lens / sizeof lens[0];
        char *big = (char *)malloc(5001), *want = (char *)malloc(5001);
        size_t i, j;
        CHECK(big && want);
        if (!big || !want) { free(big); free(want); return check_report(); }
        cfg.record_shapes = 1;
        cfg.with_flops = 1;
        CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
        for (j = 0; j < 2; j++) {
            for (i = 0; i < nlens; i++) {
                int64_t shapes[3] = { 2, 4, 8 };
                prof_args a;
                memset(big, 'a' + (int)i, lens[i]);
                big[lens[i]] = 0;
                big[lens[i] / 2] = '~'; /* not one repeated byte */
                memset(&a, 0, sizeof a);
                a.overload_name = big;
                a.shapes = shapes;
                a.shapes_len = 3;
                a.flops = 100 + (int64_t)i;
                {
                    PROF_SCOPE_ARGS("aten::mm", &a);
                }
                memset(big, 'Z', lens[i]); /* the caller's buffer changes once the scope ended */
            }
        }
        ev = prof_stop();
        CHECK(ev != NULL);
        CHECK_EQ_INT(prof_events_count(ev), 2 * nlens);
        if (prof_events_count(ev) == 2 * nlens) {
            const char *first[8] = { 0 };
            for (j = 0; j < 2; j++) {
                for (i = 0; i < nlens; i++) {
                    CHECK_EQ_INT(prof_events_get(ev, j * nlens + i, &e), PROF_OK);
                    memset(want, 'a' + (int)i, lens[i]);
                    want[lens[i]] = 0;
                    want[lens[i] / 2] = '~';
                    CHECK_MSG(strcmp(e.overload_name, want) == 0, "overload name of %zu bytes: got %zu bytes", lens[i], strlen(e.overload_name));
                    CHECK_EQ_INT(e.flops, 100 + (int64_t)i);
                    CHECK_EQ_STR(e.input_shapes, "[[4, 8]]");
                    if (j == 0) first[i] = e.overload_name;
                    else CHECK(first[i] == e.overload_name);
                }
            }
        }
        prof_events_free(ev);
        free(big);
        free(want);
    }
    return check_report();
}
