/* A table printed to a stream that is a pipe (prof__print: `./prog | tee
   log`, a supervisor that reads the program's stdout) first flushes what
   the host left in the stream's buffer, then writes the table with
   prof__write_all, which retries EINTR. The flush does not: when the
   pipe is full (its reader is slow) the flush blocks in write(2), a
   signal whose handler has no SA_RESTART (a profiling or watchdog timer,
   SIGALRM, SIGCHLD with sigaction defaults) ends it with EINTR, and
   prof__print gives up: PROF_E_IO "table: writing the table failed:
   Interrupted system call", and the table is never written. Everywhere
   else prof.h takes EINTR as no failure (open, close, write, the FIFO's
   open); the manual's prof_report says the table is written or fails
   with the stream's error, not for a signal.
   In a child: stdout is a pipe filled to the brim, "before\n" waits in
   stdout's buffer, a one-shot SIGALRM (no SA_RESTART) comes 300 ms into
   the call, and only then does a reader thread drain the pipe. The call
   must return PROF_OK and the table must come out whole. (glibc's fflush
   drops the buffer's bytes on EINTR, so "before" can only be kept by
   holding signals around the flush; only the table is required here.) */
#define _GNU_SOURCE
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int g_sig; /* (atomic: the reader thread polls it) */
static int g_rd;
static size_t g_fill;
static char *g_got;
static size_t g_ngot;
static void on_alarm(int s) {
    int saved = errno; /* (a handler keeps errno) */
    (void)s;
    __atomic_store_n(&g_sig, 1, __ATOMIC_SEQ_CST);
    errno = saved;
}

static void *reader(void *arg) {
    static char buf[65536];
    size_t skip = g_fill;
    ssize_t k;
    (void)arg;
    while (!__atomic_load_n(&g_sig, __ATOMIC_SEQ_CST)) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    while ((k = read(g_rd, buf, sizeof buf)) != 0) {
        size_t from = 0;
        if (k < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (skip) {
            from = skip < (size_t)k ? skip : (size_t)k;
            skip -= from;
        }
        g_got = (char *)realloc(g_got, g_ngot + ((size_t)k - from) + 1);
        if (!g_got) return NULL;
        memcpy(g_got + g_ngot, buf + from, (size_t)k - from);
        g_ngot += (size_t)k - from;
        g_got[g_ngot] = 0;
    }
    return NULL;
}

/* 'y' good; 'r' the call failed; 't' the table did not come out whole */
static prof_events *g_ev;
static char *g_table;
static char child(void) {
    int p[2], fl, saved;
    pthread_t th;
    sigset_t alrm, old;
    struct sigaction sa;
    struct itimerval it;
    prof_table_options t;
    prof_result r;
    static char junk[4096];
    if (pipe(p) != 0) return 'p';
    saved = dup(1);
    if (saved < 0 || dup2(p[1], 1) < 0) return 'p';
    close(p[1]);
    g_rd = p[0];
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    /* fill the pipe */
    fl = fcntl(1, F_GETFL);
    fcntl(1, F_SETFL, fl | O_NONBLOCK);
    memset(junk, 'j', sizeof junk);
    for (;;) {
        ssize_t k = write(1, junk, sizeof junk);
        if (k > 0) { g_fill += (size_t)k; continue; }
        if (k < 0 && errno == EAGAIN) {
            k = write(1, junk, 1); /* the last bytes a page leaves */
            if (k == 1) { g_fill++; continue; }
        }
        break;
    }
    fcntl(1, F_SETFL, fl);
    /* the reader takes no signal */
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alrm, &old);
    if (pthread_create(&th, NULL, reader, NULL) != 0) return 'p';
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; /* no SA_RESTART */
    sigaction(SIGALRM, &sa, NULL);
    printf("before\n");
    memset(&it, 0, sizeof it);
    it.it_value.tv_usec = 300000;
    setitimer(ITIMER_REAL, &it, NULL);
    memset(&t, 0, sizeof t);
    r = prof_events_print_table(stdout, g_ev, &t);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    __atomic_store_n(&g_sig, 1, __ATOMIC_SEQ_CST);
    pthread_join(th, NULL);
    if (r != PROF_OK) {
        fprintf(stderr, "prof_events_print_table to a full pipe, SIGALRM without SA_RESTART: %d (%s)\n", (int)r, prof_last_error());
        return 'r';
    }
    if (!g_got || !strstr(g_got, g_table)) {
        fprintf(stderr, "the pipe got %zu bytes after the fill, without the whole table\n", g_ngot);
        return 't';
    }
    return 'y';
}
static void release(void) {}

int main(void) {
    prof_event_desc d;
    prof_table_options t;
    int status = 0;
    char got;
    prof_set_log(check_log, NULL);
    g_ev = prof_events_create();
    if (!CHECK(g_ev != NULL)) return check_report();
    memset(&d, 0, sizeof d);
    d.name = "op";
    d.thread = 1;
    d.start_ns = 1000;
    d.end_ns = 2234567;
    CHECK(prof_events_add(g_ev, &d) >= 0);
    memset(&t, 0, sizeof t);
    g_table = prof_events_table(g_ev, &t);
    if (!CHECK(g_table != NULL)) return check_report();
    got = check_fork_verdict(child, release, &status);
    CHECK_MSG(got == 'y', "table to a full pipe with a signal during the flush: verdict '%c' (r: the call failed; t: no whole table; p: setup; 0: the child died, status %d)", got ? got : '0', status);
    prof_free_string(g_table);
    prof_events_free(g_ev);
    return check_report();
}
