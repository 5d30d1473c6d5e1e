/* The host's buffered bytes when prof.h writes to the host's own stream
   or descriptor (a printed table, an export to /dev/stdout): prof.h
   flushes the host's FILE first, so that its bytes come first.
   - On a non-blocking pipe that is full for a moment, glibc's flush fails
     with EAGAIN and drops what it buffered: the table came out whole and
     PROF_OK, without the host's bytes before it. The descriptor is now
     waited on until it takes a write before the flush.
   - An export to /dev/stdout flushed stdout with SIGPIPE not held: with
     the reader gone and host bytes buffered, the flush raised SIGPIPE and
     ended the host (exit by signal 13) before the export could fail with
     PROF_E_IO. Now the host lives and the export says EPIPE.
   - The wait for room is only where the stream holds bytes and its
     descriptor was opened to write: on a pipe's read end (which never
     takes a write) an export to /dev/stdout waited forever, where it had
     failed at once with EBADF (review helper).
   Checked: every byte in order (the pipe's filling, the host's, then
   prof.h's), in the process itself for a table and in a child (whose
   stdout is the pipe) for the exports. (Coverage helper) */
#define _GNU_SOURCE
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAP (1 << 24)
static int g_rfd;
static size_t g_got;
static char *g_buf;
/* Reads the pipe to its end, after a pause: the writer meets it full. */
static void *reader(void *arg) {
    ssize_t n;
    (void)arg;
    usleep(200000);
    while ((n = read(g_rfd, g_buf + g_got, CAP - g_got)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0) g_got += (size_t)n;
    return NULL;
}
/* A non-blocking pipe filled to the brim; returns the bytes put in. */
static size_t full_pipe(int fd[2]) {
    char blk[4096];
    size_t pre = 0;
    ssize_t n;
    memset(blk, 'p', sizeof blk);
    if (pipe(fd) != 0) return 0;
    fcntl(fd[1], F_SETFL, O_NONBLOCK);
    while ((n = write(fd[1], blk, sizeof blk)) > 0) pre += (size_t)n;
    while ((n = write(fd[1], blk, 1)) > 0) pre += (size_t)n;
    return pre;
}
static prof_events *some_events(void) {
    prof_events *ev;
    int i;
    CHECK_EQ_INT(prof_start(NULL), PROF_OK);
    for (i = 0; i < 300; i++) { PROF_SCOPE_DYN(i % 2 ? "alpha_long_name_for_width" : "b"); }
    ev = prof_stop();
    CHECK(ev != NULL);
    return ev;
}
/* What came through: the filling, then `host`, then `tail` (or, with
   tail NULL, a JSON object). */
static int came_in_order(size_t pre, const char *host, const char *tail) {
    size_t h = strlen(host), k;
    for (k = 0; k < pre && k < g_got; k++)
        if (g_buf[k] != 'p') return 0;
    if (g_got < pre + h || memcmp(g_buf + pre, host, h) != 0) return 0;
    if (tail) return g_got == pre + h + strlen(tail) && memcmp(g_buf + pre + h, tail, strlen(tail)) == 0;
    return g_got > pre + h + 2 && g_buf[pre + h] == '{' && g_buf[g_got - 2] == '}' && g_buf[g_got - 1] == '\n';
}

static void table_to_full_pipe(prof_events *ev) {
    int fd[2];
    size_t pre = full_pipe(fd);
    char *table = prof_events_table(ev, NULL);
    FILE *f;
    pthread_t th;
    CHECK(pre > 0 && table != NULL);
    g_rfd = fd[0];
    g_got = 0;
    f = fdopen(fd[1], "w");
    if (!CHECK(f != NULL)) return;
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    fputs("HOST\n", f); /* buffered in f */
    CHECK_EQ_INT(pthread_create(&th, NULL, reader, NULL), 0);
    CHECK_EQ_INT(prof_events_print_table(f, ev, NULL), PROF_OK);
    fclose(f);
    pthread_join(th, NULL);
    close(fd[0]);
    if (!CHECK(came_in_order(pre, "HOST\n", table)))
        fprintf(stderr, "table: %zu bytes came, %zu expected; after the filling: %.20s\n", g_got, pre + 5 + strlen(table), g_buf + (g_got > pre ? pre : 0));
    prof_free_string(table);
}

/* In a child whose stdout is the pipe: the export's result, and whether
   its bytes came in order (2: yes). reader_gone 2: stdout is the pipe's
   read end instead (non-blocking, its write end open). */
static int child_export(prof_events *ev, int reader_gone) {
    int fd[2], vp[2], status = 0;
    char verdict[2] = { 0, 0 };
    pid_t pid;
    if (!CHECK(pipe(vp) == 0)) return -1;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        size_t pre = 0;
        pthread_t th;
        prof_result r;
        close(vp[0]);
        alarm(60); /* a wait without end fails the test */
        if (reader_gone == 2) {
            int rd[2];
            if (pipe(rd) != 0) _exit(3);
            fcntl(rd[0], F_SETFL, O_NONBLOCK);
            fd[1] = rd[0]; /* stdout below; the write end rd[1] stays open */
        } else if (reader_gone) {
            if (pipe(fd) != 0) _exit(3);
            close(fd[0]);
        } else {
            pre = full_pipe(fd);
            g_rfd = fd[0];
            g_got = 0;
            if (pthread_create(&th, NULL, reader, NULL) != 0) _exit(3);
        }
        if (dup2(fd[1], 1) != 1) _exit(3);
        close(fd[1]);
        printf("host"); /* no newline: buffered whatever stdout's mode */
        r = prof_export_chrome_trace(ev, "/dev/stdout");
        verdict[0] = (char)r;
        if (!reader_gone) {
            close(1);
            pthread_join(th, NULL);
            verdict[1] = (char)(came_in_order(pre, "host", NULL) ? 2 : 1);
        }
        if (write(vp[1], verdict, 2) != 2) _exit(4);
        _exit(0);
    }
    close(vp[1]);
    if (!CHECK(pid > 0)) return -1;
    if (read(vp[0], verdict, 2) != 2) verdict[0] = -1;
    close(vp[0]);
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) fprintf(stderr, "export to /dev/stdout: the child ended by signal %d\n", WTERMSIG(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!reader_gone) CHECK_EQ_INT(verdict[1], 2);
    return verdict[0];
}

int main(void) {
    prof_events *ev = some_events();
    g_buf = (char *)malloc(CAP);
    if (!CHECK(g_buf != NULL) || !ev) return check_report();
    table_to_full_pipe(ev);
    CHECK_EQ_INT(child_export(ev, 1), PROF_E_IO);
    CHECK_EQ_INT(child_export(ev, 2), PROF_E_IO);
    CHECK_EQ_INT(child_export(ev, 0), PROF_OK);
    prof_events_free(ev);
    free(g_buf);
    prof_shutdown();
    return check_report();
}
