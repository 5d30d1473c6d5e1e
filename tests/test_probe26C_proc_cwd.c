/* prof__out_open treats every path that begins with "/proc/" as a /proc
   file: opened in place with O_WRONLY, no O_CREAT, no O_TRUNC. But
   /proc/self/cwd/..., /proc/self/root/... and /proc/<pid>/cwd/... name
   ordinary files on ordinary file systems (tools pass them to reach a
   directory by a process's cwd or root: sandboxes, chroots, scripts that
   build paths from /proc/self/cwd). There:
   - a new file cannot be made: PROF_E_IO "cannot create
     '/proc/self/cwd/trace.json': No such file or directory", where fopen
     and PyTorch's open() create it;
   - an existing file longer than the export keeps its old tail after
     the new bytes: the export returns PROF_OK and leaves a corrupt file
     (a JSON trace with the old trace's end after its own, which no
     parser reads; folded stacks with stale lines), not even the
     atomic replacement the manual promises for regular files.
   Every exporter: a new file and a longer old one, each through
   /proc/self/cwd and /proc/self/root, must give the same bytes as the
   plain path (but the trace's traceName) and leave no temporary file. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static int same_but_trace_name(const char *a, size_t na, const char *b, size_t nb) {
    const char *ka = strstr(a, "\"traceName\""), *kb = strstr(b, "\"traceName\"");
    const char *ea, *eb;
    if (!ka || !kb) return na == nb && memcmp(a, b, na) == 0;
    if (ka - a != kb - b || memcmp(a, b, (size_t)(ka - a)) != 0) return 0;
    /* after the name: the same closing bytes */
    ea = strchr(ka + 14, '"');
    eb = strchr(kb + 14, '"');
    return ea && eb && na - (size_t)(ea - a) == nb - (size_t)(eb - b) && memcmp(ea, eb, na - (size_t)(ea - a)) == 0;
}

int main(void) {
    char dir[] = "/tmp/prof_probe26C_XXXXXX", cwd_was[4096];
    prof_events *ev = prof_events_create();
    size_t k, v;
    prof_set_log(check_log, NULL);
    if (!CHECK(ev && mkdtemp(dir) != NULL && getcwd(cwd_was, sizeof cwd_was) != NULL)) return check_report();
    if (!CHECK(chdir(dir) == 0)) return check_report();
    check_add_leaf(ev);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 2000, 64, PROF_DEVICE_CPU, 0), PROF_OK);
    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        char *want;
        size_t nwant = 0;
        if (!CHECK_EQ_INT(CHECK_EXPORTERS[k].fn(ev, "ref"), PROF_OK)) continue;
        want = check_read_file_n("ref", &nwant);
        for (v = 0; v < 4; v++) {
            char path[4200], *got;
            size_t ngot = 0;
            prof_result r;
            int old = v & 1;
            if (v < 2) snprintf(path, sizeof path, "/proc/self/cwd/out");
            else snprintf(path, sizeof path, "/proc/self/root%s/out", dir);
            unlink("out");
            if (old) { /* a longer file from an earlier run */
                FILE *f = fopen("out", "w");
                size_t i;
                if (!CHECK(f != NULL)) continue;
                for (i = 0; i < nwant + 4096; i++) fputc('#', f);
                fclose(f);
            }
            check_log_reset();
            r = CHECK_EXPORTERS[k].fn(ev, path);
            CHECK_MSG(r == PROF_OK, "%s to %s (%s): %d (%s)", CHECK_EXPORTERS[k].name, path, old ? "a longer file there" : "a new file", (int)r, prof_last_error());
            got = check_read_file_n("out", &ngot);
            CHECK_MSG(got && want && same_but_trace_name(want, nwant, got, ngot),
                      "%s to %s (%s): the file (%zu bytes%s) is not the export (%zu bytes)", CHECK_EXPORTERS[k].name, path,
                      old ? "a longer file there" : "a new file", ngot, got && ngot > nwant && got[ngot - 1] == '#' ? ", the old file's tail after it" : "", nwant);
            free(got);
        }
        free(want);
        unlink("ref");
    }
    unlink("out");
    CHECK_EQ_INT(check_count_tmp("."), 0);
    CHECK(chdir(cwd_was) == 0);
    rmdir(dir);
    prof_events_free(ev);
    return check_report();
}
