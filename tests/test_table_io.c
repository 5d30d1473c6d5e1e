/* test_table_io.c - a printed table (prof_events_print_table,
   prof_averages_print_table, prof_report's table) on streams that fail.

   A table printed into a pipe whose reader is gone: PROF_E_IO with
   EPIPE's text, the host alive (SIGPIPE's default action would end it), no
   SIGPIPE left pending, the signal mask as it was, and prof_report still
   writes its files after the failed table. A table small enough to stay in
   the stream's buffer still reports a full disk (/dev/full): the stream is
   flushed. Into a live pipe the whole table arrives before the call
   returns. */
#define _GNU_SOURCE 1 /* before any system header: the test's own POSIX and GNU calls */
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT "build/table_io"

/* n events of distinct names: a table of about 100 bytes a row */
static prof_events *build(size_t n) {
    prof_events *ev = prof_events_create();
    size_t i;
    if (!CHECK(ev != NULL)) return NULL;
    for (i = 0; i < n; i++) {
        char name[32];
        prof_event_desc d;
        snprintf(name, sizeof name, "op_%zu", i);
        memset(&d, 0, sizeof d);
        d.name = name;
        d.thread = 1;
        d.start_ns = (int64_t)i * 1000;
        d.end_ns = d.start_ns + 500;
        if (!CHECK(prof_events_add(ev, &d) >= 0)) { prof_events_free(ev); return NULL; }
    }
    return ev;
}

static int sigpipe_pending(void) {
    sigset_t p;
    return sigpending(&p) == 0 && sigismember(&p, SIGPIPE) == 1;
}

static void test_closed_pipe(void) {
    static const size_t sizes[] = { 3, 400 }; /* in the stream's buffer; past it */
    size_t s;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        prof_events *ev = build(sizes[s]);
        int fds[2];
        FILE *f;
        sigset_t before, after;
        prof_report_options o;
        prof_result r;
        char *trace;
        if (!ev) return;
        if (!CHECK(pipe(fds) == 0)) { prof_events_free(ev); return; }
        close(fds[0]);
        if (!CHECK((f = fdopen(fds[1], "w")) != NULL)) { close(fds[1]); prof_events_free(ev); return; }
        memset(&o, 0, sizeof o);
        o.out = f;
        o.table.row_limit = -1;
        o.chrome_trace = OUT "/after_table.json";
        unlink(o.chrome_trace);
        pthread_sigmask(SIG_SETMASK, NULL, &before);
        check_log_reset();
        r = prof_report(ev, &o);
        pthread_sigmask(SIG_SETMASK, NULL, &after);
        CHECK_MSG(r == PROF_E_IO, "table of %zu rows into a closed pipe: %d (%s)", sizes[s], (int)r, prof_result_string(r));
        CHECK_MSG(check_log_has(PROF_E_IO, strerror(EPIPE)), "no message with '%s' (last error: %s)", strerror(EPIPE), prof_last_error());
        CHECK_MSG(!sigpipe_pending(), "the table left a SIGPIPE pending");
        CHECK_MSG(sigismember(&before, SIGPIPE) == sigismember(&after, SIGPIPE), "the table changed the signal mask");
        trace = check_read_file(o.chrome_trace);
        CHECK_MSG(trace && prof_json_valid(trace), "prof_report wrote no valid trace after the failed table");
        free(trace);
        /* the stream keeps its error; closing it writes nothing more */
        {
            sigset_t set, old;
            struct timespec zero = { 0, 0 };
            sigemptyset(&set);
            sigaddset(&set, SIGPIPE);
            pthread_sigmask(SIG_BLOCK, &set, &old);
            fclose(f);
            while (sigtimedwait(&set, NULL, &zero) == SIGPIPE) {}
            pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
        prof_events_free(ev);
    }
}

static void test_full_disk(void) {
    prof_events *ev = build(3);
    FILE *f = fopen("/dev/full", "w");
    prof_averages *a;
    if (!ev || !f) {
        printf("test_full_disk: skipped (no /dev/full)\n");
        if (f) fclose(f);
        prof_events_free(ev);
        return;
    }
    check_log_reset();
    CHECK_EQ_INT(prof_events_print_table(f, ev, NULL), PROF_E_IO);
    CHECK_MSG(check_log_has(PROF_E_IO, strerror(ENOSPC)), "no message with '%s' (last error: %s)", strerror(ENOSPC), prof_last_error());
    clearerr(f);
    a = prof_key_averages(ev, NULL);
    CHECK(a != NULL);
    CHECK_EQ_INT(prof_averages_print_table(f, a, NULL), PROF_E_IO);
    prof_averages_free(a);
    fclose(f);
    prof_events_free(ev);
}

static void test_live_pipe(void) {
    prof_events *ev = build(3);
    int fds[2];
    FILE *f;
    char *want, got[8192];
    ssize_t k;
    size_t n = 0;
    if (!ev || !CHECK(pipe(fds) == 0)) { prof_events_free(ev); return; }
    want = prof_events_table(ev, NULL);
    CHECK(want != NULL);
    f = fdopen(fds[1], "w");
    CHECK(f != NULL);
    CHECK_EQ_INT(prof_events_print_table(f, ev, NULL), PROF_OK);
    CHECK(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0);
    while (n < sizeof got - 1 && (k = read(fds[0], got + n, sizeof got - 1 - n)) > 0) n += (size_t)k;
    got[n] = 0;
    CHECK_MSG(want && strcmp(got, want) == 0, "the pipe got %zu bytes before the stream was closed, the table is %zu", n, want ? strlen(want) : 0);
    prof_free_string(want);
    fclose(f);
    close(fds[0]);
    prof_events_free(ev);
}

int main(void) {
    prof_set_log(check_log, NULL);
    CHECK(mkdir("build", 0755) == 0 || errno == EEXIST);
    CHECK(mkdir(OUT, 0755) == 0 || errno == EEXIST);
    test_closed_pipe();
    test_full_disk();
    test_live_pipe();
    return check_report();
}
