/* What prof_stop's collector makes of the records, at its edges:
   - PROF_SCOPE_DYN of one name at 40 call sites (40 functions): each
     event keeps its own site (its function), however the sites fall
     in the collector's caches;
   - an async range is named by its BEGIN (its END has no name) and marked
     async; a scope of an op (PROF_SCOPE_SHAPES) is no user annotation, a
     PROF_SCOPE is;
   - a thread whose every scope the cap dropped still counts in
     prof_stats.threads;
   - a PROF_END with no PROF_BEGIN counts in unbalanced_ends, on the
     calling thread and on a thread that exited; a PROF_BEGIN left open
     counts in open_at_stop; an exited thread's open range is named and
     the total's warning says "in all" (also when only an exited thread
     left one);
   - async ends past the cap: the unmatched warning says the cap dropped
     some;
   - a scope named ProfilerStep#N, static or run-time, is a "ProfilerStep*"
     event;
   - an odd number of shape values is read as given (nothing past them);
   - prof_alloc_ex's device index reaches the memory timeline;
   - a session with nothing dropped says nothing of drops.
   Found by mutation testing (third pass). */
#include "prof.h"
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define SITE(n) static void site_fn_##n(void) { PROF_SCOPE_DYN("same_name"); }
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7) SITE(8) SITE(9)
SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15) SITE(16) SITE(17) SITE(18) SITE(19)
SITE(20) SITE(21) SITE(22) SITE(23) SITE(24) SITE(25) SITE(26) SITE(27) SITE(28) SITE(29)
SITE(30) SITE(31) SITE(32) SITE(33) SITE(34) SITE(35) SITE(36) SITE(37) SITE(38) SITE(39)
static void (*const site_fns[40])(void) = {
    site_fn_0, site_fn_1, site_fn_2, site_fn_3, site_fn_4, site_fn_5, site_fn_6, site_fn_7, site_fn_8, site_fn_9,
    site_fn_10, site_fn_11, site_fn_12, site_fn_13, site_fn_14, site_fn_15, site_fn_16, site_fn_17, site_fn_18, site_fn_19,
    site_fn_20, site_fn_21, site_fn_22, site_fn_23, site_fn_24, site_fn_25, site_fn_26, site_fn_27, site_fn_28, site_fn_29,
    site_fn_30, site_fn_31, site_fn_32, site_fn_33, site_fn_34, site_fn_35, site_fn_36, site_fn_37, site_fn_38, site_fn_39,
};

static void *capped_thread(void *arg) {
    int k;
    (void)arg;
    for (k = 0; k < 10; k++) { PROF_SCOPE("late_thread_op"); }
    return NULL;
}
static void *end_only_thread(void *arg) {
    (void)arg;
    PROF_END(); /* nothing begun */
    PROF_BEGIN("exited_open");
    return NULL;
}

int main(void) {
    prof_config c;
    prof_events *e;
    prof_stats st;
    pthread_t th;
    int k;
    mkdir("build", 0777);
    prof_set_log(check_log, NULL);

    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        for (k = 0; k < 40; k++) site_fns[k]();
        PROF_ASYNC_BEGIN("async_range", 77);
        PROF_ASYNC_END(77);
        { PROF_SCOPE("plain_scope"); }
        { PROF_SCOPE_SHAPES("op_scope", 1, 3); }
        check_log_reset();
        e = prof_stop();
        CHECK_EQ_INT(check_log_count(PROF_E_DROPPED), 0);
        if (CHECK(e != NULL)) {
            size_t i, n = prof_events_count(e);
            int seen[40], found = 0;
            prof_event ev;
            int64_t j;
            memset(seen, 0, sizeof seen);
            for (i = 0; i < n; i++) {
                if (prof_events_get(e, i, &ev) != PROF_OK || strcmp(ev.name, "same_name") != 0) continue;
                found++;
                if (CHECK(ev.func != NULL && strncmp(ev.func, "site_fn_", 8) == 0)) {
                    int fn = atoi(ev.func + 8);
                    if (CHECK(fn >= 0 && fn < 40)) seen[fn]++;
                }
            }
            CHECK_EQ_INT(found, 40);
            for (k = 0; k < 40; k++) CHECK_EQ_INT(seen[k], 1);
            j = check_find_event(e, "async_range", 0);
            if (CHECK(j >= 0)) CHECK_EQ_INT(check_get_event(e, j).is_async, 1);
            CHECK_EQ_INT(check_get_event(e, check_find_event(e, "plain_scope", 0)).is_user_annotation, 1);
            CHECK_EQ_INT(check_get_event(e, check_find_event(e, "op_scope", 0)).is_user_annotation, 0);
            prof_events_free(e);
        }
    }

    /* the cap spent by this thread: the other thread's scopes all dropped */
    memset(&c, 0, sizeof c);
    c.max_events = 4;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        for (k = 0; k < 20; k++) { PROF_SCOPE("main_op"); }
        CHECK_EQ_INT(pthread_create(&th, NULL, capped_thread, NULL), 0);
        pthread_join(th, NULL);
        e = prof_stop();
        if (CHECK(e != NULL)) {
            st = prof_events_stats(e);
            CHECK_EQ_INT(check_find_event(e, "late_thread_op", 0), -1);
            CHECK_EQ_INT(st.threads, 2);
            prof_events_free(e);
        }
    }

    /* unbalanced ends and open ranges */
    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        PROF_END(); /* nothing begun on this thread */
        CHECK_EQ_INT(pthread_create(&th, NULL, end_only_thread, NULL), 0);
        pthread_join(th, NULL);
        PROF_BEGIN("left_open");
        check_log_reset();
        e = prof_stop();
        PROF_END();
        if (CHECK(e != NULL)) {
            st = prof_events_stats(e);
            CHECK_EQ_INT(st.unbalanced_ends, 2);
            CHECK_EQ_INT(st.open_at_stop, 2);
            CHECK(check_log_has(PROF_E_OPEN_SCOPES, "exited_open"));
            CHECK(check_log_has(PROF_E_OPEN_SCOPES, "in all"));
            CHECK(check_log_has(PROF_E_UNBALANCED, "2 scope ends"));
            prof_events_free(e);
        }
    }

    /* only an exited thread's range left open: named, and the total says "in all" */
    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        CHECK_EQ_INT(pthread_create(&th, NULL, end_only_thread, NULL), 0);
        pthread_join(th, NULL);
        check_log_reset();
        e = prof_stop();
        if (CHECK(e != NULL)) {
            CHECK(check_log_has(PROF_E_OPEN_SCOPES, "exited_open"));
            CHECK(check_log_has(PROF_E_OPEN_SCOPES, "in all"));
            prof_events_free(e);
        }
    }

    /* async halves past the cap: the warning says the cap dropped some */
    memset(&c, 0, sizeof c);
    c.max_events = 5;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        for (k = 0; k < 20; k++) PROF_ASYNC_BEGIN("capped_async", k + 1);
        for (k = 0; k < 20; k++) PROF_ASYNC_END(k + 1);
        check_log_reset();
        e = prof_stop();
        if (CHECK(e != NULL)) {
            st = prof_events_stats(e);
            CHECK(st.async_dropped > 0);
            CHECK(st.unmatched_async > 0);
            CHECK(check_log_has(PROF_E_UNBALANCED, "some because the cap"));
            prof_events_free(e);
        }
    }

    /* scopes named ProfilerStep#N (a call site's or a run-time name) are
       the list's "ProfilerStep*" events, as prof_step's own */
    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        { PROF_SCOPE("ProfilerStep#9"); }
        { PROF_SCOPE_DYN("ProfilerStep#7"); }
        e = prof_stop();
        if (CHECK(e != NULL)) {
            CHECK_EQ_INT(check_find_event(e, "ProfilerStep#9", 0), -1);
            CHECK_EQ_INT(check_find_event(e, "ProfilerStep#7", 0), -1);
            CHECK(check_find_event(e, "ProfilerStep*", 1) >= 0); /* the two (no schedule: no step scope of its own) */
            prof_events_free(e);
        }
    }

    /* shapes: three values, the last DATA record half used */
    memset(&c, 0, sizeof c);
    c.record_shapes = 1;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        { PROF_SCOPE_SHAPES("odd_shapes", 1, 3, 0); }
        e = prof_stop();
        if (CHECK(e != NULL)) {
            CHECK_EQ_STR(check_get_event(e, check_find_event(e, "odd_shapes", 0)).input_shapes, "[[3], []]");
            prof_events_free(e);
        }
    }

    /* device memory by index */
    memset(&c, 0, sizeof c);
    c.profile_memory = 1;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        static char block[64];
        {
            PROF_SCOPE("alloc_op");
            prof_alloc_ex(block, 1048576, PROF_DEVICE_CUDA, 1, NULL);
        }
        prof_dealloc(block);
        e = prof_stop();
        if (CHECK(e != NULL)) {
            char *t;
            if (CHECK_EQ_INT(prof_export_memory_timeline(e, "build/test_edges3_collect_tl.json", PROF_DEVICE_CUDA, 1), PROF_OK) &&
                CHECK((t = check_read_file("build/test_edges3_collect_tl.json")) != NULL)) {
                CHECK(strstr(t, "1048576") != NULL);
                free(t);
            }
            prof_events_free(e);
        }
    }
    return check_report();
}
