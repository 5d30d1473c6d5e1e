/* The recorder's encoding and counts at their edges:
   - PROF_SCOPE_DYN names of every length from 1 to 80 bytes come back
     whole (the 1-3, 4-7 and 8+ byte copies; a name of a record's size,
     24 bytes, with its NUL in the next record);
   - overload names of 1 to 40 bytes likewise (16 bytes a record);
   - PROF_BEGIN ranges begun before the session (two on one entry) are
     closed by their ENDs, none counted unbalanced;
   - past a small cap: counter samples dropped count as counters, not
     marks; async records as async; marks and samples share the cap (not
     unlimited after the first share); the scopes refused are entered:
     entered == recorded + dropped + open;
   - prof_calloc records count * size bytes; prof_realloc to 0 bytes frees
     (glibc returns NULL); prof_realloc of a block prof.h never saw counts
     an unknown free;
   - prof_set_thread_name("") on an unnamed thread leaves it unnamed;
   - a forked child's events carry the child's own thread id.
   Found by mutation testing (third pass). */
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char names[81][96];

static prof_event ev_named(prof_events *e, const char *name) { return check_get_event(e, check_find_event(e, name, 0)); }

int main(void) {
    prof_config c;
    prof_events *e;
    prof_stats st;
    int n, k;
    prof_set_log(check_log, NULL);

    for (n = 1; n <= 80; n++) {
        for (k = 0; k < n; k++) names[n][k] = (char)('a' + (k * 7 + n) % 26);
        names[n][0] = (char)('A' + n % 26);
        names[n][n] = 0;
    }
    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        for (n = 1; n <= 80; n++) {
            PROF_SCOPE_DYN(names[n]);
        }
        for (n = 1; n <= 40; n++) {
            char over[48], nm[16];
            prof_args a;
            memset(&a, 0, sizeof a);
            for (k = 0; k < n; k++) over[k] = (char)('A' + (k + n) % 26);
            over[n] = 0;
            a.overload_name = over;
            snprintf(nm, sizeof nm, "ov%d", n);
            {
                PROF_SCOPE_DYN(nm);
                {
                    PROF_SCOPE_ARGS("with_overload", &a);
                }
            }
        }
        e = prof_stop();
        if (CHECK(e != NULL)) {
            for (n = 1; n <= 80; n++)
                if (!CHECK(check_find_event(e, names[n], 0) >= 0)) fprintf(stderr, "  dyn name of %d bytes lost\n", n);
            for (n = 1; n <= 40; n++) {
                char nm[16], over[48];
                prof_event p, ch;
                int64_t i;
                snprintf(nm, sizeof nm, "ov%d", n);
                for (k = 0; k < n; k++) over[k] = (char)('A' + (k + n) % 26);
                over[n] = 0;
                i = check_find_event(e, nm, 0);
                if (CHECK(i >= 0)) {
                    size_t j, cnt = prof_events_count(e);
                    p = check_get_event(e, i);
                    (void)p;
                    for (j = 0; j < cnt; j++) {
                        if (prof_events_get(e, j, &ch) == PROF_OK && ch.parent == i && strcmp(ch.name, "with_overload") == 0) break;
                    }
                    if (CHECK(j < cnt)) CHECK_EQ_STR(ch.overload_name, over);
                }
            }
            prof_events_free(e);
        }
    }

    /* two ranges begun before the session, closed in it */
    PROF_BEGIN("before1");
    PROF_BEGIN("before2");
    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        PROF_BEGIN("inside");
        PROF_END();
        PROF_END();
        PROF_END();
        e = prof_stop();
        if (CHECK(e != NULL)) {
            st = prof_events_stats(e);
            CHECK_EQ_INT(st.unbalanced_ends, 0);
            CHECK(check_find_event(e, "inside", 0) >= 0);
            prof_events_free(e);
        }
    }

    /* a cap of 8 events */
    memset(&c, 0, sizeof c);
    c.max_events = 8;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        for (k = 0; k < 100; k++) PROF_COUNTER("ctr", (double)k);
        for (k = 0; k < 100; k++) { PROF_ASYNC_BEGIN("as", k + 1); PROF_ASYNC_END(k + 1); }
        for (k = 0; k < 100; k++) { PROF_SCOPE("capped"); }
        e = prof_stop();
        if (CHECK(e != NULL)) {
            st = prof_events_stats(e);
            CHECK_EQ_INT(st.marks, 0);
            CHECK_EQ_INT(st.marks_dropped, 0);
            CHECK(st.counters_dropped > 0);
            CHECK_EQ_INT(st.counters + st.counters_dropped, 100);
            CHECK(st.counters < 100);
            CHECK(st.async_dropped > 0);
            CHECK_EQ_INT(st.async_records + st.async_dropped, 200);
            CHECK_EQ_INT(st.scopes_entered, 100);
            CHECK_EQ_INT(st.scopes_entered, st.scopes_recorded + st.scopes_dropped + st.open_at_stop);
            prof_events_free(e);
        }
    }

    /* memory */
    memset(&c, 0, sizeof c);
    c.profile_memory = 1;
    if (CHECK_EQ_INT(prof_start(&c), PROF_OK)) {
        void *p, *q = malloc(32);
        {
            PROF_SCOPE("calloc_op");
            p = prof_calloc(4, 100);
        }
        prof_free(p);
        {
            PROF_SCOPE("realloc0_op");
            p = prof_malloc(100);
            p = prof_realloc(p, 0);
        }
        prof_free(p);
        q = prof_realloc(q, 64); /* never seen by prof.h: an unknown free */
        prof_free(q);
        e = prof_stop();
        if (CHECK(e != NULL)) {
            CHECK_EQ_INT(ev_named(e, "calloc_op").cpu_memory_usage, 400);
            CHECK_EQ_INT(ev_named(e, "realloc0_op").cpu_memory_usage, 0);
            st = prof_events_stats(e);
            CHECK_EQ_INT(st.unknown_frees, 1);
            prof_events_free(e);
        }
    }

    /* an empty name on an unnamed thread */
    prof_set_thread_name("");
    if (CHECK_EQ_INT(prof_start(NULL), PROF_OK)) {
        { PROF_SCOPE("unnamed_op"); }
        e = prof_stop();
        if (CHECK(e != NULL)) {
            CHECK(ev_named(e, "unnamed_op").thread_name == NULL);
            prof_events_free(e);
        }
    }

    /* fork: the child's events carry its own id */
    {
        pid_t pid;
        int status = 0;
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid == 0) {
            int ok = 0;
            if (prof_start(NULL) == PROF_OK) {
                { PROF_SCOPE("child_op"); }
                e = prof_stop();
                if (e) {
                    int64_t i = check_find_event(e, "child_op", 0);
                    ok = i >= 0 && check_get_event(e, i).thread == (uint64_t)getpid();
                    prof_events_free(e);
                }
            }
            _exit(ok ? 0 : 3);
        }
        if (CHECK(pid > 0)) {
            CHECK(waitpid(pid, &status, 0) == pid);
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
    }
    return check_report();
}
