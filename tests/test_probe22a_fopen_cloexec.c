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
   Wanted: fopen(path, "re") (glibc's O_CLOEXEC), or open(O_CLOEXEC) and
   read. The test defines fopen itself (the executable's definition comes
   first) and, for each file opened while a prof_* call runs, checks
   FD_CLOEXEC at once. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>

static int g_in_prof;               /* a prof_* call is running (this thread) */
static int g_opened, g_inherited;   /* files prof.h opened; of those, not closed on exec */
static char g_last[256];

FILE *fopen(const char *path, const char *mode) {
    FILE *(*real)(const char *, const char *);
    FILE *f;
    *(void **)&real = dlsym(RTLD_NEXT, "fopen");
    if (!real) return NULL;
    f = real(path, mode);
    if (f && __atomic_load_n(&g_in_prof, __ATOMIC_RELAXED)) {
        int fl = fcntl(fileno(f), F_GETFD);
        g_opened++;
        if (fl < 0 || !(fl & FD_CLOEXEC)) {
            g_inherited++;
            snprintf(g_last, sizeof g_last, "%s (mode \"%s\")", path, mode);
        }
    }
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
    printf("files prof.h opened with fopen: %d\n", g_opened);
    CHECK_MSG(g_inherited == 0, "%d of the %d files prof.h opened with fopen are not closed on exec (the last: %s): a child exec'd meanwhile by another thread inherits them",
              g_inherited, g_opened, g_last);
    prof_events_free(ev);
    prof_shutdown();
    CHECK_EQ_INT(check_log_total(), 0);
    return check_report();
}
