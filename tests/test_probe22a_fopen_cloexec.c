/* Every file prof.h opens is closed on exec (O_CLOEXEC), so that a child
   another thread starts meanwhile (posix_spawn, system, popen, fork +
   exec: a program that runs tools while it profiles) does not inherit
   it. The exporters' own files are (open with O_CLOEXEC,
   F_DUPFD_CLOEXEC).
   Found: two reads go through fopen(path, "r"), without the "e" flag,
   so their descriptors stay open across an exec made while they are
   open: prof__process_name (fopen("/proc/self/comm"), the process's name
   in prof_export_perfetto and the JSON trace's process lane) and
   prof__reserve_limit_bytes (fopen("/sys/fs/cgroup/memory.max"), in
   prof_start with reserve_events). The window is short, so a child
   catches it rarely (none in 300 spawns beside exporting and starting
   threads here), but when it does the descriptor lives as long as the
   child (a daemon started then keeps /proc/<pid>/comm of the profiled
   process open).
   Fixed: both read through open(O_CLOEXEC) (prof__read_small). The test
   defines fopen and open itself (the executable's definitions come
   first) and, for each file opened while a prof_* call runs, checks
   FD_CLOEXEC at once; /proc/self/comm must be among them (so the test
   cannot pass by seeing no file at all). */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int g_in_prof;               /* a prof_* call is running (this thread) */
static int g_opened, g_inherited;   /* files prof.h opened; of those, not closed on exec */
static char g_last[256];
static int g_comm;                  /* /proc/self/comm opened (the process's name) */

static void seen(const char *path, const char *how, int fd) {
    int fl;
    if (fd < 0 || !__atomic_load_n(&g_in_prof, __ATOMIC_RELAXED)) return;
    fl = fcntl(fd, F_GETFD);
    g_opened++;
    if (strcmp(path, "/proc/self/comm") == 0) g_comm++;
    if (fl < 0 || !(fl & FD_CLOEXEC)) {
        g_inherited++;
        snprintf(g_last, sizeof g_last, "%s (%s)", path, how);
    }
}
int open(const char *path, int flags, ...) {
    int (*real)(const char *, int, ...);
    mode_t mode = 0;
    int fd;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    *(void **)&real = dlsym(RTLD_NEXT, "open");
    if (!real) return -1;
    fd = real(path, flags, mode);
    seen(path, "open", fd);
    return fd;
}

FILE *fopen(const char *path, const char *mode) {
    FILE *(*real)(const char *, const char *);
    FILE *f;
    *(void **)&real = dlsym(RTLD_NEXT, "fopen");
    if (!real) return NULL;
    f = real(path, mode);
    if (f) seen(path, "fopen", fileno(f));
    return f;
}

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

int main(void) {
    char dir[] = "/tmp/prof_probe22a_XXXXXX", path[256];
    prof_config cfg;
    prof_events *ev;
    prof_set_log(check_log, NULL);
    if (!CHECK(mkdtemp(dir) != NULL)) return check_report();
    memset(&cfg, 0, sizeof cfg);
    cfg.reserve_events = 1000; /* prof_start reads the cgroup's memory.max */
    g_in_prof = 1;
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    g_in_prof = 0;
    { PROF_SCOPE("work"); }
    g_in_prof = 1;
    ev = prof_stop();
    g_in_prof = 0;
    if (!CHECK(ev != NULL)) return check_report();
    snprintf(path, sizeof path, "%s/t.pftrace", dir);
    g_in_prof = 1;
    CHECK_EQ_INT(prof_export_perfetto(ev, path), PROF_OK); /* reads /proc/self/comm */
    g_in_prof = 0;
    unlink(path);
    snprintf(path, sizeof path, "%s/t.json", dir);
    g_in_prof = 1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    g_in_prof = 0;
    unlink(path);
    CHECK(check_count_tmp(dir) == 0);
    rmdir(dir);
    printf("files prof.h opened: %d\n", g_opened);
    CHECK_MSG(g_comm > 0, "prof.h never opened /proc/self/comm: the test saw no read (open and fopen interposed)");
    CHECK_MSG(g_inherited == 0, "%d of the %d files prof.h opened are not closed on exec (the last: %s): a child exec'd meanwhile by another thread inherits them",
              g_inherited, g_opened, g_last);
    prof_events_free(ev);
    prof_shutdown();
    CHECK_EQ_INT(check_log_total(), 0);
    return check_report();
}
