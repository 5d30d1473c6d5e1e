/* An export to a pipe the host made non-blocking (O_NONBLOCK on its file
   description: an event loop's pipe, a stdout shared with a parent that set
   it) while the reader is slower than the writer. write(2) then fails with
   EAGAIN once the pipe's 64 KiB are full; prof.h took EAGAIN for an I/O
   error: the export failed half-way, after the reader had already been
   sent part of a trace. The manual says pipes and /dev/fd/N are written
   in place; a full non-blocking pipe is a wait (poll for POLLOUT), not an
   error. The reader here pauses 100 ms after the first bytes and must get the same bytes as
   a file export of the list.

   Files go to build/probe17/ (cwd = repo root). */
#define _GNU_SOURCE 1 /* before any system header: the test's own POSIX and GNU calls */
#include "prof.h"
#include "check.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUT "build/probe17"

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    char *s;
    long len;
    *n = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = (char *)malloc((size_t)len + 1);
    if (s && fread(s, 1, (size_t)len, f) != (size_t)len) { free(s); s = NULL; }
    fclose(f);
    if (s) *n = (size_t)len;
    return s;
}

int main(void) {
    prof_events *ev;
    char path[64], *want, *got;
    size_t nwant, ngot;
    int p[2], i, status = 0;
    pid_t pid;
    prof_result r;
    prof_set_log(check_log, NULL);
    mkdir("build", 0755);
    mkdir(OUT, 0755);
    /* the slow reader forks before anything is allocated (under valgrind
       the child's exit checks for leaks too); it sleeps 100 ms after the
       first bytes arrive, so the pipe fills while prof.h writes */
    CHECK(pipe(p) == 0);
    pid = fork();
    if (pid == 0) { /* copies the pipe to a file */
        char buf[4096];
        ssize_t k;
        int first = 1;
        int out = open(OUT "/nonblock_got.pftrace", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        close(p[1]);
        while ((k = read(p[0], buf, sizeof buf)) > 0) {
            if (write(out, buf, (size_t)k) != k) _exit(2);
            if (first) usleep(100 * 1000);
            first = 0;
        }
        close(out);
        _exit(0);
    }
    ev = prof_events_create();
    for (i = 0; i < 20000; i++) { /* a trace of several 64 KiB pipe buffers */
        prof_event_desc d;
        char name[32];
        memset(&d, 0, sizeof d);
        snprintf(name, sizeof name, "op_%d", i % 500);
        d.name = name;
        d.thread = 1 + (uint64_t)(i % 3);
        d.start_ns = (int64_t)i * 1000;
        d.end_ns = d.start_ns + 500;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    CHECK_EQ_INT(prof_export_perfetto(ev, OUT "/nonblock_ref.pftrace"), PROF_OK);
    want = slurp(OUT "/nonblock_ref.pftrace", &nwant);
    CHECK(want && nwant > 4 * 65536);

    close(p[0]);
    CHECK(fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK) == 0);
    snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
    r = prof_export_perfetto(ev, path);
    CHECK_MSG(r == PROF_OK, "export to a non-blocking pipe: %s", prof_last_error());
    close(p[1]);
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    got = slurp(OUT "/nonblock_got.pftrace", &ngot);
    CHECK(got != NULL);
    CHECK_EQ_INT(ngot, nwant);
    CHECK(got && want && ngot == nwant && memcmp(got, want, nwant) == 0);
    free(got);
    free(want);
    prof_events_free(ev);
    return check_report();
}
