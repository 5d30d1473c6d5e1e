/* Errors that come late in an export, after every byte was written:
   - a file written in place (its directory refused the temporary file:
     EACCES, as for another user's file in a directory we may not write)
     whose fsync or close then fails (NFS, quotas: EIO). The message said
     "the file was emptied", but only errors known before the sync emptied
     it: the file kept the whole trace and looked complete;
   - a rename refused (EACCES: an LSM, FUSE) with no file at the target: the
     message gave the errno of the check for a file to copy over (ENOENT,
     "No such file or directory") instead of the rename's;
   - the old file's mode not given to the new one (fchmod refused: some
     CIFS, FUSE or NFS mounts): the replaced file became 0600 silently; it
     now warns.
   The test defines openat, fsync, close, renameat and fchmod itself (the
   executable's definitions come first); each fault acts only while its
   mode is set, on the export's own file. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int g_no_tmp;     /* openat of a temporary file (".tmp") says EACCES */
static int g_fsync_eio;  /* fsync says EIO */
static int g_close_eio;  /* close of a descriptor open for writing says EIO (after closing it) */
static int g_rename_eacces, g_fchmod_eperm;

int openat(int dir, const char *path, int flags, ...) {
    int (*real)(int, const char *, int, ...);
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (__atomic_load_n(&g_no_tmp, __ATOMIC_SEQ_CST) && strstr(path, ".tmp")) { errno = EACCES; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "openat");
    return real ? real(dir, path, flags, mode) : -1;
}
int fsync(int fd) {
    int (*real)(int);
    if (__atomic_load_n(&g_fsync_eio, __ATOMIC_SEQ_CST)) { errno = EIO; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "fsync");
    return real ? real(fd) : -1;
}
int close(int fd) {
    int (*real)(int);
    int fl = fcntl(fd, F_GETFL), r;
    *(void **)&real = dlsym(RTLD_NEXT, "close");
    if (!real) return -1;
    r = real(fd);
    if (r == 0 && fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && __atomic_load_n(&g_close_eio, __ATOMIC_SEQ_CST)) { errno = EIO; return -1; }
    return r;
}
int renameat(int a, const char *from, int b, const char *to) {
    int (*real)(int, const char *, int, const char *);
    if (__atomic_load_n(&g_rename_eacces, __ATOMIC_SEQ_CST)) { errno = EACCES; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "renameat");
    return real ? real(a, from, b, to) : -1;
}
int fchmod(int fd, mode_t mode) {
    int (*real)(int, mode_t);
    if (__atomic_load_n(&g_fchmod_eperm, __ATOMIC_SEQ_CST)) { errno = EPERM; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "fchmod");
    return real ? real(fd, mode) : -1;
}

#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static long file_size(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}
static void put(const char *p, const char *text) {
    FILE *f = fopen(p, "w");
    if (f) { fputs(text, f); fclose(f); }
}

/* An in-place export (the temporary file refused) whose fsync or close
   fails leaves the file empty, with PROF_E_IO */
static void in_place(prof_events *ev, const char *path, int *fault, const char *what) {
    prof_result r;
    put(path, "old bytes\n");
    g_no_tmp = 1;
    *fault = 1;
    check_log_reset();
    r = prof_export_chrome_trace(ev, path);
    *fault = 0;
    g_no_tmp = 0;
    CHECK_EQ_INT(r, PROF_E_IO);
    if (!CHECK_EQ_INT(file_size(path), 0)) fprintf(stderr, "in place, %s: the file kept %ld bytes though the message says it was emptied\n", what, file_size(path));
    CHECK(strstr(prof_last_error(), "in place") && strstr(prof_last_error(), "Input/output error") && strstr(prof_last_error(), "emptied"));
    /* the same export without the fault: the whole trace */
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    CHECK(file_size(path) > 100);
}

int main(void) {
    char dir[] = "/tmp/prof_late_XXXXXX", path[256];
    prof_events *ev = prof_events_create();
    prof_event_desc d;
    struct stat st;
    int i;
    prof_set_log(check_log, NULL);
    if (!CHECK(ev && mkdtemp(dir) != NULL)) return check_report();
    for (i = 0; i < 20; i++) {
        memset(&d, 0, sizeof d);
        d.name = i % 2 ? "a" : "b";
        d.thread = 1;
        d.start_ns = (int64_t)i * 3000;
        d.end_ns = d.start_ns + 1000;
        CHECK(prof_events_add(ev, &d) >= 0);
    }
    snprintf(path, sizeof path, "%s/trace.json", dir);
    in_place(ev, path, &g_fsync_eio, "fsync");
    in_place(ev, path, &g_close_eio, "close");

    /* a refused rename with no file there: the rename's reason */
    snprintf(path, sizeof path, "%s/new.json", dir);
    g_rename_eacces = 1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
    g_rename_eacces = 0;
    if (!CHECK(strstr(prof_last_error(), "Permission denied") != NULL)) fprintf(stderr, "the message: %s\n", prof_last_error());
    CHECK_EQ_INT(file_size(path), -1);

    /* the old file's mode not given: a warning */
    snprintf(path, sizeof path, "%s/mode.json", dir);
    put(path, "old\n");
    CHECK(chmod(path, 0644) == 0);
    check_log_reset();
    g_fchmod_eperm = 1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
    g_fchmod_eperm = 0;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(check_log_find(PROF_E_IO, "mode 0644", NULL) > 0);
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK); /* and without the fault: the old mode */
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600); /* (the mode of the file it replaced: 0600 now) */

    prof_events_free(ev);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    CHECK(system(path) == 0);
    return check_report();
}
