/* pthread_cancel of a thread inside an export. An export writes a regular
   file under a temporary name and renames it over the target at the end;
   its open(2), write(2) and close(2) are cancellation points. A thread
   cancelled there (deferred cancellation, the default) was unwound
   half-way: the export never returned, its memory leaked and its file was
   never written (here 3 of the 6 exporters, cancelled at the open(2) of
   the file); cancelled at a later write, the temporary file
   (name.tmp<pid>.<n>) and its descriptor would stay behind too.
   Wanted (as for prof_stop, test_probe19_cancel_stop): cancellation is
   held off for the length of the export, which then finishes as it would
   have; the cancel acts after it returns. The cancel is made pending
   before the export starts, so it acts at the export's first
   cancellation point whatever the timing. Every exporter, and the
   directory is checked to hold exactly the finished files. */
#define _GNU_SOURCE 1 /* before any system header: the test's own POSIX and GNU calls */
#include "prof.h"
#include "check.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEXPORT 7 /* the exporters, then the table through a FILE */
static prof_events *g_ev;
static FILE *g_table_file; /* the cancelled thread's, opened before (fopen and fclose are cancellation points) */
static char g_dir[64];

static prof_result run_export(int k, const char *path) {
    switch (k) {
    case 0: return prof_export_chrome_trace(g_ev, path);
    case 1: return prof_export_perfetto(g_ev, path);
    case 2: return prof_export_pprof(g_ev, path, "self_cpu_time_total");
    case 3: return prof_export_stacks(g_ev, path, "self_cpu_time_total");
    case 4: return prof_export_stacks_merged(g_ev, path, "self_cpu_time_total");
    case 5: return prof_export_memory_timeline(g_ev, path, PROF_DEVICE_CPU, -1);
    default: { /* the table, through a FILE */
        FILE *f = g_table_file ? g_table_file : fopen(path, "w");
        prof_result r = f ? prof_events_print_table(f, g_ev, NULL) : PROF_E_IO;
        if (f && f != g_table_file) fclose(f);
        return r;
    }
    }
}

static int g_k;
static prof_result g_rc = (prof_result)-99;
static void *exporter(void *arg) {
    char path[128];
    (void)arg;
    snprintf(path, sizeof path, "%s/a.%d", g_dir, g_k);
    if (g_k == NEXPORT - 1) g_table_file = fopen(path, "w");
    pthread_cancel(pthread_self()); /* pending: acts at the first cancellation point */
    g_rc = run_export(g_k, path);
    if (g_table_file) {
        int state;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
        fclose(g_table_file);
        g_table_file = NULL;
        pthread_setcancelstate(state, NULL);
    }
    pthread_testcancel();
    return NULL;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(void) {
    prof_config cfg;
    int k, i;
    memset(&cfg, 0, sizeof cfg);
    cfg.with_stack = PROF_STACK_SCOPES;
    cfg.profile_memory = 1;
    snprintf(g_dir, sizeof g_dir, "/tmp/prof_s20_cancel.XXXXXX");
    CHECK(mkdtemp(g_dir) != NULL);
    CHECK_EQ_INT(prof_start(&cfg), PROF_OK);
    for (i = 0; i < 20000; i++) { /* some hundreds of KiB of trace: several writes */
        PROF_SCOPE("outer");
        { PROF_SCOPE("inner"); prof_alloc((void *)(uintptr_t)(i * 16 + 16), 64); prof_dealloc((void *)(uintptr_t)(i * 16 + 16)); }
    }
    g_ev = prof_stop();
    CHECK(g_ev != NULL);
    for (k = 0; k < NEXPORT && g_ev; k++) {
        pthread_t th;
        void *ret = NULL;
        char a[128], b[128];
        g_k = k;
        g_rc = (prof_result)-99;
        CHECK_EQ_INT(pthread_create(&th, NULL, exporter, NULL), 0);
        CHECK_EQ_INT(pthread_join(th, &ret), 0);
        CHECK(ret == PTHREAD_CANCELED); /* cancelled after the export, at pthread_testcancel */
        CHECK_EQ_INT(g_rc, PROF_OK);
        snprintf(a, sizeof a, "%s/a.%d", g_dir, k);
        snprintf(b, sizeof b, "%s/b.%d", g_dir, k); /* the same export, not cancelled (a name of the same length) */
        CHECK_EQ_INT(run_export(k, b), PROF_OK);
        CHECK(file_size(b) > 0);
        CHECK_EQ_INT(file_size(a), file_size(b));
    }
    { /* nothing else in the directory: no temporary file left behind */
        DIR *d = opendir(g_dir);
        struct dirent *de;
        int n = 0;
        CHECK(d != NULL);
        while (d && (de = readdir(d)) != NULL) {
            char p[400];
            if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2]))) continue;
            if ((de->d_name[0] == 'a' || de->d_name[0] == 'b') && de->d_name[1] == '.' && de->d_name[2] >= '0' && de->d_name[2] < '0' + NEXPORT && !de->d_name[3]) n++;
            else (void)CHECK_MSG(0, "left in the directory: %s", de->d_name);
            snprintf(p, sizeof p, "%s/%s", g_dir, de->d_name);
            unlink(p);
        }
        if (d) closedir(d);
        CHECK_EQ_INT(n, 2 * NEXPORT);
        rmdir(g_dir);
    }
    prof_events_free(g_ev);
    return check_report();
}
