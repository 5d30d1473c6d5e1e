/* A system call that a signal interrupts (EINTR: a handler installed
   without SA_RESTART, a profiler's SIGPROF, a GUI's SIGWINCH/SIGCHLD) is
   retried, not reported: prof.h does so for write(2), for a FIFO's open
   and for its /proc reads, but not for two calls of the file exporters:
   - open(2) of the temporary file (prof__out_open_file): every exporter
     into a regular file fails with PROF_E_IO "cannot create '...':
     Interrupted system call" (open(2) of a file on NFS, FUSE or CIFS, or
     one that waits for a lease or a lock, can say EINTR);
   - ftruncate(2) of prof__w_rewind (the JSON trace's second pass, after
     the guess that the events nest failed): "writing '...' failed:
     Interrupted system call".
   The test defines open and ftruncate itself (the executable's
   definitions come first): the first call of each made while an export
   runs says EINTR (and does nothing); a retry gets the real call. Each
   export must succeed and write the same bytes as one without the signal,
   with no temporary file left. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/types.h>
#include <unistd.h>

static int g_active;                 /* 0: no injection; 1: open, 2: ftruncate */
static int g_fired;
static int eintr_once(int which) {
    if (__atomic_load_n(&g_active, __ATOMIC_SEQ_CST) != which || __atomic_exchange_n(&g_fired, 1, __ATOMIC_SEQ_CST)) return 0;
    errno = EINTR;
    return 1;
}
int open(const char *path, int flags, ...) {
    int (*real)(const char *, int, ...);
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (eintr_once(1)) return -1;
    *(void **)&real = dlsym(RTLD_NEXT, "open");
    return real ? real(path, flags, mode) : -1;
}
int ftruncate(int fd, off_t len) {
    int (*real)(int, off_t);
    if (eintr_once(2)) return -1;
    *(void **)&real = dlsym(RTLD_NEXT, "ftruncate");
    return real ? real(fd, len) : -1;
}

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* n events on two threads with two-frame stacks; with `overlap`, one of
   them spans the events after it, across a chunk boundary of the
   parallel formatting (the JSON trace's guess fails, prof__w_rewind) */
static prof_events *build(size_t n, int overlap) {
    prof_events *ev = prof_events_create();
    size_t i;
    if (!ev) return NULL;
    for (i = 0; i < n; i++) {
        prof_event_desc d;
        const char *st[2];
        char name[48];
        snprintf(name, sizeof name, "op %u", (unsigned)(i % 97));
        st[0] = name;
        st[1] = "root";
        memset(&d, 0, sizeof d);
        d.name = name;
        d.thread = 1 + i % 2;
        d.start_ns = (int64_t)i * 3000;
        d.end_ns = d.start_ns + 2000 + (int64_t)(i % 7) * 100;
        if (overlap && i == 40001) d.end_ns = d.start_ns + 20000;
        d.stack = st;
        d.stack_depth = 2;
        if (!CHECK(prof_events_add(ev, &d) >= 0)) { prof_events_free(ev); return NULL; }
    }
    return ev;
}

/* exports with the first `which` call interrupted; compares with a
   reference export of the same list to the same path */
static void export_interrupted(prof_events *ev, size_t k, const char *dir, int which) {
    char path[256];
    char *want, *got;
    size_t want_n = 0, got_n = 0;
    prof_result r;
    snprintf(path, sizeof path, "%s/out", dir);
    CHECK_EQ_INT(CHECK_EXPORTERS[k].fn(ev, path), PROF_OK);
    want = check_read_file_n(path, &want_n);
    __atomic_store_n(&g_fired, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&g_active, which, __ATOMIC_SEQ_CST);
    r = CHECK_EXPORTERS[k].fn(ev, path);
    __atomic_store_n(&g_active, 0, __ATOMIC_SEQ_CST);
    CHECK_MSG(g_fired, "%s: no %s call was made (the test injected nothing)", CHECK_EXPORTERS[k].name, which == 1 ? "open" : "ftruncate");
    CHECK_MSG(r == PROF_OK, "%s with the first %s interrupted (EINTR): %d (%s)", CHECK_EXPORTERS[k].name, which == 1 ? "open" : "ftruncate", (int)r, prof_last_error());
    got = check_read_file_n(path, &got_n);
    CHECK_MSG(want && got && want_n == got_n && memcmp(want, got, want_n) == 0, "%s: the file differs from the one written without the signal", CHECK_EXPORTERS[k].name);
    CHECK_EQ_INT(check_count_tmp(dir), 0);
    free(want);
    free(got);
    unlink(path);
}

int main(void) {
    char dir[] = "/tmp/prof_probe24D_XXXXXX";
    prof_events *ev;
    size_t k;
    prof_set_log(check_log, NULL);
    if (!CHECK(mkdtemp(dir) != NULL)) return check_report();
    /* open(2) of the temporary file: every exporter, a small list */
    if ((ev = build(50, 0)) != NULL) {
        for (k = 0; k < CHECK_N_EXPORTERS; k++) export_interrupted(ev, k, dir, 1);
        prof_events_free(ev);
    }
    /* ftruncate(2) of the JSON trace's second pass (parallel formatting,
       which needs two cores; its writer thread from the first buffer) */
    if (sysconf(_SC_NPROCESSORS_ONLN) >= 2 && (ev = build(60000, 1)) != NULL) {
        size_t old_min = prof__par_min_events, old_chunk = prof__par_chunk;
        prof__par_min_events = 0;
        prof__par_chunk = 1000;
        prof__w_async_after = 0;
        export_interrupted(ev, 0, dir, 2);
        prof__w_async_after = PROF__W_ASYNC_AFTER;
        prof__par_min_events = old_min;
        prof__par_chunk = old_chunk;
        prof_events_free(ev);
    }
    rmdir(dir);
    prof_shutdown();
    return check_report();
}
