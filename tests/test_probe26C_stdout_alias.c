/* An export to the program's stdout under another spelling than the three
   prof__fd_path knows ("/dev/stdout", "/dev/fd/N", "/proc/self/fd/N"):
   a symlink to /dev/stdout (the container idiom: log files linked to
   /dev/stdout, `ln -sf /dev/stdout /app/trace.json`), "/dev//stdout",
   "/dev/./stdout", "/proc/<pid>/fd/1", "/proc/thread-self/fd/1".
   With stdout redirected to a file (`./prog > run.log`):
   - a symlink or a non-canonical /dev path: stat() says a regular file,
     so prof__out_open_file follows the links through /proc/self/fd/1 to
     run.log and renames a temporary file over it. run.log then holds the
     export alone: what the program printed before is gone, and what it
     prints after goes to the old, now unlinked file (lost too).
   - "/proc/<pid>/fd/1" and "/proc/thread-self/fd/1": opened in place as a
     "/proc file", a new open file description at offset 0, no O_TRUNC:
     the export overwrites the first bytes of run.log and the program's
     next output overwrites the export ("root;leafter\n"): both corrupt.
   Each must behave as "/dev/stdout" does: written through descriptor 1,
   in order, "before\n<stacks>after\n" (test_probe24D_stdout_order).
   In a child whose stdout is a file; the parent reads the file. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    char dir[] = "/tmp/prof_probe26C_XXXXXX", out[256], ref[256], link1[256], link2[256], *got, *want, *expect;
    char pid_path[64];
    const char *paths[8];
    size_t np = 0, p;
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    const char *st[2] = { "leaf", "root" };
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
    snprintf(link1, sizeof link1, "%s/trace.folded", dir);
    snprintf(link2, sizeof link2, "%s/fd1.folded", dir);
    CHECK(symlink("/dev/stdout", link1) == 0);
    CHECK(symlink("/proc/self/fd/1", link2) == 0);
    paths[np++] = link1;
    paths[np++] = link2;
    paths[np++] = "/dev//stdout";
    paths[np++] = "/dev/./stdout";
    paths[np++] = "/proc/thread-self/fd/1";
    paths[np++] = pid_path; /* "/proc/<the child's pid>/fd/1", made in the child */
    for (p = 0; p < np; p++) {
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
            snprintf(pid_path, sizeof pid_path, "/proc/%ld/fd/1", (long)getpid());
            fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, 1) < 0) _exit(3);
            close(fd);
            printf("before\n");
            if (prof_export_stacks(ev, paths[p], "self_cpu_time_total") != PROF_OK) _exit(4);
            printf("after\n");
            fflush(stdout);
            prof_events_free(ev); /* (the same) */
            prof_shutdown();
            _exit(0);
        }
        if (!CHECK(pid > 0)) break;
        waitpid(pid, &status, 0);
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: child status %d", p == np - 1 ? "/proc/<pid>/fd/1" : paths[p], status);
        got = check_read_file(out);
        CHECK_MSG(got && strcmp(got, expect) == 0, "stdout to a file; printf(\"before\\n\"); export to %s; printf(\"after\\n\") gave \"%s\", not \"%s\"",
                  p == np - 1 ? "/proc/<pid>/fd/1" : paths[p], got ? got : "(nothing)", expect);
        free(got);
        unlink(out);
    }
    unlink(link1);
    unlink(link2);
    unlink(ref);
    CHECK_EQ_INT(check_count_tmp(dir), 0);
    rmdir(dir);
    free(expect);
    free(want);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
