/* prof.h's own messages on stderr must not kill the host. A program whose
   stdout and stderr go to one pipe (`prog 2>&1 | head`) whose reader is
   gone: prof_report's table fails with EPIPE (prof.h blocks SIGPIPE around
   that write) and then reports the failure on stderr, the same closed pipe.
   That fprintf ran with SIGPIPE unblocked, so the host died of the signal
   (exit 141) instead of getting PROF_E_IO. The same with a log file at
   RLIMIT_FSIZE (SIGXFSZ, exit 153): an export to an unwritable path, whose
   error message is the write that passes the limit.
   Each case runs in a child; the child tells its result through its exit
   status, and the parent checks that it was not killed by a signal. */
#define _GNU_SOURCE 1
#include "prof.h"
#include "check.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static prof_events *record(void) {
    prof_config cfg = {0};
    int i;
    if (prof_start(&cfg) != PROF_OK) return NULL;
    for (i = 0; i < 10; i++) { PROF_SCOPE("step"); }
    return prof_stop();
}

/* stdout and stderr on a pipe with no reader: prof_report's table fails
   and its message goes to the same pipe */
static int child_pipe(void) {
    int p[2];
    prof_events *ev;
    prof_report_options opt;
    prof_result r;
    if (pipe(p) != 0) return 10;
    close(p[0]);
    if (dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0) return 11;
    close(p[1]);
    if (!(ev = record())) return 12;
    memset(&opt, 0, sizeof opt); /* the table to stdout */
    r = prof_report(ev, &opt);
    prof_events_free(ev);
    return r == PROF_E_IO ? 0 : 13;
}

/* stderr a file already at RLIMIT_FSIZE: the error of an export to a
   directory that does not exist is the write past the limit */
static int child_xfsz(const char *log) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    struct rlimit rl;
    prof_events *ev;
    prof_result r;
    if (fd < 0 || write(fd, "x", 1) != 1 || dup2(fd, 2) < 0) return 20;
    close(fd);
    rl.rlim_cur = 1;
    rl.rlim_max = RLIM_INFINITY;
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
        rl.rlim_max = 1;
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 21;
    }
    if (!(ev = record())) return 22;
    r = prof_export_chrome_trace(ev, "build/no/such/dir/trace.json");
    prof_events_free(ev);
    return r == PROF_E_IO ? 0 : 23;
}

static void run(const char *what, int (*fn)(const char *), const char *arg) {
    pid_t pid = fork();
    int st = 0;
    if (pid < 0) { CHECK(!"fork"); return; }
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        signal(SIGXFSZ, SIG_DFL);
        _exit(fn(arg));
    }
    CHECK(waitpid(pid, &st, 0) == pid);
    if (!CHECK(!WIFSIGNALED(st))) fprintf(stderr, "%s: the child died of signal %d\n", what, WTERMSIG(st));
    else if (!CHECK_EQ_INT(WEXITSTATUS(st), 0)) fprintf(stderr, "%s: the child's step %d failed\n", what, WEXITSTATUS(st));
}
static int pipe_case(const char *unused) { (void)unused; return child_pipe(); }
static int xfsz_case(const char *log) { return child_xfsz(log); }

int main(void) {
    run("table and message on a closed pipe", pipe_case, NULL);
    run("message past RLIMIT_FSIZE", xfsz_case, "build/test_log_sigpipe.log");
    remove("build/test_log_sigpipe.log");
    return check_report();
}
