/* An export to a FIFO whose reader comes late, in a program with a signal
   handler installed without SA_RESTART (a SIGALRM timer, as profilers and
   event loops use). open(2) of a FIFO for writing blocks until a reader
   opens it, and a handled signal ends that wait with EINTR: prof.h retries
   its write(2) calls on EINTR, but not the open, so the export failed with
   "cannot create '...': Interrupted system call" although nothing was
   wrong. The reader here opens the FIFO 300 ms after the export began; the
   alarm comes at 30 ms. (Should the alarm come late, the test passes
   either way: a fixed prof.h passes whatever the timing.)

   Files go to build/probe17/ (cwd = repo root). */
#define _GNU_SOURCE 1 /* before any system header: the test's own POSIX and GNU calls */
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUT "build/probe17"

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }

static prof_events *make_list(void) {
    prof_events *ev = prof_events_create();
    int i;
    for (i = 0; i < 50; i++) {
        prof_event_desc d;
        memset(&d, 0, sizeof d);
        d.name = i % 2 ? "step" : "op";
        d.thread = 1;
        d.start_ns = (int64_t)i * 1000;
        d.end_ns = d.start_ns + 500;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    return ev;
}

/* The reader: waits, opens the FIFO, reads it to the end; exits 0 when it
   read anything. */
static pid_t late_reader(const char *fifo) {
    pid_t pid = fork();
    if (pid == 0) {
        char buf[4096];
        long total = 0;
        ssize_t k;
        int fd;
        usleep(300 * 1000);
        fd = open(fifo, O_RDONLY);
        if (fd < 0) _exit(2);
        while ((k = read(fd, buf, sizeof buf)) > 0) total += k;
        _exit(total > 0 ? 0 : 3);
    }
    return pid;
}

int main(void) {
    const char *fifo = OUT "/fifo_eintr";
    struct sigaction sa;
    struct itimerval it;
    prof_events *ev;
    int k;
    prof_set_log(check_log, NULL);
    mkdir("build", 0755);
    mkdir(OUT, 0755);
    ev = make_list();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; /* no SA_RESTART */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    for (k = 0; k < 2; k++) {
        pid_t pid;
        int status = 0;
        prof_result r;
        unlink(fifo);
        CHECK(mkfifo(fifo, 0600) == 0);
        pid = late_reader(fifo);
        CHECK(pid > 0);
        memset(&it, 0, sizeof it);
        it.it_value.tv_usec = 30 * 1000;
        setitimer(ITIMER_REAL, &it, NULL);
        r = k == 0 ? prof_export_chrome_trace(ev, fifo) : prof_export_perfetto(ev, fifo);
        memset(&it, 0, sizeof it);
        setitimer(ITIMER_REAL, &it, NULL);
        CHECK_MSG(r == PROF_OK, "export %d to a FIFO with a late reader: %s", k, prof_last_error());
        if (r != PROF_OK) { /* let the reader finish: open the FIFO for it */
            int fd = open(fifo, O_WRONLY);
            if (fd >= 0) { CHECK(write(fd, "x", 1) == 1); close(fd); }
        }
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    unlink(fifo);
    prof_events_free(ev);
    return check_report();
}
