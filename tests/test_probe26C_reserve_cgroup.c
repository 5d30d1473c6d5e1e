/* reserve_events in a memory cgroup. The manual: the reserve is "Capped at
   half of the smallest of the physical memory, RLIMIT_AS, RLIMIT_DATA and
   the cgroup's memory.max (a warning)", and its blocks are faulted in, so
   a reserve past the cgroup's limit gets the process OOM-killed inside
   prof_start. prof__reserve_limit_bytes reads one fixed file,
   /sys/fs/cgroup/memory.max: that is the process's own limit only inside
   a cgroup namespace (a container) on cgroup v2. A process in any other
   cgroup (a systemd service with MemoryMax=, a Slurm job step, docker
   with --cgroupns=host, every cgroup v1 host: memory.limit_in_bytes under
   /sys/fs/cgroup/memory/<its path from /proc/self/cgroup>) is not capped:
   prof_start maps and faults in the whole reserve and the kernel kills
   the process with SIGKILL - the program dies in prof_start, with no
   message, where the manual promises a warning and a cut reserve.
   In a child moved into a fresh memory cgroup of 256 MiB (v1 or v2,
   whichever this machine lets root make; otherwise the check is skipped):
   prof_start with a reserve of 40M records (960 MB) must warn, reserve at
   most half the limit, and the child must live to record and stop. Not
   under valgrind or the sanitizers (their own memory is charged too). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIMIT_MIB 256
#define RESERVE_RECORDS ((size_t)40 * 1000 * 1000)

static int put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    int bad;
    if (!f) return -1;
    bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}
static int contains_word(const char *path, const char *word) {
    char *t = check_read_file(path);
    int yes = t && strstr(t, word) != NULL;
    free(t);
    return yes;
}

/* a fresh memory cgroup with the limit set: its directory in dir, and
   the file to write a pid to in procs; 0 when none can be made here */
static int make_cgroup(char *dir, size_t n, char *procs, size_t np) {
    char p[256], v[64];
    snprintf(v, sizeof v, "%ld", (long)LIMIT_MIB << 20);
    /* cgroup v2, a child of the root (the memory controller enabled for it) */
    if (contains_word("/sys/fs/cgroup/cgroup.controllers", "memory")) {
        put("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
        snprintf(dir, n, "/sys/fs/cgroup/prof_probe26C_%ld", (long)getpid());
        if (mkdir(dir, 0755) == 0) {
            snprintf(p, sizeof p, "%s/memory.max", dir);
            if (put(p, v) == 0) {
                snprintf(procs, np, "%s/cgroup.procs", dir);
                return 2;
            }
            rmdir(dir);
        }
    }
    /* cgroup v1 */
    snprintf(dir, n, "/sys/fs/cgroup/memory/prof_probe26C_%ld", (long)getpid());
    if (mkdir(dir, 0755) == 0) {
        snprintf(p, sizeof p, "%s/memory.limit_in_bytes", dir);
        if (put(p, v) == 0) {
            snprintf(procs, np, "%s/cgroup.procs", dir);
            return 1;
        }
        rmdir(dir);
    }
    return 0;
}

static char g_procs[256];

/* 'y' good; 'c' not moved into the cgroup; 's' prof_start failed; 'w' no
   warning of a cut reserve; 'r' more than half the limit reserved; 'e'
   the events wrong */
static char child(void) {
    char v[32];
    prof_config cfg;
    prof_events *ev;
    prof_stats st;
    size_t reserved = 0;
    const char *m;
    int i;
    snprintf(v, sizeof v, "%ld", (long)getpid());
    if (put(g_procs, v) != 0) return 'c';
    check_log_reset();
    memset(&cfg, 0, sizeof cfg);
    cfg.reserve_events = RESERVE_RECORDS;
    cfg.no_prefault_thread = 1;
    if (prof_start(&cfg) != PROF_OK) return 's';
    for (i = 0; i < 1000; i++) {
        PROF_SCOPE("after the reserve");
    }
    ev = prof_stop();
    if (!ev) return 'e';
    st = prof_events_stats(ev);
    if (prof_events_count(ev) != 1000 || st.scopes_entered != 1000 || st.dropped) return 'e';
    prof_events_free(ev);
    if (!check_log_has(PROF_E_ARG, "reserve_events")) return 'w';
    {
        const check_log_entry *e;
        size_t k;
        for (k = 0; (e = check_log_get(k)) != NULL; k++)
            if (e->code == PROF_E_ARG && (m = strstr(e->message, "; ")) != NULL) reserved = (size_t)strtoull(m + 2, NULL, 10);
    }
    if (reserved == 0 || reserved * sizeof(prof__rec) > ((size_t)LIMIT_MIB << 20) / 2) return 'r';
    return 'y';
}
static void release(void) {}

int main(void) {
    char dir[128];
    int kind, status = 0;
    char got;
    prof_set_log(check_log, NULL);
    if (check_under_valgrind() || check_under_sanitizer()) {
        printf("test_probe26C_reserve_cgroup: skipped under valgrind or a sanitizer\n");
        return check_report();
    }
    if (geteuid() != 0 || (kind = make_cgroup(dir, sizeof dir, g_procs, sizeof g_procs)) == 0) {
        printf("test_probe26C_reserve_cgroup: skipped (no memory cgroup can be made here: not root, or no cgroup file system)\n");
        return check_report();
    }
    got = check_fork_verdict(child, release, &status);
    CHECK_MSG(got == 'y', "reserve_events %zu (%zu MB) in a cgroup v%d of %d MiB: verdict '%c' (0: the child died, signal %d%s; c: not moved; s: prof_start failed; w: no warning of a cut reserve; r: more than half the limit reserved; e: events wrong)",
              RESERVE_RECORDS, RESERVE_RECORDS * 24 / 1000000, kind, LIMIT_MIB, got ? got : '0',
              WIFSIGNALED(status) ? WTERMSIG(status) : 0, WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? ": SIGKILL, the cgroup's OOM killer" : "");
    if (rmdir(dir) != 0) fprintf(stderr, "could not remove %s: %s\n", dir, strerror(errno));
    return check_report();
}
