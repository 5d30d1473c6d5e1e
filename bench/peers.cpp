/* bench/peers.cpp - prof.h against Tracy's client, side by side, against the
   same floor as bench/overhead: two raw rdtsc reads and one 24-byte store
   into a prefaulted buffer per iteration.

   Tracy is the fastest instrumentation profiler we know of; the issue that
   set prof.h's targets quotes its client at 1.01x the floor on one thread
   and 1.2-1.6x per thread on two. This program measures it here, in the
   same process and the same chunks as prof.h, so the two ratios share the
   machine's state of the moment.

   Tracy streams its events to a server as it records; without one it keeps
   them all in memory, and every zone then costs fresh pages (3x the floor
   here). So the program forks a minimal server (the handshake, then it
   reads and drops every byte) and measures only once Tracy is connected:
   Tracy's steady state, its queue blocks reused. prof.h is measured in its
   steady state too: a first session of the same length is recorded and
   stopped first, so that the measured session reuses its blocks.

   Per thread and placement, floor, Tracy and prof.h alternate in chunks of
   50000 iterations (1 thread, then 2 threads at once, each with its own
   floor buffer), cycling through four placements of the three loops
   (entry padding of 0, 16, 32 and 48 bytes, see bench/overhead.c). A ratio
   is a chunk's time over the floor chunk just before it (after a Tracy
   chunk the program sleeps 10 ms, so that Tracy's worker has sent its
   zones before the next chunk starts; every floor chunk follows a short
   unmeasured one, so that none starts cold); each placement's
   median is printed, and the figure is the mean of the four.

   Build and run with bench/peers.sh, which needs a Tracy checkout:
       TRACY_DIR=/path/to/tracy bench/peers.sh     (or make bench-peers)
   Tracy's own worker thread compresses and sends the events on another
   core, and the server process reads them: on a 2-core machine the two
   recording threads share the cores with both. That is Tracy's design
   (prof.h does its work at prof_stop), and is part of what it costs. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "tracy/Tracy.hpp"
#include "common/TracyProtocol.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <algorithm>

#define NOINLINE __attribute__((noinline, aligned(64)))
#define BODY(i) __asm__ __volatile__("" : : "r"(i))
#define PLACE(pad) __asm__ __volatile__(".skip " #pad ", 0x90")
#define CHUNK 50000u
#define N_PLACES 4
#define N_VARIANTS 2 /* 0 = Tracy, 1 = prof.h */

struct rec24 { const void *site; uint64_t t0, t1; };
static const char floor_site[] = "floor";

static double now_s() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define FLOOR_LOOP(buf, n)                                                    \
    for (size_t i = 0; i < (n); i++) {                                        \
        uint64_t t0 = __builtin_ia32_rdtsc(), t1;                             \
        BODY(i);                                                              \
        t1 = __builtin_ia32_rdtsc();                                          \
        (buf)[i].site = floor_site;                                           \
        (buf)[i].t0 = t0;                                                     \
        (buf)[i].t1 = t1;                                                     \
    }
#define PLACED(k, pad)                                                                                        \
    NOINLINE static void floor_##k(rec24 *b, size_t n) { PLACE(pad); FLOOR_LOOP(b, n) }                       \
    NOINLINE static void tracy_##k(size_t n) { PLACE(pad); for (size_t i = 0; i < n; i++) { ZoneScopedN("tracy"); BODY(i); } } \
    NOINLINE static void prof_##k(size_t n) { PLACE(pad); for (size_t i = 0; i < n; i++) { PROF_SCOPE("prof"); BODY(i); } }
PLACED(0, 1) /* .skip 0 is refused by some assemblers; one byte is as good */
PLACED(1, 16)
PLACED(2, 32)
PLACED(3, 48)
static void (*const floor_at[N_PLACES])(rec24 *, size_t) = { floor_0, floor_1, floor_2, floor_3 };
static void (*const run_at[N_VARIANTS][N_PLACES])(size_t) = {
    { tracy_0, tracy_1, tracy_2, tracy_3 },
    { prof_0, prof_1, prof_2, prof_3 },
};

/* ---- the server stand-in: handshake, then read and drop ---- */
static pid_t start_server() {
    pid_t pid = fork();
    if (pid != 0) return pid;
    for (int tries = 0; tries < 1000; tries++) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_port = htons(8086); /* Tracy's default port */
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(s, (sockaddr *)&a, sizeof a) == 0) {
            static char buf[1 << 20];
            uint32_t version = tracy::ProtocolVersion;
            if (write(s, tracy::HandshakeShibboleth, tracy::HandshakeShibbolethSize) < 0 || write(s, &version, sizeof version) < 0) _exit(1);
            while (read(s, buf, sizeof buf) > 0) {}
            _exit(0);
        }
        close(s);
        usleep(10000);
    }
    _exit(1);
}

/* ---- the measuring threads ---- */
struct worker {
    pthread_t th;
    rec24 *buf;
    int rounds;
    double ratio[N_VARIANTS][N_PLACES][1024];
    double floor_ns_sum, floor_chunks;
};
static worker g_w[2];
static pthread_barrier_t g_go, g_done;
static int g_task; /* 0 warm prof.h, 1 measure, 2 exit */
static int g_active; /* threads taking part */

static void measure(worker *w) {
    for (int r = 0; r < w->rounds; r++)
        for (int p = 0; p < N_PLACES; p++)
            for (int v = 0; v < N_VARIANTS; v++) {
                floor_at[p](w->buf, CHUNK / 10); /* warm-up, alike for both */
                double t0 = now_s();
                floor_at[p](w->buf, CHUNK);
                double t1 = now_s();
                run_at[v][p](CHUNK);
                double t2 = now_s();
                w->ratio[v][p][r] = (t2 - t1) / (t1 - t0);
                /* Tracy's worker compresses and sends the chunk's zones
                   after it: let it finish before the next floor chunk */
                if (v == 0) usleep(10000);
                w->floor_ns_sum += (t1 - t0) * 1e9 / CHUNK;
                w->floor_chunks += 1;
            }
}
static void *worker_main(void *arg) {
    worker *w = (worker *)arg;
    for (;;) {
        pthread_barrier_wait(&g_go);
        if (g_task == 2) break;
        if (w - g_w < g_active) {
            if (g_task == 0) {
                for (int k = 0; k < w->rounds * N_PLACES; k++) prof_0(CHUNK);
            } else {
                measure(w);
            }
        }
        pthread_barrier_wait(&g_done);
    }
    return NULL;
}
static void run_task(int task, int active) {
    g_task = task;
    g_active = active;
    pthread_barrier_wait(&g_go);
    if (task != 2) pthread_barrier_wait(&g_done);
}

static void report(int threads) {
    double mean[N_VARIANTS] = { 0, 0 }, floor_ns = 0, chunks = 0;
    const char *names[N_VARIANTS] = { "tracy", "prof" };
    for (int v = 0; v < N_VARIANTS; v++) {
        printf("#   %-6s %dt median chunk ratio by placement (+0, +16, +32, +48 bytes):", names[v], threads);
        for (int p = 0; p < N_PLACES; p++) {
            /* the threads' chunks together */
            static double all[2 * 1024];
            int n = 0;
            for (int t = 0; t < threads; t++)
                for (int r = 0; r < g_w[t].rounds; r++) all[n++] = g_w[t].ratio[v][p][r];
            std::sort(all, all + n);
            printf(" %.3f", all[n / 2]);
            mean[v] += all[n / 2] / N_PLACES;
        }
        printf("\n");
    }
    for (int t = 0; t < threads; t++) { floor_ns += g_w[t].floor_ns_sum; chunks += g_w[t].floor_chunks; }
    printf("floor_%dt %.2f ns\n", threads, floor_ns / chunks);
    printf("tracy_%dt_ratio %.3f x\n", threads, mean[0]);
    printf("prof_%dt_ratio %.3f x\n", threads, mean[1]);
    fflush(stdout);
}

int main() {
    const char *env = getenv("PROF_BENCH_ROUNDS");
    int rounds = env && *env ? atoi(env) : 40;
    if (rounds < 1) rounds = 1;
    if (rounds > 1024) rounds = 1024;

    pid_t server = start_server();
    if (server < 0) { perror("fork"); return 1; }
    double t_wait = now_s();
    while (!TracyIsConnected) {
        if (now_s() - t_wait > 20) {
            fprintf(stderr, "peers: Tracy did not connect to the stand-in server (port 8086 in use?)\n");
            kill(server, SIGKILL);
            _exit(1);
        }
        usleep(10000);
    }

    printf("# prof.h and Tracy's client (ZoneScopedN), ns per scope against the floor\n");
    printf("# %d rounds x %d placements x %u iterations per thread and loop, each chunk after a floor chunk\n", rounds, N_PLACES, CHUNK);
    pthread_barrier_init(&g_go, NULL, 3);
    pthread_barrier_init(&g_done, NULL, 3);
    for (int t = 0; t < 2; t++) {
        g_w[t].rounds = rounds;
        g_w[t].buf = (rec24 *)mmap(NULL, CHUNK * sizeof(rec24), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (g_w[t].buf == MAP_FAILED) { perror("mmap"); _exit(1); }
        memset(g_w[t].buf, 1, CHUNK * sizeof(rec24));
        if (pthread_create(&g_w[t].th, NULL, worker_main, &g_w[t]) != 0) { perror("pthread_create"); _exit(1); }
    }

    prof_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_events = (size_t)rounds * N_PLACES * CHUNK * 2 + ((size_t)1 << 22);
    /* prof.h's steady state: the measured session reuses these blocks */
    if (prof_start(&cfg) != PROF_OK) { fprintf(stderr, "prof_start: %s\n", prof_last_error()); _exit(1); }
    run_task(0, 2);
    prof_events_free(prof_stop());

    for (int threads = 1; threads <= 2; threads++) {
        for (int t = 0; t < 2; t++) g_w[t].floor_ns_sum = g_w[t].floor_chunks = 0;
        if (prof_start(&cfg) != PROF_OK) { fprintf(stderr, "prof_start: %s\n", prof_last_error()); _exit(1); }
        run_task(1, threads);
        prof_events *ev = prof_stop();
        prof_stats st = prof_events_stats(ev);
        report(threads);
        printf("prof_%dt_blocks_added %llu (0: every block reused)\n", threads, (unsigned long long)st.blocks_added);
        if (st.dropped) printf("prof_%dt_dropped %llu events\n", threads, (unsigned long long)st.dropped);
        prof_events_free(ev);
    }

    run_task(2, 0);
    kill(server, SIGKILL);
    waitpid(server, NULL, 0);
    fflush(stdout);
    /* Tracy's exit waits for a real server to take the rest of the data and
       say goodbye; the stand-in never will */
    _exit(0);
}
