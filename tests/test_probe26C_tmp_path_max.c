/* An export to a path that open(2) and fopen accept, but that is within
   a few bytes of PATH_MAX (4096 with its NUL on Linux): prof.h writes a
   temporary file beside the target first, "<target>.tmp<pid>.<n>"
   (prof__out_open_file), and that name is some 15 bytes longer than the
   target. It only looks at the length of the last component (NAME_MAX),
   not at the whole path's, so the temporary name passes PATH_MAX and
   the export fails with ENAMETOOLONG ("cannot create '...': File name
   too long"), though the target itself could be created: a deep output
   tree (a CI workspace, a Bazel sandbox, a per-run directory per
   experiment) gets no trace at all, where PyTorch's open(path, "w") and
   fopen write it. Every exporter goes through the same code.
   The file must be written (PROF_OK, the same bytes as at a short path)
   and no temporary file left behind. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif


/* the same bytes but for the trace's "traceName" (the path itself) */
static int same_but_trace_name(const char *a, size_t na, const char *b, size_t nb) {
    const char *ka = strstr(a, "\"traceName\""), *kb = strstr(b, "\"traceName\"");
    if (!ka || !kb) return na == nb && memcmp(a, b, na) == 0;
    return ka - a == kb - b && memcmp(a, b, (size_t)(ka - a)) == 0;
}

int main(void) {
    char top[] = "/tmp/prof_probe26C_XXXXXX";
    static char path[PATH_MAX + 64], ref[256];
    size_t k, len, want = PATH_MAX - 4; /* 4092 bytes + NUL: fits */
    prof_events *ev = prof_events_create();
    FILE *f;
    prof_set_log(check_log, NULL);
    if (!CHECK(ev && mkdtemp(top) != NULL)) return check_report();
    check_add_leaf(ev);
    CHECK_EQ_INT(prof_events_add_memory(ev, 1, 2000, 64, PROF_DEVICE_CPU, 0), PROF_OK);

    /* directories of 200 bytes down to about PATH_MAX, then a file name */
    snprintf(path, sizeof path, "%s", top);
    while (strlen(path) + 1 + 200 + 1 + 20 < want) {
        len = strlen(path);
        path[len] = '/';
        memset(path + len + 1, 'd', 200);
        path[len + 201] = 0;
        if (!CHECK_MSG(mkdir(path, 0700) == 0, "mkdir: %s", strerror(errno))) return check_report();
    }
    len = strlen(path);
    path[len++] = '/';
    while (len < want) path[len++] = 'f';
    path[len] = 0;
    CHECK_EQ_INT(strlen(path), want);
    /* the target can be made */
    f = fopen(path, "w");
    CHECK_MSG(f != NULL, "fopen of the %zu-byte path: %s", want, strerror(errno));
    if (f) fclose(f);
    unlink(path);

    for (k = 0; k < CHECK_N_EXPORTERS; k++) {
        prof_result r, rr;
        char *a, *b;
        size_t na = 0, nb = 0;
        snprintf(ref, sizeof ref, "%s/ref", top);
        rr = CHECK_EXPORTERS[k].fn(ev, ref);
        check_log_reset();
        r = CHECK_EXPORTERS[k].fn(ev, path);
        CHECK_MSG(r == PROF_OK, "%s to a %zu-byte path (PATH_MAX %d) that fopen opens: %d (%s)",
                  CHECK_EXPORTERS[k].name, want, PATH_MAX, (int)r, prof_last_error());
        a = check_read_file_n(ref, &na);
        b = check_read_file_n(path, &nb);
        CHECK_MSG(rr == PROF_OK && a && b && same_but_trace_name(a, na, b, nb), "%s: the file at the long path (%s, %zu bytes) is not the one at a short path (%zu bytes)",
                  CHECK_EXPORTERS[k].name, b ? "present" : "absent", nb, na);
        free(a);
        free(b);
        unlink(ref);
        unlink(path);
    }
    /* nothing left beside the target */
    {
        char dir[PATH_MAX + 64];
        snprintf(dir, sizeof dir, "%s", path);
        *strrchr(dir, '/') = 0;
        CHECK_EQ_INT(check_count_tmp(dir), 0);
        CHECK_EQ_INT(check_count_tmp(top), 0);
    }
    /* remove the tree, deepest first */
    while (strlen(path) > strlen(top)) {
        *strrchr(path, '/') = 0;
        rmdir(path);
    }
    prof_events_free(ev);
    return check_report();
}
