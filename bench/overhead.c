/* bench/overhead.c - cost of one PROF_SCOPE, against the floor of what any
   recorder must do: two raw timestamp reads and one 24-byte store.

   Every measurement runs in a fresh child process, so a first session always
   includes the growth of the record blocks, and each recording run is
   bracketed by floor runs in the same child (the machine is shared and its
   speed drifts): a ratio is the run over the mean of its two floors.

   Figures (medians over the repetitions; each repetition's values follow on
   a `#` line):
     floor_1t, floor_2t     the floor loop: raw clock (rdtsc), body, raw clock,
                            24-byte store into a prefaulted buffer (2t: per
                            thread, two threads at once, each its own buffer)
     on_1t_first            PROF_SCOPE, recording on, first session of the
                            process: blocks are mapped while recording, by
                            prof.h's prefault thread once the thread is past
                            its small first blocks (the headline figure), N
                            scopes
     on_2t_first            the same, per thread, two threads at once
     on_1t_reserved, on_2t_reserved  a first session started with
                            prof_config.reserve_events covering it: the
                            blocks are faulted in by prof_start (its time,
                            per event, is reserve_*), none while recording
     on_1t_reuse, on_2t_reuse  later sessions, blocks reused: one child
                            records a first session, stops it, then runs
                            several shorter sessions (each stopped and
                            counted); prof_stop costs 0.1-0.2 us per event
                            here, so full-length repeats would take minutes.
                            Within a reuse session, floor and recording
                            alternate in chunks of 50000 scopes (each thread
                            its own), so that the machine's drift, which is
                            several percent within a second here, falls on
                            both alike: the ratio is the recording chunks'
                            total time over the floor chunks'. The chunks
                            cycle through four placements of both loops
                            (shifted by 0, 16, 32, 48 bytes), since on a
                            Skylake a tiny loop's speed moves by several
                            percent with where it lands; each placement's
                            median chunk ratio follows on a # line. (A first
                            session is not measured that way: the prefault
                            thread's work would land on floor chunks too.)
     *_ratio                first session: to the floors around the run;
                            reuse: to the floor chunks between its chunks
     growth_1t, growth_2t   what block growth adds per scope: first-session
                            time minus the reuse ratio times its floor
     plain_loop, off        per scope: a loop of 8 bodies per iteration
                            without PROF_SCOPE, and with 8 PROF_SCOPEs and no
                            session, alternating in chunks of 400000 scopes
                            (the fastest chunk of each); off_overhead is the
                            median of the chunk pairs' differences
     mem_*                  RSS growth while recording / events recorded
     events_*               recorded vs requested, dropped (prof_events_stats)
     prof_stop_*            prof_stop: time, peak RSS above the RSS before it,
                            and RSS of the list it returns, per event; its
                            page faults per 1000 events (fresh memory costs
                            microseconds a page on a VM)
     compiled_out_identical from bench/compiled_out.sh (PROF_DISABLED)
     callgrind_*            instructions per scope, from bench/callgrind.sh

   Environment: PROF_BENCH_SCOPES (N, default 20000000 per thread),
   PROF_BENCH_REPS (default 5), PROF_BENCH_NO_SCRIPTS=1 skips the scripts.
   Internal mode used by bench/callgrind.sh: overhead --callgrind N. */
#define _GNU_SOURCE 1
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Measured loops start on a 64-byte boundary: on this Skylake the speed of
   such tiny loops moves by several percent with where their jumps and cache
   lines fall (the JCC erratum), so unaligned they would move with any edit
   of this file. */
#define NOINLINE __attribute__((noinline, aligned(64)))
/* A body the compiler must keep, and that costs nothing itself. */
#define BODY(i) __asm__ __volatile__("" : : "r"(i))

/* (raw_clock: common.h) */

typedef struct rec24 { const void *site; uint64_t t0, t1; } rec24;
static const char floor_site[] = "floor";

#define FLOOR_LOOP(buf, n) do {                                               \
        size_t i;                                                             \
        for (i = 0; i < (n); i++) {                                           \
            uint64_t t0 = raw_clock();                                        \
            uint64_t t1;                                                      \
            BODY(i);                                                          \
            t1 = raw_clock();                                                 \
            (buf)[i].site = floor_site;                                       \
            (buf)[i].t0 = t0;                                                 \
            (buf)[i].t1 = t1;                                                 \
        }                                                                     \
    } while (0)
#define ON_LOOP(n) do {                                                       \
        size_t i;                                                             \
        for (i = 0; i < (n); i++) { PROF_SCOPE("bench_on"); BODY(i); }        \
    } while (0)
NOINLINE static void loop_floor(rec24 *buf, size_t n) { FLOOR_LOOP(buf, n); }
NOINLINE static void loop_on(size_t n) { ON_LOOP(n); }
/* The same two loops at four placements: nops at the entry (run once per
   call) move each loop by 0, 16, 32 and 48 bytes against the 64-byte lines
   and 32-byte windows, the spread of places a loop lands in a real program.
   Reuse sessions cycle through them, chunk by chunk, floor and recording at
   the same placement. */
#if defined(__x86_64__) || defined(__i386__)
#define PLACE(pad) __asm__ __volatile__(".skip " #pad ", 0x90") /* one-byte nops */
#else
#define PLACE(pad) __asm__ __volatile__(".rept " #pad " / 4\n\tnop\n\t.endr") /* four-byte nops (aarch64) */
#endif
#define PLACED(k, pad)                                                        \
    NOINLINE static void loop_floor_##k(rec24 *buf, size_t n) { PLACE(pad); FLOOR_LOOP(buf, n); } \
    NOINLINE static void loop_on_##k(size_t n) { PLACE(pad); ON_LOOP(n); }
PLACED(1, 16) /* placement 0 is loop_floor and loop_on themselves */
PLACED(2, 32)
PLACED(3, 48)
#define N_PLACES 4
static void (*const floor_at[N_PLACES])(rec24 *, size_t) = { loop_floor, loop_floor_1, loop_floor_2, loop_floor_3 };
static void (*const on_at[N_PLACES])(size_t) = { loop_on, loop_on_1, loop_on_2, loop_on_3 };
/* Session off: eight scopes per iteration, so the loop's own cost and the
   alignment of its ~1-cycle body to the fetch blocks do not decide the
   figure; the plain loop has the same eight bodies. */
#define BODY8(i) BODY(i); BODY(i); BODY(i); BODY(i); BODY(i); BODY(i); BODY(i); BODY(i)
#define OFF(i) { PROF_SCOPE("bench_off"); BODY(i); }
NOINLINE static void loop_plain8(size_t n) {
    size_t i;
    for (i = 0; i < n; i++) { BODY8(i); }
}
NOINLINE static void loop_off8(size_t n) {
    size_t i;
    for (i = 0; i < n; i++) { OFF(i) OFF(i) OFF(i) OFF(i) OFF(i) OFF(i) OFF(i) OFF(i) }
}

static rec24 *floor_buffer(size_t n) {
    void *p = mmap(NULL, n * sizeof(rec24), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) { perror("mmap"); exit(1); }
    memset(p, 1, n * sizeof(rec24)); /* really resident, whatever MAP_POPULATE did */
    return (rec24 *)p;
}
static size_t env_size(const char *name, size_t def) { return (size_t)bench_env_count(name, def); }
static void log_quiet(prof_log_level level, prof_result code, const char *msg, void *u) {
    (void)u;
    if (level == PROF_LOG_ERROR || code == PROF_E_DROPPED) fprintf(stderr, "prof.h: %s\n", msg);
}
/* The cap must not bind: prof.h hands the cap out to threads a block at a
   time (up to 262144 records), so a cap of exactly the events requested
   drops events on two threads. 64M covers 2 x 20M with room to spare. */
static size_t cap_for(size_t events) {
    size_t cap = (size_t)64 << 20;
    return cap > 2 * events ? cap : 2 * events;
}
static size_t g_reserve; /* prof_config.reserve_events of the next session */
static void start_session(size_t events) {
    prof_config cfg;
    size_t max_events = cap_for(events);
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = max_events;
    cfg.reserve_events = g_reserve;
    cfg.log = log_quiet;
    if (prof_start(&cfg) != PROF_OK) { fprintf(stderr, "prof_start failed: %s\n", prof_last_error()); exit(1); }
}

/* ------------------------------------------------------------------ */
/* Loops on one thread (the caller) or two worker threads at once. */
enum { PH_FLOOR, PH_ON, PH_PAIRED, PH_EXIT };
#define PAIR_CHUNK 50000u
static pthread_barrier_t g_go, g_done;
static int g_phase;
static size_t g_n;
typedef struct worker {
    pthread_t th;
    rec24 *buf;
    size_t cap;
    double ns, floor_ns;
    double place_r[N_PLACES][512]; /* chunk ratios at each placement, over every paired run */
    int place_n[N_PLACES];
} worker;
static worker g_w[2];
static int g_threads;

static double run_one(worker *w, int phase, size_t n) {
    double t0 = now_s(), t1;
    if (phase == PH_PAIRED) {
        /* floor and recording in alternating chunks: w->floor_ns, and the
           recording's ns is returned */
        double sf = 0, so = 0, t2;
        size_t done, k, c;
        for (done = 0, c = 0; done < n; done += k, c++) {
            int at = (int)(c % N_PLACES);
            k = n - done < PAIR_CHUNK ? n - done : PAIR_CHUNK;
            t0 = now_s();
            floor_at[at](w->buf + done, k);
            t1 = now_s();
            on_at[at](k);
            t2 = now_s();
            sf += t1 - t0;
            so += t2 - t1;
            if (w->place_n[at] < 512 && t1 > t0) w->place_r[at][w->place_n[at]++] = (t2 - t1) / (t1 - t0);
        }
        w->floor_ns = sf * 1e9 / (double)n;
        return so * 1e9 / (double)n;
    }
    if (phase == PH_FLOOR) loop_floor(w->buf, n);
    else loop_on(n);
    t1 = now_s();
    return (t1 - t0) * 1e9 / (double)n;
}
static void *worker_main(void *p) {
    worker *w = (worker *)p;
    for (;;) {
        pthread_barrier_wait(&g_go);
        if (g_phase == PH_EXIT) break;
        w->ns = run_one(w, g_phase, g_n);
        pthread_barrier_wait(&g_done);
    }
    return NULL;
}
/* Prefaulted floor buffers of n records (kept while big enough). */
static void floor_buffers(size_t n) {
    int i;
    for (i = 0; i < g_threads; i++) {
        if (g_w[i].cap >= n) continue;
        if (g_w[i].buf) munmap(g_w[i].buf, g_w[i].cap * sizeof(rec24));
        g_w[i].buf = floor_buffer(n);
        g_w[i].cap = n;
    }
}
static void drop_floor_buffers(void) {
    int i;
    for (i = 0; i < g_threads; i++) {
        if (g_w[i].buf) munmap(g_w[i].buf, g_w[i].cap * sizeof(rec24));
        g_w[i].buf = NULL;
        g_w[i].cap = 0;
    }
}
/* ns per iteration, per thread (mean of the threads); PH_PAIRED also
   leaves the floor chunks' mean in *floor_ns. */
static double run_phase_f(int phase, size_t n, double *floor_ns) {
    if (g_threads == 1) {
        double v = run_one(&g_w[0], phase, n);
        if (floor_ns) *floor_ns = g_w[0].floor_ns;
        return v;
    }
    g_phase = phase;
    g_n = n;
    pthread_barrier_wait(&g_go);
    pthread_barrier_wait(&g_done);
    if (floor_ns) *floor_ns = (g_w[0].floor_ns + g_w[1].floor_ns) / 2.0;
    return (g_w[0].ns + g_w[1].ns) / 2.0;
}
static double run_phase(int phase, size_t n) { return run_phase_f(phase, n, NULL); }
static void threads_init(int threads) {
    int i;
    g_threads = threads;
    memset(g_w, 0, sizeof g_w);
    if (threads == 1) return;
    pthread_barrier_init(&g_go, NULL, 3);
    pthread_barrier_init(&g_done, NULL, 3);
    for (i = 0; i < 2; i++)
        if (pthread_create(&g_w[i].th, NULL, worker_main, &g_w[i]) != 0) { perror("pthread_create"); _exit(1); }
}

/* ------------------------------------------------------------------ */
/* What a child sends back. Times are ns per iteration (per thread). */
#define MAX_ROUNDS 8
typedef struct result {
    double floor_ns, on_ns, ratio, mem;      /* the first session */
    double plain_ns, off_ns, off_diff;       /* one thread only */
    /* reuse children */
    int rounds;
    double r_floor[MAX_ROUNDS], r_on[MAX_ROUNDS], r_ratio[MAX_ROUNDS], r_mem[MAX_ROUNDS];
    double stop_ns, stop_peak, list_bytes;   /* prof_stop of the first session, per event */
    double stop_faults;                      /* its page faults per 1000 events */
    double reserve_ns;                       /* prof_start with reserve_events, per event */
    double place_ratio[N_PLACES];            /* reuse: median chunk ratio at each placement */
    double first_events;                     /* events of the first session */
    double requested, recorded, dropped;     /* over every stopped session */
} result;

static void write_all(int fd, const void *p, size_t n) {
    const char *c = (const char *)p;
    while (n) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) _exit(3);
        c += k;
        n -= (size_t)k;
    }
}

/* Ends the session; counts what it recorded and, when asked, measures
   prof_stop's time, its peak memory and the list it returns. */
static void stop_and_check(result *r, size_t requested, int measure) {
    double rss0 = rss_bytes(), t0, t1;
    prof_events *ev;
    prof_stats st;
    struct rusage ru0, ru1;
    if (measure) reset_hwm();
    getrusage(RUSAGE_SELF, &ru0);
    t0 = now_s();
    ev = prof_stop();
    t1 = now_s();
    getrusage(RUSAGE_SELF, &ru1);
    if (!ev) { fprintf(stderr, "prof_stop failed: %s\n", prof_last_error()); _exit(2); }
    st = prof_events_stats(ev);
    if (measure) {
        r->stop_ns = (t1 - t0) * 1e9 / (double)requested;
        r->stop_peak = (hwm_bytes() - rss0) / (double)requested;
        r->list_bytes = (rss_bytes() - rss0) / (double)requested;
        r->stop_faults = (double)(ru1.ru_minflt - ru0.ru_minflt) * 1000.0 / (double)requested;
    }
    r->requested += (double)requested;
    r->recorded += (double)prof_events_count(ev);
    r->dropped += (double)st.dropped;
    prof_events_free(ev);
}

/* First session only: floor, [plain/off], recording, floor; no prof_stop
   (it would take longer than the rest), the process exits recording. */
static void child_first(int fd, int threads, size_t n, size_t n_off, int reserve) {
    result r;
    double rss0, f1, f2, t0, t1;
    memset(&r, 0, sizeof r);
    threads_init(threads);
    floor_buffers(n);
    if (threads == 1) loop_floor(g_w[0].buf, n / 10); /* warm up code and clock */
    f1 = run_phase(PH_FLOOR, n);
    if (threads == 1 && !reserve) {
        /* Loops of ~1 ns: alternate them in short chunks; the difference of
           each pair is taken while the machine runs at one speed. */
        size_t chunk = n_off < 400000 ? (n_off >= 8 ? n_off : 8) : 400000, pairs = n_off / chunk ? n_off / chunk : 1, k;
        double *diff = (double *)malloc((pairs ? pairs : 1) * sizeof *diff);
        if (!diff) _exit(4);
        r.plain_ns = r.off_ns = 1e30;
        for (k = 0; k < pairs; k++) {
            double p, o;
            t0 = now_s(); loop_plain8(chunk / 8); t1 = now_s();
            p = (t1 - t0) * 1e9 / (double)chunk;
            t0 = now_s(); loop_off8(chunk / 8); t1 = now_s();
            o = (t1 - t0) * 1e9 / (double)chunk;
            if (p < r.plain_ns) r.plain_ns = p;
            if (o < r.off_ns) r.off_ns = o;
            diff[k] = o - p;
        }
        qsort(diff, pairs ? pairs : 1, sizeof *diff, cmp_double); /* more than median() takes */
        r.off_diff = pairs ? (pairs % 2 ? diff[pairs / 2] : (diff[pairs / 2 - 1] + diff[pairs / 2]) / 2) : 0;
        free(diff);
    }
    rss0 = rss_bytes();
    /* whole blocks per thread: one partly used block each on top */
    g_reserve = reserve ? threads * (n + 349525) : 0;
    t0 = now_s();
    start_session(threads * n);
    t1 = now_s();
    r.reserve_ns = (t1 - t0) * 1e9 / (double)(threads * n);
    r.on_ns = run_phase(PH_ON, n);
    r.mem = (rss_bytes() - rss0) / (double)(threads * n);
    f2 = run_phase(PH_FLOOR, n);
    r.floor_ns = (f1 + f2) / 2;
    r.ratio = r.on_ns / r.floor_ns;
    write_all(fd, &r, sizeof r);
    _exit(0);
}

/* A first session of n_first scopes per thread, stopped (timed), then
   `rounds` sessions of n_reuse scopes per thread in the same blocks. */
static void child_reuse(int fd, int threads, size_t n_first, size_t n_reuse, int rounds) {
    result r;
    double rss0;
    int k;
    memset(&r, 0, sizeof r);
    threads_init(threads);
    start_session(threads * n_first);
    r.on_ns = run_phase(PH_ON, n_first);
    r.first_events = (double)(threads * n_first);
    stop_and_check(&r, threads * n_first, 1);
    floor_buffers(n_reuse);
    if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
    run_phase(PH_FLOOR, n_reuse); /* the floor buffers' first pass, untimed */
    for (k = 0; k < rounds; k++) {
        rss0 = rss_bytes();
        start_session(threads * n_reuse);
        r.r_on[k] = run_phase_f(PH_PAIRED, n_reuse, &r.r_floor[k]);
        r.r_mem[k] = (rss_bytes() - rss0) / (double)(threads * n_reuse);
        r.r_ratio[k] = r.r_on[k] / r.r_floor[k];
        stop_and_check(&r, threads * n_reuse, 0);
    }
    r.rounds = rounds;
    for (k = 0; k < N_PLACES; k++) {
        /* the median chunk of each placement (of both threads) */
        double all[1024];
        int w, n = 0, j;
        for (w = 0; w < (threads > 1 ? 2 : 1); w++)
            for (j = 0; j < g_w[w].place_n[k]; j++) all[n++] = g_w[w].place_r[k][j];
        qsort(all, (size_t)n, sizeof *all, cmp_double);
        r.place_ratio[k] = n ? (n % 2 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2) : 0;
    }
    drop_floor_buffers();
    write_all(fd, &r, sizeof r);
    _exit(0);
}

typedef struct job { int reuse, reserve, threads, rounds; size_t n, n_off, n_reuse; } job;

static int run_child(const job *j, result *out) {
    int fds[2], status;
    pid_t pid;
    size_t got = 0;
    if (pipe(fds) != 0) { perror("pipe"); return -1; }
    fflush(NULL);
    pid = fork();
    if (pid < 0) { perror("fork"); return -1; }
    if (pid == 0) {
        close(fds[0]);
        if (j->reuse) child_reuse(fds[1], j->threads, j->n, j->n_reuse, j->rounds);
        else child_first(fds[1], j->threads, j->n, j->n_off, j->reserve);
        _exit(0);
    }
    close(fds[1]);
    while (got < sizeof *out) {
        ssize_t k = read(fds[0], (char *)out + got, sizeof *out - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fds[0]);
    waitpid(pid, &status, 0);
    if (got != sizeof *out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "overhead: child (%d thread%s%s) failed\n", j->threads, j->threads == 1 ? "" : "s", j->reuse ? ", reuse" : "");
        return -1;
    }
    return 0;
}

/* Prints `name median unit` and, as a comment, every value. */
static double report(const char *name, const double *v, size_t n, const char *unit, int digits) {
    double m = median(v, n);
    size_t i;
    printf("%s %.*f %s\n", name, digits, m, unit);
    if (n > 1) {
        printf("#   %-22s", name);
        for (i = 0; i < n; i++) printf(" %.3f", v[i]);
        printf("\n");
    }
    return m;
}


/* PROF_SCOPE_DYN (one 11-byte name: its cost does not depend on how many
   there are, see bench/features) and its floor, which reads and copies the
   same name: strlen, the bytes behind a 24-byte header, then the end
   record, as prof.h writes them (bench/callgrind.sh counts both). The name
   goes through a volatile pointer, so neither loop knows its length. */
static const char dyn_name[] = "dyn_name_01";
static const char *volatile dyn_name_p = dyn_name;
NOINLINE static void loop_dyn(size_t n) {
    size_t i;
    const char *name = dyn_name_p;
    for (i = 0; i < n; i++) { PROF_SCOPE_DYN(name); BODY(i); }
}
NOINLINE static void loop_floor_dyn(rec24 *buf, size_t n) {
    size_t i;
    const char *name = dyn_name_p;
    for (i = 0; i < n; i++) {
        size_t len = strlen(name), k = 1 + (len + sizeof(rec24)) / sizeof(rec24);
        rec24 *head = buf;
        uint64_t t0, t1;
        buf->site = (const void *)(uintptr_t)k;
        buf->t0 = (uint64_t)(uintptr_t)name;
        buf->t1 = 0;
        memcpy(buf + 1, name, len + 1);
        buf += k;
        t0 = raw_clock();
        BODY(i);
        t1 = raw_clock();
        buf->site = head;
        buf->t0 = t0;
        buf->t1 = t1;
        buf++;
    }
}

static int callgrind_mode(size_t n) {
    /* Run under valgrind by bench/callgrind.sh: the loops once each, session
       on without prof_stop (whose sort would dominate the run). */
    rec24 *buf = floor_buffer(n);
    loop_floor(buf, n);
    loop_plain8(n / 8);
    loop_off8(n / 8);
    start_session(n);
    loop_on(n);
    loop_dyn(n);
    loop_floor_dyn(floor_buffer(3 * n), n); /* an 11-byte name: 3 records a scope */
    return 0;
}

static void run_script(const char *cmd) {
    FILE *p = popen(cmd, "r");
    char line[512];
    if (!p) { printf("# could not run %s\n", cmd); return; }
    while (fgets(line, sizeof line, p)) fputs(line, stdout);
    if (pclose(p) != 0) printf("# %s failed\n", cmd);
    fflush(stdout);
}

static void report_first(const char *tag, const char *kind, const result *r, size_t n) {
    double v[64];
    char name[64];
    size_t i;
    for (i = 0; i < n; i++) v[i] = r[i].floor_ns;
    snprintf(name, sizeof name, "floor_%s%s", tag, strcmp(kind, "first") ? "_reserved" : ""); report(name, v, n, "ns", 2);
    if (strcmp(kind, "first")) {
        for (i = 0; i < n; i++) v[i] = r[i].reserve_ns;
        snprintf(name, sizeof name, "reserve_%s", tag); report(name, v, n, "ns/event", 2);
    }
    for (i = 0; i < n; i++) v[i] = r[i].on_ns;
    snprintf(name, sizeof name, "on_%s_%s", tag, kind); report(name, v, n, "ns", 2);
    for (i = 0; i < n; i++) v[i] = r[i].ratio;
    snprintf(name, sizeof name, "on_%s_%s_ratio", tag, kind); report(name, v, n, "x", 3);
    for (i = 0; i < n; i++) v[i] = r[i].mem;
    snprintf(name, sizeof name, "mem_%s_%s", tag, kind); report(name, v, n, "B/event", 2);
}
static void report_reuse(const char *tag, const result *r, size_t n_first, size_t n_reuse, const result *first, size_t n_firsts) {
    char name[64];
    printf("# %s reuse: first session of %zu scopes per thread, stopped, then %d sessions of %zu\n", tag, n_first, r->rounds, n_reuse);
    snprintf(name, sizeof name, "floor_%s_reuse", tag); report(name, r->r_floor, (size_t)r->rounds, "ns", 2);
    snprintf(name, sizeof name, "on_%s_reuse", tag); report(name, r->r_on, (size_t)r->rounds, "ns", 2);
    snprintf(name, sizeof name, "on_%s_reuse_ratio", tag); report(name, r->r_ratio, (size_t)r->rounds, "x", 3);
    printf("#   median chunk by placement (+0, +16, +32, +48 bytes): %.3f %.3f %.3f %.3f\n", r->place_ratio[0], r->place_ratio[1], r->place_ratio[2], r->place_ratio[3]);
    if (first && n_firsts) {
        /* Block growth: what a first session costs above a reuse session at
           the same floor (the reuse ratio times the first session's floor). */
        double g[64], rr = median(r->r_ratio, (size_t)r->rounds);
        size_t i;
        for (i = 0; i < n_firsts; i++) g[i] = first[i].on_ns - rr * first[i].floor_ns;
        snprintf(name, sizeof name, "growth_%s", tag); report(name, g, n_firsts, "ns", 2);
    }
    snprintf(name, sizeof name, "mem_%s_reuse", tag); report(name, r->r_mem, (size_t)r->rounds, "B/event", 2);
    printf("events_%s_requested %.0f events\n", tag, r->requested);
    printf("events_%s_recorded %.0f events\n", tag, r->recorded);
    printf("events_%s_dropped %.0f events\n", tag, r->dropped);
    printf("# prof_stop of the first session, %.0f events:\n", r->first_events);
    printf("prof_stop_%s %.1f ns/event\n", tag, r->stop_ns);
    printf("prof_stop_%s_total %.2f s\n", tag, r->stop_ns * r->first_events * 1e-9);
    printf("prof_stop_%s_peak %.1f B/event\n", tag, r->stop_peak);
    printf("prof_stop_%s_faults %.2f per 1000 events\n", tag, r->stop_faults);
    printf("eventlist_%s %.1f B/event\n", tag, r->list_bytes);
}

int main(int argc, char **argv) {
    size_t n, reps, i, n1 = 0, n2 = 0, nv1 = 0, nv2 = 0;
    int have_r1, have_r2;
    result r1[64], r2[64], v1[64], v2[64], re1, re2;
    double v[64];
    double t_start = now_s();
    job j;
    if (argc == 3 && strcmp(argv[1], "--callgrind") == 0) return callgrind_mode((size_t)strtoull(argv[2], NULL, 10));
    n = env_size("PROF_BENCH_SCOPES", 20000000);
    reps = env_size("PROF_BENCH_REPS", 5);
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    header("prof.h overhead: ns per PROF_SCOPE (begin + end) against the floor");
    printf("# N = %zu scopes per thread per repetition, %zu repetitions, each in a fresh process; medians\n", n, reps);
    printf("# floor = raw clock (rdtsc) + body + raw clock + one 24-byte store into a prefaulted buffer, per iteration\n");
    fflush(stdout);

    memset(&j, 0, sizeof j);
    j.n = n;
    j.n_off = 2 * n;
    for (i = 0; i < reps; i++) {
        j.threads = 1;
        if (run_child(&j, &r1[n1]) == 0) n1++;
        j.threads = 2;
        if (run_child(&j, &r2[n2]) == 0) n2++;
        j.reserve = 1;
        j.threads = 1;
        if (run_child(&j, &v1[nv1]) == 0) nv1++;
        j.threads = 2;
        if (run_child(&j, &v2[nv2]) == 0) nv2++;
        j.reserve = 0;
    }
    if (!n1 || !n2 || !nv1 || !nv2) return 1;
    /* reuse: one thread 20M then 5 x 4M; two threads 5M then 3 x 2M */
    j.reuse = 1;
    j.threads = 1; j.n = n; j.n_reuse = n / 5; j.rounds = 5;
    have_r1 = run_child(&j, &re1) == 0;
    j.threads = 2; j.n = n / 4; j.n_reuse = n / 10; j.rounds = 3;
    have_r2 = run_child(&j, &re2) == 0;

    printf("## one thread\n");
    report_first("1t", "first", r1, n1);
    printf("# first session with prof_config.reserve_events: prof_start faults the blocks in\n");
    report_first("1t", "reserved", v1, nv1);
    if (have_r1) report_reuse("1t", &re1, n, n / 5, r1, n1);
    for (i = 0; i < n1; i++) v[i] = r1[i].plain_ns;
    printf("# plain/off: %zu scopes (8 per loop iteration) in alternating chunks of 400000; fastest chunk of each, and the median difference of the pairs; ns per scope\n", 2 * n);
    report("plain_loop", v, n1, "ns", 3);
    for (i = 0; i < n1; i++) v[i] = r1[i].off_ns;
    report("off", v, n1, "ns", 3);
    for (i = 0; i < n1; i++) v[i] = r1[i].off_diff;
    report("off_overhead", v, n1, "ns", 3);

    printf("## two threads at once (figures per thread)\n");
    report_first("2t", "first", r2, n2);
    printf("# first session with prof_config.reserve_events: prof_start faults the blocks in\n");
    report_first("2t", "reserved", v2, nv2);
    if (have_r2) report_reuse("2t", &re2, n / 4, n / 10, r2, n2);
    fflush(stdout);

    if (!getenv("PROF_BENCH_NO_SCRIPTS") || !*getenv("PROF_BENCH_NO_SCRIPTS")) {
        printf("## compiled out (-DPROF_DISABLED)\n");
        fflush(stdout);
        run_script("sh bench/compiled_out.sh 2>&1");
        printf("## instructions (callgrind)\n");
        fflush(stdout);
        {
            char self[4096], cmd[4200];
            ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
            self[k > 0 ? (size_t)k : 0] = 0;
            if (k > 0 && !strchr(self, '\'')) {
                snprintf(cmd, sizeof cmd, "sh bench/callgrind.sh '%s' 2>&1", self);
            } else {
                snprintf(cmd, sizeof cmd, "sh bench/callgrind.sh 2>&1");
            }
            run_script(cmd);
        }
    }
    printf("# overhead bench took %.0f s\n", now_s() - t_start);
    return 0;
}
