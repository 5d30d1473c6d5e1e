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
   - a target that is a FIFO, when the first look at it (stat) failed
     (EIO): the FIFO was replaced by a regular file and PROF_OK returned,
     its reader getting nothing; now the second look (fstatat) sees the
     FIFO and writes into it, and when that look fails too the export
     fails (nothing it cannot see is replaced);
   - a refused rename whose copy over the old file read an end before the
     temporary file's size (cut meanwhile, a FUSE file system): PROF_OK
     with the target empty or cut; now PROF_E_IO, the target emptied;
   - a copy over the old file whose temporary file could not be removed
     afterwards: left behind with no word; now a warning names it;
   - a symlink at the path that could not be looked at (lstat: EIO) was
     taken for no link and replaced by the new file (PROF_OK), the file it
     points to left old; now the export fails and the link stays;
   - an in-place export that failed and could not empty the file either
     (ftruncate: EIO) said "the file was emptied" over a whole trace; now
     the message says emptying failed too;
   - a temporary file whose create made the name and then failed (EIO, a
     network file system) was left behind; now it goes;
   - a rename that was done but said it failed (NFS: a retransmitted
     rename whose first reply was lost says ENOENT; EIO) failed the export
     with "the file was not replaced" over the new, whole file; now it
     succeeds with a warning. One that says EIO and was not done still
     fails, the old file kept.
   The test defines openat, fsync, close, renameat, fchmod, stat, fstatat,
   read, unlinkat, lstat, readlink and ftruncate itself (the executable's definitions come first); each
   fault acts only while its mode is set, on the export's own file. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int g_no_tmp;     /* openat of a temporary file (".tmp") says EACCES */
static int g_fsync_eio;  /* fsync says EIO */
static int g_close_eio;  /* close of a descriptor open for writing says EIO (after closing it) */
static int g_rename_eacces, g_fchmod_eperm;
static int g_rename_done_err; /* renameat renames, then says this errno (NFS's
                                 retransmitted rename: ENOENT; EIO) */
static int g_rename_undone_err; /* renameat says this errno without renaming */
static int g_stat_eio;   /* stat of a name with "pipe" says this errno (EIO, EOVERFLOW) */
static int g_fstatat_eio; /* fstatat of a name with "pipe" says this errno */
static int g_fstat_eoverflow; /* fstat of a temporary file says EOVERFLOW (its inode number past 2^32 on i386 without LFS) */
static int g_tmp_emfile; /* openat of a temporary file: another process's file of that name made, then EMFILE */
static char g_tmp_other[512]; /* ... its path */
static int g_read_eof;   /* read of a temporary file (".tmp") says 0 (its end) */
static int g_unlink_eio; /* unlinkat of a temporary file says EIO */
static int g_link_eio;   /* lstat and readlink of a name with "link" say EIO */
static int g_ftruncate_eio; /* ftruncate says EIO */
static int g_tmp_made_eio; /* openat of a temporary file makes it, then says EIO */

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
    if (real && __atomic_load_n(&g_tmp_emfile, __ATOMIC_SEQ_CST) && strstr(path, ".tmp")) {
        int fd = real(dir, path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) close(fd);
        snprintf(g_tmp_other, sizeof g_tmp_other, "%s", path);
        errno = EMFILE;
        return -1;
    }
    if (real && __atomic_load_n(&g_tmp_made_eio, __ATOMIC_SEQ_CST) && strstr(path, ".tmp")) {
        int fd = real(dir, path, flags, mode);
        if (fd >= 0) close(fd);
        errno = EIO;
        return -1;
    }
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
    int done = __atomic_load_n(&g_rename_done_err, __ATOMIC_SEQ_CST), undone = __atomic_load_n(&g_rename_undone_err, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&g_rename_eacces, __ATOMIC_SEQ_CST)) { errno = EACCES; return -1; }
    if (undone) { errno = undone; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "renameat");
    if (real && done) {
        if (real(a, from, b, to) != 0) return -1;
        errno = done;
        return -1;
    }
    return real ? real(a, from, b, to) : -1;
}
int fchmod(int fd, mode_t mode) {
    int (*real)(int, mode_t);
    if (__atomic_load_n(&g_fchmod_eperm, __ATOMIC_SEQ_CST)) { errno = EPERM; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "fchmod");
    return real ? real(fd, mode) : -1;
}
int stat(const char *path, struct stat *st) {
    int (*real)(const char *, struct stat *);
    int e = __atomic_load_n(&g_stat_eio, __ATOMIC_SEQ_CST);
    if (e && strstr(path, "pipe")) { errno = e; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "stat");
    return real ? real(path, st) : -1;
}
int fstatat(int dir, const char *path, struct stat *st, int flags) {
    int (*real)(int, const char *, struct stat *, int);
    int e = __atomic_load_n(&g_fstatat_eio, __ATOMIC_SEQ_CST);
    if (e && strstr(path, "pipe")) { errno = e; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "fstatat");
    return real ? real(dir, path, st, flags) : -1;
}
ssize_t read(int fd, void *buf, size_t n) {
    ssize_t (*real)(int, void *, size_t);
    if (__atomic_load_n(&g_read_eof, __ATOMIC_SEQ_CST)) {
        char link[64], to[512];
        ssize_t k;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        k = readlink(link, to, sizeof to - 1);
        if (k > 0 && (to[k] = 0, strstr(to, ".tmp"))) return 0;
    }
    *(void **)&real = dlsym(RTLD_NEXT, "read");
    return real ? real(fd, buf, n) : -1;
}
int lstat(const char *path, struct stat *st) {
    int (*real)(const char *, struct stat *);
    if (__atomic_load_n(&g_link_eio, __ATOMIC_SEQ_CST) && strstr(path, "link")) { errno = EIO; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "lstat");
    return real ? real(path, st) : -1;
}
ssize_t readlink(const char *path, char *buf, size_t n) {
    ssize_t (*real)(const char *, char *, size_t);
    if (__atomic_load_n(&g_link_eio, __ATOMIC_SEQ_CST) && strstr(path, "link")) { errno = EIO; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "readlink");
    return real ? real(path, buf, n) : -1;
}
int ftruncate(int fd, off_t len) {
    int (*real)(int, off_t);
    if (__atomic_load_n(&g_ftruncate_eio, __ATOMIC_SEQ_CST)) { errno = EIO; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "ftruncate");
    return real ? real(fd, len) : -1;
}
int fstat(int fd, struct stat *st) {
    int (*real)(int, struct stat *);
    if (__atomic_load_n(&g_fstat_eoverflow, __ATOMIC_SEQ_CST)) {
        char link[64], to[512];
        ssize_t (*rl)(const char *, char *, size_t);
        ssize_t k;
        *(void **)&rl = dlsym(RTLD_NEXT, "readlink");
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        k = rl ? rl(link, to, sizeof to - 1) : -1;
        if (k > 0 && (to[k] = 0, strstr(to, ".tmp"))) { errno = EOVERFLOW; return -1; }
    }
    *(void **)&real = dlsym(RTLD_NEXT, "fstat");
    return real ? real(fd, st) : -1;
}
int unlinkat(int dir, const char *path, int flags) {
    int (*real)(int, const char *, int);
    if (__atomic_load_n(&g_unlink_eio, __ATOMIC_SEQ_CST) && strstr(path, ".tmp")) { errno = EIO; return -1; }
    *(void **)&real = dlsym(RTLD_NEXT, "unlinkat");
    return real ? real(dir, path, flags) : -1;
}

#include "prof.h"
#include "check.h"
#include <glob.h>
#include <poll.h>
#include <time.h>
#include <pthread.h>
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

/* The FIFO's reader: every byte, into a string. Opened without waiting
   and polled, 20 s at most: a FIFO the export replaced (the defect) would
   leave a reader blocked in open(2) for ever. */
typedef struct { const char *path; char *got; size_t n; } reader;
static void *read_fifo(void *arg) {
    reader *r = (reader *)arg;
    int fd = open(r->path, O_RDONLY | O_NONBLOCK), waited = 0;
    char chunk[4096];
    if (fd < 0) return NULL;
    while (waited < 200) {
        struct pollfd p;
        ssize_t k;
        p.fd = fd;
        p.events = POLLIN;
        if (poll(&p, 1, 100) == 0) { waited++; continue; }
        if ((k = read(fd, chunk, sizeof chunk)) > 0) {
            char *g = (char *)realloc(r->got, r->n + (size_t)k + 1);
            if (!g) break;
            memcpy(g + r->n, chunk, (size_t)k);
            r->got = g;
            r->n += (size_t)k;
            g[r->n] = 0;
        } else if (k == 0 || errno != EAGAIN) {
            break; /* the writer closed it */
        }
    }
    close(fd);
    return NULL;
}
static int is_fifo(const char *p) {
    struct stat st;
    return lstat(p, &st) == 0 && S_ISFIFO(st.st_mode);
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

    /* a rename done that says it failed: the export succeeded, with a
       warning; one not done that says so: not replaced, the old file kept */
    {
        int errs[2] = { ENOENT, EIO }, k;
        char *want, *got;
        size_t want_n = 0, n = 0;
        snprintf(path, sizeof path, "%s/renamed.json", dir);
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        want = check_read_file_n(path, &want_n);
        CHECK(want && want_n > 100);
        for (k = 0; k < 2; k++) {
            put(path, "old bytes\n");
            check_log_reset();
            g_rename_done_err = errs[k];
            if (!CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK)) fprintf(stderr, "rename done, said %s: %s\n", strerror(errs[k]), prof_last_error());
            g_rename_done_err = 0;
            CHECK(check_log_has(PROF_E_IO, "but it was done") && check_log_has(PROF_E_IO, strerror(errs[k])));
            got = check_read_file_n(path, &n);
            CHECK(got && want && n == want_n && memcmp(got, want, n) == 0);
            free(got);
            CHECK_EQ_INT(check_count_tmp(dir), 0);
        }
        put(path, "old bytes\n");
        g_rename_undone_err = EIO;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
        g_rename_undone_err = 0;
        if (!CHECK(strstr(prof_last_error(), "not replaced") && strstr(prof_last_error(), "Input/output error"))) fprintf(stderr, "the message: %s\n", prof_last_error());
        got = check_read_file_n(path, &n);
        CHECK(got && strcmp(got, "old bytes\n") == 0);
        free(got);
        CHECK_EQ_INT(check_count_tmp(dir), 0);
        free(want);
        CHECK(unlink(path) == 0);
    }

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

    {
        /* a FIFO whose first look failed: written into, still a FIFO */
        char *want;
        size_t want_n = 0;
        reader rd;
        pthread_t th;
        /* the bytes wanted (the trace names its file): the same export
           to a regular file of the same name */
        snprintf(path, sizeof path, "%s/pipe", dir);
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        want = check_read_file_n(path, &want_n);
        CHECK(want && want_n > 100);
        CHECK(unlink(path) == 0);
        CHECK(mkfifo(path, 0644) == 0);
        memset(&rd, 0, sizeof rd);
        rd.path = path;
        CHECK(pthread_create(&th, NULL, read_fifo, &rd) == 0);
        g_stat_eio = EIO;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        g_stat_eio = 0;
        CHECK(pthread_join(th, NULL) == 0);
        if (!CHECK(is_fifo(path))) fprintf(stderr, "the FIFO was replaced\n");
        if (!CHECK(rd.got && want && rd.n == want_n && memcmp(rd.got, want, want_n) == 0)) fprintf(stderr, "the reader got %zu bytes, want %zu\n", rd.n, want_n);
        free(rd.got);
        /* both looks failed (EIO; EOVERFLOW, an inode number past 2^32 on
           i386 without LFS): an error, the FIFO left. A reader each time,
           so that an export that opens the FIFO after all fails the test
           instead of waiting for a reader for ever. */
        {
            int errs[2] = { EIO, EOVERFLOW }, k;
            for (k = 0; k < 2; k++) {
                memset(&rd, 0, sizeof rd);
                rd.path = path;
                CHECK(pthread_create(&th, NULL, read_fifo, &rd) == 0);
                g_stat_eio = g_fstatat_eio = errs[k];
                CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
                g_stat_eio = g_fstatat_eio = 0;
                if (!CHECK(strstr(prof_last_error(), strerror(errs[k])) != NULL)) fprintf(stderr, "the message: %s\n", prof_last_error());
                { /* the reader's end: it stops once a writer came and went
                     (ENXIO until it has opened its end: tried for 2 s) */
                    int w = -1, tries;
                    for (tries = 0; tries < 200 && (w = open(path, O_WRONLY | O_NONBLOCK)) < 0; tries++) {
                        struct timespec ts = { 0, 10000000 };
                        nanosleep(&ts, NULL);
                    }
                    if (w >= 0) close(w);
                }
                CHECK(pthread_join(th, NULL) == 0);
                CHECK_EQ_INT(rd.n, 0);
                free(rd.got);
                CHECK(is_fifo(path));
                CHECK_EQ_INT(check_count_tmp(dir), 0);
            }
        }
        CHECK(unlink(path) == 0);

        /* a copy over the old file (rename refused) that reads an early end */
        snprintf(path, sizeof path, "%s/copy.json", dir);
        free(want);
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        want = check_read_file_n(path, &want_n);
        CHECK(want && want_n > 100);
        put(path, "old bytes\n");
        check_log_reset();
        g_rename_eacces = g_read_eof = 1;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
        g_rename_eacces = g_read_eof = 0;
        if (!CHECK(strstr(prof_last_error(), "in place") && strstr(prof_last_error(), "emptied"))) fprintf(stderr, "the message: %s\n", prof_last_error());
        CHECK_EQ_INT(file_size(path), 0);
        CHECK_EQ_INT(check_count_tmp(dir), 0);
        /* the same copy, whole: the bytes of the reference */
        g_rename_eacces = 1;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        g_rename_eacces = 0;
        {
            size_t n = 0;
            char *got = check_read_file_n(path, &n);
            CHECK(got && want && n == want_n && memcmp(got, want, n) == 0);
            free(got);
        }
        CHECK_EQ_INT(check_count_tmp(dir), 0);

        /* the same copy where fstat of the temporary file says EOVERFLOW
           (i386 without LFS, an inode number past 2^32): the size comes
           from lseek, the copy is whole */
        g_rename_eacces = g_fstat_eoverflow = 1;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        g_rename_eacces = g_fstat_eoverflow = 0;
        {
            size_t n = 0;
            char *got = check_read_file_n(path, &n);
            CHECK(got && want && n == want_n && memcmp(got, want, n) == 0);
            free(got);
        }
        CHECK_EQ_INT(check_count_tmp(dir), 0);

        /* copied over, its temporary file not removed: a warning names it */
        check_log_reset();
        g_rename_eacces = g_unlink_eio = 1;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        g_rename_eacces = g_unlink_eio = 0;
        if (!CHECK(check_log_has(PROF_E_IO, "temporary file") && check_log_has(PROF_E_IO, "copy.json.tmp"))) fprintf(stderr, "no warning of the temporary file left\n");
        { /* it is there (the warning is true): removed here */
            glob_t left;
            char pattern[300];
            snprintf(pattern, sizeof pattern, "%s/copy.json.tmp*", dir);
            if (CHECK(glob(pattern, 0, NULL, &left) == 0 && left.gl_pathc == 1)) CHECK(unlink(left.gl_pathv[0]) == 0);
            globfree(&left);
        }
        free(want);
    }
    {
        /* a symlink that cannot be looked at: not replaced */
        char real_path[256];
        struct stat lst;
        size_t n = 0;
        char *got;
        snprintf(path, sizeof path, "%s/link.json", dir);
        snprintf(real_path, sizeof real_path, "%s/real.json", dir);
        put(real_path, "OLD\n");
        CHECK(symlink("real.json", path) == 0);
        g_link_eio = 1;
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
        g_link_eio = 0;
        if (!CHECK(strstr(prof_last_error(), "Input/output error") != NULL)) fprintf(stderr, "the message: %s\n", prof_last_error());
        if (!CHECK(lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))) fprintf(stderr, "the link was replaced\n");
        got = check_read_file_n(real_path, &n);
        CHECK(got && strcmp(got, "OLD\n") == 0);
        free(got);
        /* and without the fault: through the link */
        CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_OK);
        CHECK(lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && file_size(real_path) > 100);
        CHECK(unlink(path) == 0 && unlink(real_path) == 0);
    }
    /* in place, failed, and not emptied: the message says so */
    snprintf(path, sizeof path, "%s/trace.json", dir);
    put(path, "old bytes\n");
    g_no_tmp = g_fsync_eio = g_ftruncate_eio = 1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
    g_no_tmp = g_fsync_eio = g_ftruncate_eio = 0;
    if (!CHECK(strstr(prof_last_error(), "emptying it failed too") && !strstr(prof_last_error(), "was emptied")))
        fprintf(stderr, "the message: %s\n", prof_last_error());
    CHECK(file_size(path) > 100); /* (the whole trace: what the message now says is there) */
    /* a create that fails before the name is looked up (EMFILE) leaves a
       file already at the name alone: another process's of the same pid
       (containers sharing a directory) */
    snprintf(path, sizeof path, "%s/other.json", dir);
    g_tmp_emfile = 1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
    g_tmp_emfile = 0;
    {
        char other[1024]; /* (the name in the directory openat was given) */
        if (g_tmp_other[0] == '/') snprintf(other, sizeof other, "%s", g_tmp_other);
        else snprintf(other, sizeof other, "%s/%s", dir, g_tmp_other);
        if (!CHECK(g_tmp_other[0] && access(other, F_OK) == 0)) fprintf(stderr, "the file at the temporary name '%s' was removed\n", other);
        else CHECK(unlink(other) == 0);
    }
    /* a temporary file made, then its create failed: removed */
    snprintf(path, sizeof path, "%s/made.json", dir);
    g_tmp_made_eio = 1;
    CHECK_EQ_INT(prof_export_chrome_trace(ev, path), PROF_E_IO);
    g_tmp_made_eio = 0;
    CHECK_EQ_INT(file_size(path), -1);
    CHECK_EQ_INT(check_count_tmp(dir), 0);

    prof_events_free(ev);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    CHECK(system(path) == 0);
    return check_report();
}
