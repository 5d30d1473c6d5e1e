/* A file an exporter replaces keeps its whole mode: the new file is
   written under a temporary name and renamed over the old one, and gets
   the old file's mode first (prof__out_open_file: "one that replaces a
   file, its mode"), the sticky bit included (all 07777 bits, not only
   the 0777 permissions). The sticky bit stands for the special bits here:
   unlike set-user-ID and set-group-ID, the kernel does not clear it when
   a process without CAP_FSETID writes the file, so the test holds for
   any user. Found by mutation testing: keeping only 0777 left every
   other test passing. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_DIR "build/test_edges_replace_mode"
#define OUT OUT_DIR "/trace.json"

int main(void) {
    prof_events *e;
    struct stat st;
    FILE *f;
    mkdir("build", 0777);
    mkdir(OUT_DIR, 0777);
    prof_set_log(check_log, NULL);
    e = prof_events_create();
    check_add_leaf(e);
    unlink(OUT);
    if (!CHECK((f = fopen(OUT, "w")) != NULL)) return check_report();
    fputs("old\n", f);
    fclose(f);
    if (!CHECK_EQ_INT(chmod(OUT, 01640), 0)) return check_report();
    if (CHECK_EQ_INT(prof_export_chrome_trace(e, OUT), PROF_OK) && CHECK_EQ_INT(stat(OUT, &st), 0)) {
        CHECK_EQ_INT(st.st_mode & 07777, 01640);
        CHECK(st.st_size > 100); /* the new file, not the old one */
    }
    CHECK_EQ_INT(check_count_tmp(OUT_DIR), 0);
    prof_events_free(e);
    unlink(OUT);
    return check_report();
}
