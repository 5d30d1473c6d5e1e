/* An export to "/dev/stdout" (or /dev/fd/1, /proc/self/fd/1) writes
   through a duplicate of descriptor 1 (prof__fd_path, prof__out_open)
   without flushing the host's stdout first: when stdout is a file or a
   pipe (fully buffered: `./prog > out.txt`, `./prog | tee log`), what the
   host printed before the export comes out after it. A program that
   prints a heading and then exports the folded stacks to stdout for
   flamegraph.pl gets "leaf 1\nbefore\nafter\n" instead of
   "before\nleaf 1\nafter\n" (the table functions flush the stream they
   print to, so prof_report's own table is in order; the host's printf is
   not). The export must come where the program put it: fflush(stdout)
   before writing to descriptor 1 (fflush(stderr) for 2).
   In a child whose stdout is a file; the parent reads the file. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const PATHS[] = { "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1" };

int main(void) {
    char dir[] = "/tmp/prof_probe24D_XXXXXX", out[256], ref[256], *got, *want, *expect;
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    const char *st[2] = { "leaf", "root" };
    size_t p;
    prof_set_log(check_log, NULL);
    if (!CHECK(ev && mkdtemp(dir) != NULL)) return check_report();
    memset(&d, 0, sizeof d);
    d.name = "leaf";
    d.thread = 1;
    d.start_ns = 0;
    d.end_ns = 1000;
    d.stack = st;
    d.stack_depth = 2;
    CHECK(prof_events_add(ev, &d) >= 0);
    snprintf(ref, sizeof ref, "%s/ref", dir);
    CHECK_EQ_INT(prof_export_stacks(ev, ref, "self_cpu_time_total"), PROF_OK);
    want = check_read_file(ref);
    if (!CHECK(want != NULL && want[0])) return check_report();
    expect = (char *)malloc(strlen(want) + 32);
    if (!CHECK(expect != NULL)) return check_report();
    snprintf(expect, strlen(want) + 32, "before\n%safter\n", want);
    for (p = 0; p < sizeof PATHS / sizeof PATHS[0]; p++) {
        pid_t pid;
        int status = 0;
        snprintf(out, sizeof out, "%s/out", dir);
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid == 0) {
            int fd;
            free(want); /* (the parent's: valgrind's leak check runs at the child's exit too) */
            free(expect);
            fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, 1) < 0) _exit(3);
            close(fd);
            printf("before\n");
            if (prof_export_stacks(ev, PATHS[p], "self_cpu_time_total") != PROF_OK) _exit(4);
            printf("after\n");
            fflush(stdout);
            _exit(0);
        }
        if (!CHECK(pid > 0)) break;
        waitpid(pid, &status, 0);
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: child status %d", PATHS[p], status);
        got = check_read_file(out);
        CHECK_MSG(got && strcmp(got, expect) == 0, "printf(\"before\\n\"); export to %s; printf(\"after\\n\") into a file gave \"%s\", not \"%s\"",
                  PATHS[p], got ? got : "(nothing)", expect);
        free(got);
        unlink(out);
    }
    unlink(ref);
    rmdir(dir);
    free(expect);
    free(want);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
