/* The default log (stderr, no prof_set_log) lost whole messages where
   stdio gives up: a write to a full pipe interrupted by a handler without
   SA_RESTART (EINTR), or a non-blocking stderr whose pipe is full for a
   moment (EAGAIN, a pipe shared with a parent that set O_NONBLOCK). Every
   other write of prof.h retries and waits there (the table, the
   exporters); the log's line now does the same. Each case runs in a child
   whose stderr is a pipe filled to the brim; the parent reads it only
   after 300 ms, then looks for the message. */
#define _GNU_SOURCE 1
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t g_alarms;
static void on_alarm(int s) { (void)s; g_alarms++; }

/* nonblock: stderr left O_NONBLOCK; else a SIGALRM without SA_RESTART 50 ms in */
static void child(int nonblock) {
    char fill[4096];
    int fl = fcntl(2, F_GETFL);
    fcntl(2, F_SETFL, fl | O_NONBLOCK);
    memset(fill, 'f', sizeof fill);
    while (write(2, fill, sizeof fill) > 0) {}
    while (write(2, fill, 1) > 0) {}
    if (!nonblock) {
        struct sigaction sa;
        struct itimerval it;
        fcntl(2, F_SETFL, fl);
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm; /* no SA_RESTART */
        sigaction(SIGALRM, &sa, NULL);
        memset(&it, 0, sizeof it);
        it.it_value.tv_usec = 50000;
        setitimer(ITIMER_REAL, &it, NULL);
    }
    if (prof_stop() != NULL) _exit(3); /* an error on the default log: no session */
    _exit(nonblock || g_alarms ? 0 : 4);
}

static void run(int nonblock) {
    int p[2], st = 0;
    pid_t pid;
    char buf[1 << 16], *all = NULL;
    size_t got = 0;
    if (!CHECK(pipe(p) == 0)) return;
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], 2);
        close(p[1]);
        child(nonblock);
    }
    close(p[1]);
    usleep(300000);
    for (;;) {
        ssize_t k = read(p[0], buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        all = (char *)realloc(all, got + (size_t)k);
        if (!all) break;
        memcpy(all + got, buf, (size_t)k);
        got += (size_t)k;
    }
    close(p[0]);
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: child status %d", nonblock ? "O_NONBLOCK" : "EINTR", st);
    CHECK_MSG(all && memmem(all, got, "prof.h error: prof_stop: no session is recording", 48), "%s: the message was lost (%zu bytes read)",
              nonblock ? "O_NONBLOCK" : "EINTR", got);
    free(all);
}

int main(void) {
    run(0);
    run(1);
    return check_report();
}
