/* Temporary files of earlier runs that were killed mid-export (the manual:
   "A process that exits or is killed in the middle of an export leaves
   that temporary file beside the target: <target>.tmp<pid>.<n>"). The
   name is deterministic: the pid and a per-process counter from 0, and
   prof__out_open_file gives up after 16 names that exist (O_EXCL,
   EEXIST). In a container the program is always the same pid (1, or a
   small number), so each run killed during its export (a timeout, the
   OOM killer, a preempted job) leaves the next name of the same series
   in the persistent output directory; after 16 such runs every export
   to that path fails for good, with a message that blames the target:
   "cannot create 'trace.json': File exists" (the target's existence is
   not the problem: a fresh path in the same directory works).
   Simulated: names <target>.tmp<this pid>.0 ... .63 left in the
   directory (what 64 killed runs with this pid would leave). Every
   exporter must still write the target (a name no earlier run can have
   taken: more tries, or a random part, or O_TMPFILE and linkat), and
   leave the stale files alone. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STALE 64

int main(void) {
    char dir[] = "/tmp/prof_probe26C_XXXXXX", path[128], stale[192];
    prof_events *ev = prof_events_create();
    size_t k;
    int n, left;
    prof_set_log(check_log, NULL);
    if (!CHECK(ev && mkdtemp(dir) != NULL)) return check_report();
    check_add_leaf(ev);
    snprintf(path, sizeof path, "%s/trace.out", dir);
    for (n = 0; n < STALE; n++) {
        int fd;
        snprintf(stale, sizeof stale, "%s.tmp%ld.%d", path, (long)getpid(), n);
        fd = open(stale, O_WRONLY | O_CREAT | O_EXCL, 0644);
        CHECK(fd >= 0 && write(fd, "{\"half", 6) == 6);
        if (fd >= 0) close(fd);
    }
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        prof_result r;
        char *got;
        unlink(path);
        check_log_reset();
        r = CHECK_EXPORTERS[k].fn(ev, path);
        CHECK_MSG(r == PROF_OK, "%s with %d stale temporary files of this pid beside the target: %d (%s)", CHECK_EXPORTERS[k].name, STALE, (int)r, prof_last_error());
        got = check_read_file(path);
        CHECK_MSG(got && got[0], "%s: no file written", CHECK_EXPORTERS[k].name);
        free(got);
    }
    /* the stale files stay as they were (they may be someone's to look at) */
    for (n = 0, left = 0; n < STALE; n++) {
        snprintf(stale, sizeof stale, "%s.tmp%ld.%d", path, (long)getpid(), n);
        if (access(stale, F_OK) == 0) left++;
        unlink(stale);
    }
    CHECK_EQ_INT(left, STALE);
    unlink(path);
    CHECK_EQ_INT(check_count_tmp(dir), 0);
    rmdir(dir);
    prof_events_free(ev);
    return check_report();
}
