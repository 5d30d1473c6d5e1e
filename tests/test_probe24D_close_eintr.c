/* close(2) of an export's file that says EINTR (NFS, CIFS and FUSE flush
   on close and can be interrupted by a signal) fails the export: prof__out_end
   takes any close failure as the write's error, reports "writing '...'
   failed: Interrupted system call" and removes the temporary file, so a
   complete trace is thrown away for a signal. On Linux the descriptor is
   released whatever close returns (it must not be closed again), and
   EINTR says nothing about the bytes, which write(2) accepted (prof.h
   has synced them; close's other errors, EIO, ENOSPC or EDQUOT of a
   deferred write, do say the file is incomplete and stay errors). EINTR,
   like EINTR elsewhere in prof.h, is not a failure: the export must
   succeed with the complete file.
   The test defines close itself (the executable's definition comes first):
   the export's close of its file (the one descriptor it closes that is
   open for writing) really closes it and then says EINTR, as Linux does. Every exporter, a small list. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int g_active, g_fired;
int close(int fd) {
    int (*real)(int);
    int r, fl = fcntl(fd, F_GETFL); /* the output file: open for writing */
    *(void **)&real = dlsym(RTLD_NEXT, "close");
    if (!real) return -1;
    r = real(fd);
    if (r == 0 && fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && __atomic_load_n(&g_active, __ATOMIC_SEQ_CST) && !__atomic_exchange_n(&g_fired, 1, __ATOMIC_SEQ_CST)) {
        errno = EINTR;
        return -1;
    }
    return r;
}

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


int main(void) {
    char dir[] = "/tmp/prof_probe24D_XXXXXX", path[256];
    prof_events *ev = prof_events_create();
    size_t i, k;
    prof_set_log(check_log, NULL);
    if (!CHECK(ev && mkdtemp(dir) != NULL)) return check_report();
    for (i = 0; i < 50; i++) {
        prof_event_desc d;
        const char *st[2] = { "leaf", "root" };
        memset(&d, 0, sizeof d);
        d.name = i % 2 ? "a" : "b";
        d.thread = 1;
        d.start_ns = (int64_t)i * 3000;
        d.end_ns = d.start_ns + 2000;
        d.stack = st;
        d.stack_depth = 2;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    snprintf(path, sizeof path, "%s/out", dir);
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        char *want, *got;
        size_t want_n = 0, got_n = 0;
        prof_result r;
        CHECK_EQ_INT(CHECK_EXPORTERS[k].fn(ev, path), PROF_OK);
        want = check_read_file_n(path, &want_n);
        __atomic_store_n(&g_fired, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&g_active, 1, __ATOMIC_SEQ_CST);
        r = CHECK_EXPORTERS[k].fn(ev, path);
        __atomic_store_n(&g_active, 0, __ATOMIC_SEQ_CST);
        CHECK_MSG(g_fired, "%s: no close was made", CHECK_EXPORTERS[k].name);
        CHECK_MSG(r == PROF_OK, "%s with close(2) saying EINTR: %d (%s)", CHECK_EXPORTERS[k].name, (int)r, prof_last_error());
        got = check_read_file_n(path, &got_n);
        CHECK_MSG(want && got && want_n == got_n && memcmp(want, got, want_n) == 0, "%s: the file differs from the one written before", CHECK_EXPORTERS[k].name);
        CHECK_EQ_INT(check_count_tmp(dir), 0);
        free(want);
        free(got);
    }
    unlink(path);
    rmdir(dir);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
