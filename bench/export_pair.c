/* bench/export_pair.c - prof_export_chrome_trace beside its write(2) floor
   in interleaved rounds, for a machine whose load changes from second to
   second: bench/export times all the exports, then all the floors, so a
   load that comes or goes between the two phases moves its ratio; here
   each round times the floor (before and after, averaged) around three
   exports of the same list into the same directory, and the ratio is
   taken per round, then the median:
     defaults         prof__par_items as it chooses (two threads format,
                      the one whose chunk is next writes it)
     formatter+writer one formatting thread, the writer thread behind it
     one thread       formatting and write(2) on one thread
   On two idle cores two workers reach the floor while one thread is the
   floor plus the formatting. With other work on the cores the
   scheduler's share per thread decides, and it went both ways here
   (1M events into /dev/shm, 2 vCPUs, medians of 5-11 rounds): with 9-11
   tasks runnable, one thread 0.70-0.74 against two workers 0.64-0.66
   (the workers' hand-overs wait for the scheduler); with 3-5 runnable,
   two workers 1.9 of the floor (full args; two threads hold two shares
   where the floor holds one) against one thread 0.73.
   Usage: export_pair [full|plain|stk|deep] [N] [ROUNDS] [DIR]
   (defaults: plain 1000000 7 /dev/shm). Build: make build/bench-O2/export_pair */
#define main export_bench_main /* the bench's workloads, without its main */
#include "export.c"
#undef main

static double floor_once(const char *path, size_t bytes, const char *buf) {
    double t0 = now_s();
    size_t left = bytes;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    while (left) {
        size_t k = left < PROF__PAR_BUF ? left : PROF__PAR_BUF;
        if (write(fd, buf, k) != (ssize_t)k) { perror(path); exit(1); }
        left -= k;
    }
    close(fd);
    t0 = now_s() - t0;
    unlink(path);
    return t0;
}
static double export_once(prof_events *ev, const char *path, int mode, size_t *size) {
    double t0;
    struct stat st;
    prof__par_min_events = mode == 0 ? 32768 : (size_t)-1;
    prof__w_async_after = mode == 2 ? UINT64_MAX : PROF__W_ASYNC_AFTER;
    unlink(path);
    t0 = now_s();
    if (prof_export_chrome_trace(ev, path) != PROF_OK) { fprintf(stderr, "%s\n", prof_last_error()); exit(1); }
    t0 = now_s() - t0;
    if (stat(path, &st) == 0) *size = (size_t)st.st_size;
    unlink(path);
    return t0;
}
int main(int argc, char **argv) {
    static const char *const wl[] = { "full", "plain", "stk", "deep" };
    static const char *const mode[] = { "defaults", "formatter+writer", "one thread" };
    static const char *const key[] = { "defaults", "formatter_writer", "one_thread" };
    const char *wname = argc > 1 ? argv[1] : "plain";
    size_t n = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 1000000, size = 0;
    int rounds = argc > 3 ? atoi(argv[3]) : 7, w = -1, k, r;
    char path[4096];
    double ratio[3][64], fl[64];
    char *buf = (char *)malloc(PROF__PAR_BUF);
    prof_events *ev;
    if (rounds < 1) rounds = 1;
    if (rounds > 64) rounds = 64;
    snprintf(path, sizeof path, "%s/prof_export_pair.%ld.json", argc > 4 ? argv[4] : "/dev/shm", (long)getpid());
    for (k = 0; k < 4; k++) if (!strcmp(wname, wl[k])) w = k;
    if (w < 0 || !n || !buf) { fprintf(stderr, "usage: export_pair [full|plain|stk|deep] [N] [ROUNDS] [DIR]\n"); return 2; }
    memset(buf, 'x', PROF__PAR_BUF);
    init_args();
    if (!(ev = workload(w, n))) return 1;
    export_once(ev, path, 0, &size); /* the size, and a warm start */
    for (r = 0; r < rounds; r++) {
        double e[3], f = floor_once(path, size, buf);
        for (k = 0; k < 3; k++) e[k] = export_once(ev, path, k, &size);
        f = (f + floor_once(path, size, buf)) / 2;
        fl[r] = f;
        for (k = 0; k < 3; k++) ratio[k][r] = f / e[k];
        printf("#   round %d: floor %.1f ms; ratio %s %.3f, %s %.3f, %s %.3f\n", r, f * 1e3, mode[0], ratio[0][r], mode[1], ratio[1][r], mode[2], ratio[2][r]);
    }
    printf("pair_%s_bytes_per_event %.1f B\n", wname, (double)size / (double)n);
    printf("pair_%s_floor_ms_median %.1f ms\n", wname, median(fl, (size_t)rounds) * 1e3);
    /* one name per mode (a reader of `name value unit` lines keys on the name) */
    for (k = 0; k < 3; k++) printf("pair_%s_%s_ratio_median %.3f x (%s; floor time / export time, per round)\n", wname, key[k], median(ratio[k], (size_t)rounds), mode[k]);
    prof_events_free(ev);
    free(buf);
    return 0;
}
