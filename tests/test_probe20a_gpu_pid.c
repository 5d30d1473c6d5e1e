/* The JSON trace puts a GPU's events under "pid": <device index> (Kineto's
   layout) and the CPU's under the process id. When the two are equal they
   are one process in every viewer: a program that runs as PID 1 (the
   usual case in a container: `docker run img ./train`, where the
   entrypoint is PID 1; small pids under tini and the like) has GPU 1's
   kernels in its own CPU process, GPU 1's stream 1 on the same track as
   CPU thread 1 (a kernel shown nested in a CPU op), and two process_name
   records for one pid ("GPU 1" and the program's name). Today:
     {"name": "cpu", "pid": 1, "tid": 1, ...}
     {"name": "k", "cat": "kernel", "pid": 1, "tid": 1, ...}
   Correct: the CPU process and each GPU under distinct pids (e.g. move
   whichever collides), one process_name per pid.
   The test runs the export as PID 1 in a new PID namespace (needs root or
   CAP_SYS_ADMIN); without that it uses device index = getpid(), the same
   collision. Fixed: that GPU is written under pid INT32_MAX - index. Files go to build/probe20a_gpu_pid/ (cwd = repo root). */
#define _GNU_SOURCE 1 /* before any system header: the test's own POSIX and GNU calls */
#include "prof.h"
#include "check.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUT "build/probe20a_gpu_pid"

static int export_as(int device) {
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    prof_result r;
    memset(&d, 0, sizeof d);
    d.name = "cpu"; d.thread = 1; d.start_ns = 0; d.end_ns = 100000;
    if (prof_events_add(ev, &d) < 0) return 1;
    d.name = "k"; d.device_type = PROF_DEVICE_CUDA; d.device_index = device; d.start_ns = 10000; d.end_ns = 50000;
    if (prof_events_add(ev, &d) < 0) return 1;
    r = prof_export_chrome_trace(ev, OUT "/trace.json");
    prof_events_free(ev);
    return r != PROF_OK;
}

static long long field_after(const char *text, const char *key, const char *field) {
    const char *p = strstr(text, key), *q;
    if (!p) return -1;
    q = strstr(p, field);
    return q ? strtoll(q + strlen(field), NULL, 10) : -1;
}

static int count(const char *text, const char *s) {
    int n = 0;
    for (; (text = strstr(text, s)) != NULL; text++) n++;
    return n;
}

int main(void) {
    char *text;
    int status = -1, ns = 0;
    prof_set_log(check_log, NULL);
    mkdir("build", 0777);
    mkdir(OUT, 0777);
    remove(OUT "/trace.json");
    { /* the namespace is made in a child: a process that made one can
         create no task once its PID 1 is gone, and LeakSanitizer's exit
         check needs one (the ASan variant) */
        pid_t outer = fork();
        if (outer == 0) {
            pid_t pid;
            int st = -1;
            if (unshare(CLONE_NEWPID) != 0) _exit(3);
            pid = fork();
            if (pid == 0) _exit(getpid() == 1 ? export_as(1) : 2);
            _exit(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 4);
        }
        if (outer > 0 && waitpid(outer, &status, 0) == outer && WIFEXITED(status) && WEXITSTATUS(status) == 0) ns = 1;
    }
    if (!ns) {
        printf("test_probe20a_gpu_pid: no PID namespace (not root?): device index = getpid() instead\n");
        CHECK_EQ_INT(export_as((int)getpid()), 0);
    }
    text = check_read_file(OUT "/trace.json");
    if (CHECK(text != NULL)) {
        long long cpu_pid = field_after(text, "\"name\": \"cpu\"", "\"pid\": ");
        long long gpu_pid = field_after(text, "\"name\": \"k\"", "\"pid\": ");
        CHECK(cpu_pid >= 0 && gpu_pid >= 0);
        CHECK_MSG(cpu_pid != gpu_pid, "the CPU process and GPU %d are both \"pid\": %lld", ns ? 1 : (int)getpid(), cpu_pid);
        CHECK_EQ_INT(count(text, "\"name\": \"process_name\""), 2);
        {
            char key[64];
            snprintf(key, sizeof key, "\"pid\": %lld, \"tid\": 0, \"args\": {\"name\": ", cpu_pid);
            CHECK_MSG(count(text, key) == 1, "%d process_name records for pid %lld", count(text, key), cpu_pid);
        }
        free(text);
    }
    return check_report();
}
