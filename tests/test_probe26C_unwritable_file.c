/* An export over an existing file that the caller may not write. open(2)
   with O_WRONLY refuses it (EACCES): fopen, the shell's >, PyTorch's
   open(path, "w") all fail and leave the file alone. prof.h replaces a
   regular file by writing a temporary file beside it and renaming it
   over the target (prof__out_open_file), which needs write permission
   on the directory only, so the file's own permission is never asked:
   - a file made read-only on purpose (chmod a-w results.json, to keep a
     baseline) is replaced, and keeps its 0444 mode, with no word;
   - another user's file in a directory the caller may write (a shared
     0777 output directory without the sticky bit) is replaced by one the
     caller owns (fchown back is not allowed): root's or a colleague's
     trace is gone.
   Each export must fail with PROF_E_IO and the reason (Permission
   denied), the file unchanged (content, mode, owner) and no temporary
   file left. Root may write any file, so as root the checks run in a
   child that takes the uid of nobody (65534); without root only the
   read-only file is checked. */
#define _GNU_SOURCE
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534


static const char OLD[] = "the old file, not writable by the exporter\n";
static char g_dir[64];
static prof_events *g_ev;

static int make_old(const char *path, mode_t mode, uid_t uid) {
    int fd;
    unlink(path);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return -1;
    if (write(fd, OLD, sizeof OLD - 1) != (ssize_t)(sizeof OLD - 1)) { close(fd); return -1; }
    close(fd);
    if (geteuid() == 0 && chown(path, uid, uid) != 0) return -1;
    return chmod(path, mode);
}

/* each exporter over its own file (path with the exporter's number in
   place of %zu, made by the caller): refused, the file unchanged */
static int check_refused(const char *what, const char *pattern, mode_t mode, uid_t uid) {
    size_t k;
    int bad = 0;
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        struct stat st;
        char *got, path[160];
        FILE *probe;
        prof_result r;
        snprintf(path, sizeof path, pattern, k);
        probe = fopen(path, "r+"); /* what open(2) for writing says */
        if (probe) { fclose(probe); fprintf(stderr, "%s: fopen could write %s\n", what, path); bad = 1; continue; }
        check_log_reset();
        r = CHECK_EXPORTERS[k].fn(g_ev, path);
        got = check_read_file(path);
        if (r != PROF_E_IO || !strstr(prof_last_error(), strerror(EACCES))) {
            fprintf(stderr, "%s: %s over %s: %d (%s), not PROF_E_IO with \"%s\"\n", what, CHECK_EXPORTERS[k].name, path, (int)r, prof_last_error(), strerror(EACCES));
            bad = 1;
        }
        if (!got || strcmp(got, OLD) != 0 || stat(path, &st) != 0 || (st.st_mode & 07777) != mode || st.st_uid != uid) {
            fprintf(stderr, "%s: %s replaced %s (now %s, mode %o, owner %d; was mode %o, owner %d)\n", what, CHECK_EXPORTERS[k].name, path,
                    got && strcmp(got, OLD) == 0 ? "the old content" : "new content", stat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0u,
                    stat(path, &st) == 0 ? (int)st.st_uid : -1, (unsigned)mode, (int)uid);
            bad = 1;
        }
        free(got);
    }
    return bad;
}
static int make_all(const char *pattern, mode_t mode, uid_t uid) {
    size_t k;
    char path[160];
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        snprintf(path, sizeof path, pattern, k);
        if (make_old(path, mode, uid) != 0) return -1;
    }
    return 0;
}
static void remove_all(const char *pattern) {
    size_t k;
    char path[160];
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        snprintf(path, sizeof path, pattern, k);
        unlink(path);
    }
}
static char g_own[128], g_other[128];

/* as nobody (or as the user), in g_dir: 'y', or 'n' with the reasons on stderr */
static char child(void) {
    int bad = 0;
    if (geteuid() == 0) {
        /* another user's files (made by root before the switch) */
        if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0) return 's';
        bad |= check_refused("root's 0644 file, as nobody", g_other, 0644, 0);
    }
    if (make_all(g_own, 0444, geteuid()) != 0) return 'm';
    bad |= check_refused("own read-only file (0444)", g_own, 0444, geteuid());
    bad |= check_count_tmp(g_dir) != 0;
    return bad ? 'n' : 'y';
}
static void release(void) {}

int main(void) {
    int status = 0;
    char got;
    prof_set_log(check_log, NULL);
    snprintf(g_dir, sizeof g_dir, "/tmp/prof_probe26C_XXXXXX");
    g_ev = prof_events_create();
    if (!CHECK(g_ev && mkdtemp(g_dir) != NULL && chmod(g_dir, 0777) == 0)) return check_report();
    check_add_leaf(g_ev);
    snprintf(g_own, sizeof g_own, "%s/readonly%%zu.json", g_dir);
    snprintf(g_other, sizeof g_other, "%s/others%%zu.json", g_dir);
    if (geteuid() == 0) CHECK(make_all(g_other, 0644, 0) == 0);
    got = check_fork_verdict(child, release, &status);
    CHECK_MSG(got == 'y', "exports over files the exporter may not write: verdict '%c' (n: replaced or not refused, see above; s: no setuid; m: no file made; 0: the child died, status %d)", got ? got : '0', status);
    remove_all(g_own);
    remove_all(g_other);
    rmdir(g_dir);
    prof_events_free(g_ev);
    return check_report();
}
