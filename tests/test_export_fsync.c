/* Every exporter syncs a file's bytes to its disk (fsync) before the rename
   makes it the target, so that after a crash the target is the old file or
   the new one whole, and so that a write error the file system reports only
   at writeback (NFS, quotas, thin disks: fsync's EIO, ENOSPC, EDQUOT) fails
   the export instead of replacing a good file with a bad one.
   The test defines fsync itself (the executable's definition comes first):
   - OK mode: the real fsync; the test checks that the descriptor synced is
     the output's and that the target still held the old bytes then (the
     sync comes before the rename), one sync an export;
   - EIO mode: the export fails with PROF_E_IO naming the error, the old
     file is unchanged and no temporary file is left;
   - EINVAL mode (a file system with nothing to sync): no error;
   - a stream (a pipe) is not synced. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MODE_OFF, MODE_OK, MODE_EIO, MODE_EINVAL };
static int g_mode, g_calls, g_bad;
static off_t g_target_size = -1; /* the target's size when fsync ran */
static const char *g_target;
int fsync(int fd) {
    int (*real)(int);
    struct stat st;
    int fl = fcntl(fd, F_GETFL);
    if (__atomic_load_n(&g_mode, __ATOMIC_SEQ_CST) != MODE_OFF) {
        __atomic_fetch_add(&g_calls, 1, __ATOMIC_SEQ_CST);
        if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) g_bad++; /* not the output */
        g_target_size = g_target && stat(g_target, &st) == 0 ? st.st_size : -1;
        if (g_mode == MODE_EIO) { errno = EIO; return -1; }
        if (g_mode == MODE_EINVAL) { errno = EINVAL; return -1; }
    }
    *(void **)&real = dlsym(RTLD_NEXT, "fsync");
    return real ? real(fd) : -1;
}

#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int main(void) {
    char dir[] = "/tmp/prof_fsync_XXXXXX", path[256];
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
        d.cpu_memory_usage = 64;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    snprintf(path, sizeof path, "%s/out", dir);
    g_target = path;
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        const char *name = CHECK_EXPORTERS[k].name;
        char *want, *got;
        size_t want_n = 0, got_n = 0;
        FILE *f;
        prof_result r;
        /* the old file: a few bytes that no export writes */
        if (!CHECK((f = fopen(path, "w")) != NULL)) break;
        fputs("old\n", f);
        fclose(f);
        g_calls = g_bad = 0;
        g_mode = MODE_OK;
        r = CHECK_EXPORTERS[k].fn(ev, path);
        g_mode = MODE_OFF;
        CHECK_MSG(r == PROF_OK, "%s: %d (%s)", name, (int)r, prof_last_error());
        CHECK_MSG(g_calls == 1 && g_bad == 0, "%s: %d syncs, %d not of the output (want 1, 0)", name, g_calls, g_bad);
        CHECK_MSG(g_target_size == 4, "%s: at the sync the target was %lld bytes, not the old file's 4 (synced after the rename?)", name,
                  (long long)g_target_size);
        want = check_read_file_n(path, &want_n);
        CHECK_MSG(want && want_n > 4, "%s: nothing written", name);

        /* EIO at the sync: the export fails and the file is the one before */
        check_log_reset();
        g_mode = MODE_EIO;
        r = CHECK_EXPORTERS[k].fn(ev, path);
        g_mode = MODE_OFF;
        CHECK_MSG(r == PROF_E_IO, "%s with fsync saying EIO: %d, want PROF_E_IO", name, (int)r);
        CHECK_MSG(strstr(prof_last_error(), "Input/output error") && strstr(prof_last_error(), "was not replaced"), "%s: message '%s'", name,
                  prof_last_error());
        got = check_read_file_n(path, &got_n);
        CHECK_MSG(want && got && want_n == got_n && memcmp(want, got, want_n) == 0, "%s: the file changed after a failed sync", name);
        CHECK_EQ_INT(check_count_tmp(dir), 0);
        free(got);

        /* EINVAL (nothing to sync there): the export succeeds */
        g_mode = MODE_EINVAL;
        r = CHECK_EXPORTERS[k].fn(ev, path);
        g_mode = MODE_OFF;
        CHECK_MSG(r == PROF_OK, "%s with fsync saying EINVAL: %d (%s)", name, (int)r, prof_last_error());
        got = check_read_file_n(path, &got_n);
        CHECK_MSG(want && got && want_n == got_n && memcmp(want, got, want_n) == 0, "%s: the file after EINVAL differs", name);
        free(got);
        free(want);
    }
    /* a pipe is written as it goes: nothing to sync */
    {
        int fds[2];
        char fdpath[64], buf[4096];
        if (CHECK(pipe(fds) == 0)) {
            snprintf(fdpath, sizeof fdpath, "/dev/fd/%d", fds[1]);
            fcntl(fds[0], F_SETFL, O_NONBLOCK);
            g_calls = 0;
            g_mode = MODE_OK;
            CHECK_EQ_INT(prof_export_stacks(ev, fdpath, "self_cpu_time_total"), PROF_OK);
            g_mode = MODE_OFF;
            CHECK_EQ_INT(g_calls, 0);
            CHECK(read(fds[0], buf, sizeof buf) > 0);
            close(fds[0]);
            close(fds[1]);
        }
    }
    unlink(path);
    rmdir(dir);
    prof_events_free(ev);
    prof_shutdown();
    return check_report();
}
