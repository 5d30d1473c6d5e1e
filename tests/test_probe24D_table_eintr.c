/* A table printed to a pipe (a program's stdout into `less`, `tee`, a CI
   log collector) while the host has a signal handler installed without
   SA_RESTART (SIGALRM of a timer, SIGCHLD, another profiler's SIGPROF)
   fails with PROF_E_IO "table: writing the table failed: Interrupted
   system call" and a cut table, whenever the pipe is full when a signal
   comes: prof__print writes through fwrite, and stdio reports the EINTR of
   its write(2) (and drops what its buffer held). prof.h's own writes
   retry EINTR (prof__write_all); the table's do not. Seen without any
   setup as well: a 290 kB table to a pipe whose reader takes 4 kB per
   0.3 ms, SIGALRM every 0.5 ms, failed 4 times in 5.
   Here made certain: the pipe is full before the call and its reader
   (signals blocked) starts to drain it only after the main thread has
   taken 20 SIGALRMs (one per ms), so the table's first write blocks and
   is interrupted. The call must succeed, the reader then getting the
   host's bytes before it and the whole table. (A fix: for a stream with a
   descriptor, fflush it and write the table with prof__write_all.) */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int g_sigs; /* SIGALRMs taken (the handler runs on the main thread; the reader reads it) */
static void on_alarm(int s) { (void)s; __atomic_add_fetch(&g_sigs, 1, __ATOMIC_SEQ_CST); }
static int sigs(void) { return __atomic_load_n(&g_sigs, __ATOMIC_SEQ_CST); }

typedef struct { int fd; char *buf; size_t n, cap; } reader_t;
static void *reader(void *arg) {
    reader_t *r = (reader_t *)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    while (sigs() < 20) usleep(200);
    for (;;) {
        ssize_t k;
        if (r->cap - r->n < 65536) {
            char *b = (char *)realloc(r->buf, r->cap * 2 + 65536);
            if (!b) break;
            r->buf = b;
            r->cap = r->cap * 2 + 65536;
        }
        k = read(r->fd, r->buf + r->n, 65536);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        r->n += (size_t)k;
    }
    return NULL;
}

int main(void) {
    prof_events *ev = prof_events_create();
    struct sigaction sa;
    struct itimerval it, off;
    reader_t r;
    pthread_t th;
    int fds[2], fl;
    size_t i, filled = 0, tn;
    char *want, fill[4096];
    FILE *f;
    prof_result res;
    prof_set_log(check_log, NULL);
    if (!CHECK(ev != NULL)) return check_report();
    for (i = 0; i < 300; i++) {
        prof_event_desc d;
        char name[32];
        memset(&d, 0, sizeof d);
        snprintf(name, sizeof name, "op%u", (unsigned)i);
        d.name = name;
        d.thread = 1;
        d.start_ns = (int64_t)i * 100;
        d.end_ns = d.start_ns + 50;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    want = prof_events_table(ev, NULL);
    if (!CHECK(want != NULL && pipe(fds) == 0)) return check_report();
    tn = strlen(want);
    /* fill the pipe */
    memset(fill, 'F', sizeof fill);
    fl = fcntl(fds[1], F_GETFL);
    fcntl(fds[1], F_SETFL, fl | O_NONBLOCK);
    for (;;) {
        ssize_t k = write(fds[1], fill, sizeof fill);
        if (k <= 0) break;
        filled += (size_t)k;
    }
    fcntl(fds[1], F_SETFL, fl);
    memset(&r, 0, sizeof r);
    r.fd = fds[0];
    if (!CHECK(pthread_create(&th, NULL, reader, &r) == 0)) return check_report();
    f = fdopen(fds[1], "w");
    if (!CHECK(f != NULL)) return check_report();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; /* no SA_RESTART */
    sigaction(SIGALRM, &sa, NULL);
    memset(&it, 0, sizeof it);
    it.it_interval.tv_usec = 1000;
    it.it_value.tv_usec = 1000;
    setitimer(ITIMER_REAL, &it, NULL);
    check_log_reset();
    res = prof_events_print_table(f, ev, NULL);
    while (sigs() < 20) usleep(200); /* (a table printed already: the reader must start anyway) */
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_REAL, &off, NULL);
    CHECK_MSG(res == PROF_OK, "prof_events_print_table to a full pipe, interrupted by a signal: %d (%s)", (int)res, prof_last_error());
    fclose(f);
    pthread_join(th, NULL);
    close(fds[0]);
    CHECK_MSG(r.n == filled + tn && r.buf && memcmp(r.buf + filled, want, tn) == 0,
              "the reader got %zu bytes after the %zu of the filler; the table has %zu", r.n - filled, filled, tn);
    free(r.buf);
    prof_free_string(want);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
