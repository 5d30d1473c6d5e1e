/* A relative export path and a chdir by another thread while the export
   runs (a worker pool that changes directory, a test harness, a plugin).
   fopen resolves a path once, when it opens the file; prof.h resolves it
   three times: open(2) of "<path>.tmp<pid>.<n>" at the start, then, in
   prof__out_end, rename(2) of that name to the path and, on failure,
   unlink(2) of it - each against the working directory of that moment.
   After a chdir in between, rename finds no temporary file in the new
   directory: the export fails with "writing 'trace.json' failed: No such
   file or directory; the file was not replaced" (a file it did write),
   and the unlink misses too, so "trace.json.tmp<pid>.<n>" stays in the
   first directory for good - the manual's promise is the old file or
   none, never a stray half. Also past the first directory: a chdir into
   a directory that holds a trace.json.tmp<pid>.<n> of its own would
   move that one over its trace.json.
   (A directory descriptor taken at the start, with openat, renameat and
   unlinkat against it, resolves the path once, as fopen does; it also
   removes test_probe26C_tmp_path_max's PATH_MAX limit.)
   The chdir comes deterministically: this test defines close() (the
   executable's definition comes first; see test_probe24D_close_eintr)
   and changes directory in the export's close of its file, just before
   the rename. Every exporter: PROF_OK, the file in the first directory,
   with the export's bytes, and no temporary file in either directory. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int g_active;
static char g_elsewhere[64];
int close(int fd) {
    int (*real)(int);
    int fl = fcntl(fd, F_GETFL); /* the output file: open for writing */
    *(void **)&real = dlsym(RTLD_NEXT, "close");
    if (!real) return -1;
    if (fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && __atomic_exchange_n(&g_active, 0, __ATOMIC_SEQ_CST)) {
        if (chdir(g_elsewhere) != 0) return -1; /* "another thread" changes directory */
    }
    return real(fd);
}

#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


int main(void) {
    char first[] = "/tmp/prof_probe26C_XXXXXX", cwd_was[4096], ref[128], out[128], stray[128];
    prof_events *ev = prof_events_create();
    size_t k;
    prof_set_log(check_log, NULL);
    snprintf(g_elsewhere, sizeof g_elsewhere, "/tmp/prof_probe26C_XXXXXX");
    if (!CHECK(ev && mkdtemp(first) && mkdtemp(g_elsewhere) && getcwd(cwd_was, sizeof cwd_was))) return check_report();
    check_add_leaf(ev);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 2000, 64, PROF_DEVICE_CPU, 0), PROF_OK);
    snprintf(ref, sizeof ref, "%s/ref", first);
    snprintf(out, sizeof out, "%s/trace.out", first);
    snprintf(stray, sizeof stray, "%s/trace.out", g_elsewhere);
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        char *want, *got;
        size_t nwant = 0, ngot = 0;
        prof_result r;
        if (!CHECK_EQ_INT(CHECK_EXPORTERS[k].fn(ev, ref), PROF_OK)) continue;
        want = check_read_file_n(ref, &nwant);
        if (!CHECK(chdir(first) == 0)) break;
        __atomic_store_n(&g_active, 1, __ATOMIC_SEQ_CST);
        check_log_reset();
        r = CHECK_EXPORTERS[k].fn(ev, "trace.out");
        CHECK_MSG(__atomic_load_n(&g_active, __ATOMIC_SEQ_CST) == 0, "%s: the export closed no file it wrote", CHECK_EXPORTERS[k].name);
        __atomic_store_n(&g_active, 0, __ATOMIC_SEQ_CST);
        CHECK_MSG(r == PROF_OK, "%s to \"trace.out\" with a chdir while it ran: %d (%s)", CHECK_EXPORTERS[k].name, (int)r, prof_last_error());
        got = check_read_file_n(out, &ngot);
        /* (the trace's traceName is the path as given: the same in both) */
        CHECK_MSG(got && want && (k == 0 ? ngot > 0 && strstr(got, "\"traceName\"") != NULL : ngot == nwant && memcmp(got, want, nwant) == 0),
                  "%s: the file in the first directory is %s (%zu bytes, the export %zu)", CHECK_EXPORTERS[k].name, got ? "not the export" : "absent", ngot, nwant);
        CHECK_MSG(access(stray, F_OK) != 0, "%s: a trace.out appeared in the directory changed to", CHECK_EXPORTERS[k].name);
        CHECK_EQ_INT(check_count_tmp(first), 0);
        CHECK_EQ_INT(check_count_tmp(g_elsewhere), 0);
        free(want);
        free(got);
        unlink(out);
        unlink(stray);
        unlink(ref);
        /* what a failed export left: cleaned for the next exporter */
        {
            char cmd[200];
            snprintf(cmd, sizeof cmd, "rm -f %s/*.tmp* %s/*.tmp*", first, g_elsewhere);
            if (system(cmd) != 0) {}
        }
    }
    CHECK(chdir(cwd_was) == 0);
    rmdir(first);
    rmdir(g_elsewhere);
    prof_events_free(ev);
    return check_report();
}
