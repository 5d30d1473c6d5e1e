/* An export over a file the caller may write, in a directory with the
   sticky bit (/tmp, /var/tmp, a shared scratch directory on a multi-user
   GPU server) where the file belongs to someone else: the directory
   is writable, so prof__out_open_file makes its temporary file there and
   writes the whole export, but the sticky bit forbids renaming over (or
   unlinking) another user's file, and rename(2) fails with EPERM:
   "writing '/tmp/trace.json' failed: Operation not permitted; the file was
   not replaced". fopen(path, "w") and PyTorch's open() write it (the file
   is 0666, owned by the directory's owner, so even fs.protected_regular
   allows the open). The manual: "A file the user may write in a directory
   they may not is written in place" - the same holds where the directory
   lets the user make files but not replace this one; the in-place
   fallback is only tried when the temporary file cannot be made, never
   when the rename is refused.
   As root, a child that takes the uid of nobody (65534) exports over
   root's 0666 file in a root-owned 1777 directory: PROF_OK, the file holds
   the export (the same bytes as elsewhere), still root's, and no temporary
   file is left. Skipped without root. */
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


static char g_dir[64], g_refdir[64];
static prof_events *g_ev;

static int same_but_trace_name(const char *a, size_t na, const char *b, size_t nb) {
    const char *ka = strstr(a, "\"traceName\""), *kb = strstr(b, "\"traceName\"");
    if (!ka || !kb) return na == nb && memcmp(a, b, na) == 0;
    return ka - a == kb - b && memcmp(a, b, (size_t)(ka - a)) == 0;
}

/* as nobody: 'y', or 'n' with the reasons on stderr */
static char child(void) {
    size_t k;
    int bad = 0;
    if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0) return 's';
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        char path[128], ref[128], *want, *got;
        size_t nwant = 0, ngot = 0;
        struct stat st;
        FILE *f;
        prof_result r;
        snprintf(path, sizeof path, "%s/shared%zu.out", g_dir, k);
        snprintf(ref, sizeof ref, "%s/ref%zu.out", g_refdir, k);
        f = fopen(path, "r+"); /* the file is the caller's to write */
        if (!f) { fprintf(stderr, "fopen(%s, \"r+\") as nobody: %s\n", path, strerror(errno)); return 'f'; }
        fclose(f);
        if (CHECK_EXPORTERS[k].fn(g_ev, ref) != PROF_OK) return 'r';
        want = check_read_file_n(ref, &nwant);
        unlink(ref);
        r = CHECK_EXPORTERS[k].fn(g_ev, path);
        got = check_read_file_n(path, &ngot);
        if (r != PROF_OK) {
            fprintf(stderr, "%s over root's 0666 file in a sticky directory, as nobody: %d (%s)\n", CHECK_EXPORTERS[k].name, (int)r, prof_last_error());
            bad = 1;
        }
        if (!got || !want || !same_but_trace_name(want, nwant, got, ngot)) {
            fprintf(stderr, "%s: the file holds %zu bytes, not the export's %zu\n", CHECK_EXPORTERS[k].name, ngot, nwant);
            bad = 1;
        }
        if (stat(path, &st) != 0 || st.st_uid != 0 || (st.st_mode & 07777) != 0666) {
            fprintf(stderr, "%s: the file is no longer root's 0666 one\n", CHECK_EXPORTERS[k].name);
            bad = 1;
        }
        free(want);
        free(got);
    }
    if (check_count_tmp(g_dir) != 0) bad = 1;
    return bad ? 'n' : 'y';
}
static void release(void) {}

int main(void) {
    int status = 0;
    size_t k;
    char got, path[128];
    prof_set_log(check_log, NULL);
    if (geteuid() != 0) {
        printf("test_probe26C_sticky_dir: skipped (needs root to make another user's file)\n");
        return check_report();
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/prof_probe26C_XXXXXX");
    snprintf(g_refdir, sizeof g_refdir, "/tmp/prof_probe26C_XXXXXX");
    g_ev = prof_events_create();
    if (!CHECK(g_ev && mkdtemp(g_dir) != NULL && chmod(g_dir, 01777) == 0)) return check_report();
    if (!CHECK(mkdtemp(g_refdir) != NULL && chmod(g_refdir, 0777) == 0)) return check_report();
    check_add_leaf(g_ev);
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        int fd;
        snprintf(path, sizeof path, "%s/shared%zu.out", g_dir, k);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        CHECK(fd >= 0 && write(fd, "an older, longer file of root's .........................................\n", 74) == 74);
        if (fd >= 0) close(fd);
        CHECK(chmod(path, 0666) == 0);
    }
    got = check_fork_verdict(child, release, &status);
    CHECK_MSG(got == 'y', "exports as nobody over root's 0666 files in a sticky directory: verdict '%c' (n: see above; s: no setuid; f: fopen refused; r: no reference; 0: the child died, status %d)", got ? got : '0', status);
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        snprintf(path, sizeof path, "%s/shared%zu.out", g_dir, k);
        unlink(path);
    }
    {
        char cmd[200];
        snprintf(cmd, sizeof cmd, "rm -f %s/*.tmp*", g_dir);
        if (system(cmd) != 0) {}
    }
    rmdir(g_dir);
    rmdir(g_refdir);
    prof_events_free(g_ev);
    return check_report();
}
