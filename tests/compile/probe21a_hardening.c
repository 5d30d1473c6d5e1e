/* probe21a-*: the implementation and every recording macro in one file,
   built with the code-generation and hardening flags projects and distros
   use (run.sh says which per case: -D_FORTIFY_SOURCE=3, -fstack-protector-all,
   -ftrivial-auto-var-init=pattern, -funsigned-char, -fshort-enums, -static,
   -flto, -O3 -march=native, -Og, -O0 -g3, -fsanitize=undefined,bounds with
   -fno-sanitize-recover=all), and run: a session with shapes, flops,
   memory, scope stacks and two threads, then prof_report writing the table
   and every file it can (each must be there and non-empty). A flag that
   changes code generation only shows its effect when the code runs, so
   each case runs this (fortify's and the sanitizers' checks are run-time
   checks). Exit 0 when all went well. Also the file that
   probe21a-weverything-impl-* and probe21a-short-enums-* build, in C and
   as C++ (the casts below are C++-clean for that). */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "strict_user.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

/* built as C++ too (probe21a-*-gxx, -clangxx), under C++ style warnings */
#ifdef __cplusplus
#define P21_CAST(T, x) static_cast<T>(x)
#define P21_NULL nullptr
#else
#define P21_CAST(T, x) ((T)(x))
#define P21_NULL NULL
#endif

static void *probe21a_worker(void *arg) {
    int i, *r = P21_CAST(int *, arg);
    PROF_THREAD_NAME("worker");
    for (i = 0; i < 50; i++) {
        PROF_SCOPE("worker_step");
        *r += strict_user_work(i, 0.5 * i, 0.25f, P21_CAST(int64_t, i) << 33, P21_CAST(uint64_t, i), P21_CAST(unsigned, i));
    }
    return P21_NULL;
}

static int probe21a_nonempty(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size <= 0) {
        fprintf(stderr, "probe21a: %s missing or empty\n", path);
        return 0;
    }
    return 1;
}

int main(void) {
    prof_config cfg;
    prof_report_options opt;
    prof_events *ev;
    pthread_t t;
    int i, r = 0, rw = 0, ok = 1;
    const char *files[5];
    memset(&cfg, 0, sizeof cfg);
    cfg.record_shapes = 1;
    cfg.profile_memory = 1;
    cfg.with_stack = PROF_STACK_SCOPES;
    cfg.with_flops = 1;
    if (prof_start(&cfg) != PROF_OK) return 1;
    prof_add_metadata("probe", "21a");
    if (pthread_create(&t, P21_NULL, probe21a_worker, &rw) != 0) return 1;
    for (i = 0; i < 50; i++) {
        char *p;
        PROF_SCOPE("main_step");
        p = P21_CAST(char *, malloc(64 + P21_CAST(size_t, i)));
        prof_alloc(p, 64 + P21_CAST(size_t, i));
        r += strict_user_work(i, 1.5, 2.5f, P21_CAST(int64_t, 1) << 40, P21_CAST(uint64_t, 7), 9u);
        prof_dealloc(p);
        free(p);
    }
    pthread_join(t, P21_NULL);
    ev = prof_stop();
    if (!ev || r != 500 || rw != 500) {
        fprintf(stderr, "probe21a: prof_stop %p, work %d %d (want 500 500)\n", P21_CAST(void *, ev), r, rw);
        return 1;
    }
    memset(&opt, 0, sizeof opt);
    opt.group.group_by_input_shapes = 1;
    opt.table.row_limit = -1;
    files[0] = opt.chrome_trace = "trace.json";
    files[1] = opt.perfetto = "trace.pftrace";
    files[2] = opt.pprof = "profile.pb.gz";
    files[3] = opt.stacks = "stacks.txt";
    files[4] = opt.memory_timeline = "memory.json";
    if (prof_report(ev, &opt) != PROF_OK) ok = 0;
    for (i = 0; i < 5; i++) ok &= probe21a_nonempty(files[i]);
    prof_events_free(ev);
    prof_shutdown();
    return ok ? 0 : 1;
}
