/* Exports in a process whose standard descriptors are closed (a daemon):
   prof.h holds them with /dev/null while an export lasts (so that its own
   files are not "stderr"), and gives them back after: the host's
   descriptors are as it left them. An export to a closed /dev/stderr or
   /dev/stdout still fails (EBADF), as writing there would; a file is
   written whole. And a stderr the host sets while an export holds the
   closed one (another thread's freopen or dup2) stays open after it: the
   allocator below does that at the export's first allocation once
   descriptor 2 is held. In a child, descriptors 0, 1 and 2 closed. */
#define _DEFAULT_SOURCE /* (system headers before prof.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int g_new_stderr = -1; /* >= 0: dup2'd to 2 at the first allocation that finds 2 open */
static void *hooked_malloc(size_t n) {
    if (g_new_stderr >= 0 && fcntl(2, F_GETFD) >= 0) {
        dup2(g_new_stderr, 2);
        close(g_new_stderr);
        g_new_stderr = -1;
    }
    return malloc(n);
}
#define PROF_MALLOC(n) hooked_malloc(n)
#define PROF_REALLOC(p, n) realloc(p, n)
#define PROF_FREE(p) free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

/* the child's verdict: 'y', or the letter of the first check that failed */
static char child(const char *dir) {
    char path[256];
    char *text;
    size_t n = 0;
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    int fd;
    if (!ev) return 'm';
    memset(&d, 0, sizeof d);
    d.name = "a";
    d.thread = 1;
    d.start_ns = 0;
    d.end_ns = 5000;
    if (prof_events_add(ev, &d) < 0) return 'm';
    for (fd = 0; fd < 3; fd++) close(fd);
    if (prof_export_chrome_trace(ev, "/dev/stderr") != PROF_E_IO || !strstr(prof_last_error(), strerror(EBADF))) return 's';
    if (prof_export_stacks(ev, "/dev/stdout", "self_cpu_time_total") != PROF_E_IO) return 'o';
    snprintf(path, sizeof path, "%s/t.json", dir);
    if (prof_export_chrome_trace(ev, path) != PROF_OK) return 'f';
    for (fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) return 'd'; /* given back closed */
    text = check_read_file_n(path, &n);
    if (!text || !strstr(text, "\"name\": \"a\"") || text[0] != '{') return 'j';
    free(text);
    { /* the host's new stderr, set during an export, stays */
        char log[256];
        struct stat a, b;
        snprintf(log, sizeof log, "%s/log", dir);
        int k = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600); /* (at 0: moved above 2) */
        if (k < 0 || (g_new_stderr = fcntl(k, F_DUPFD_CLOEXEC, 3)) < 3 || stat(log, &a) != 0) return 'l';
        close(k);
        if (prof_export_chrome_trace(ev, path) != PROF_OK || g_new_stderr >= 0) return 'l';
        if (fstat(2, &b) != 0 || b.st_ino != a.st_ino || b.st_dev != a.st_dev) return 'r';
        close(2);
        unlink(log);
    }
    unlink(path);
    prof_events_free(ev);
    prof_shutdown();
    return 'y';
}

int main(void) {
    char dir[] = "/tmp/prof_closed_std_XXXXXX";
    int fds[2], status = 0;
    char got = 0;
    pid_t pid;
    if (!CHECK(mkdtemp(dir) != NULL && pipe(fds) == 0)) return check_report();
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        char v;
        close(fds[0]);
        if (fds[1] < 3) _exit(9);
        v = child(dir);
        if (write(fds[1], &v, 1) != 1) _exit(8);
        _exit(0);
    }
    close(fds[1]);
    if (CHECK(pid > 0)) {
        if (read(fds[0], &got, 1) != 1) got = '0';
        waitpid(pid, &status, 0);
    }
    close(fds[0]);
    CHECK_MSG(got == 'y', "verdict '%c' (s: /dev/stderr not EBADF; o: /dev/stdout not an error; f: the file's export failed; d: a standard descriptor left open; j: the trace wrong; l: the log's set-up; r: the stderr set during an export was closed; 0: the child died)", got);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    rmdir(dir);
    return check_report();
}
