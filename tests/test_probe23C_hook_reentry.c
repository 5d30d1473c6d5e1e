/* PROF_MALLOC/PROF_REALLOC/PROF_FREE that are themselves instrumented
   with prof.h: an allocator that reports its blocks through prof_alloc /
   prof_dealloc (so prof.h's own memory shows in the profile), or whose
   malloc is a PROF_SCOPE. prof.h calls the hooks from inside its own
   machinery: prof__live_rehash allocates the shard's new slots through
   PROF_MALLOC while it holds the shard's lock, and the hook's prof_alloc
   takes a shard lock again: the first prof_alloc of the process recurses
   from shard to shard until it meets one it holds, and hangs. A hook with
   a PROF_SCOPE recurses in prof__attach (the thread's state comes from
   PROF_MALLOC, and the scope asks for the state again) until the stack
   overflows. The manual says nothing against either. Each case runs in a
   child with an alarm; it must finish, with the user's own scopes and
   allocations recorded exactly. */
#include <stddef.h> /* (a compiler header: prof.h comes before the system's) */
void *probe_malloc(size_t n);
void *probe_realloc(void *p, size_t n);
void probe_free(void *p);
#define PROF_MALLOC(n) probe_malloc(n)
#define PROF_REALLOC(p, n) probe_realloc(p, n)
#define PROF_FREE(p) probe_free(p)
#define PROF_IMPLEMENTATION
#include "prof.h"
#include "check.h"

static int mode; /* 1: the hooks report through prof_alloc/prof_dealloc; 2: a scope in the malloc hook */
void *probe_malloc(size_t n) {
    void *p;
    if (mode == 2) {
        PROF_SCOPE("probe_malloc");
        p = malloc(n);
    } else {
        p = malloc(n);
    }
    if (mode == 1 && p) prof_alloc_ex(p, n, PROF_DEVICE_CPU, 0, "prof.h");
    return p;
}
void *probe_realloc(void *p, size_t n) {
    void *q;
    if (mode == 1) prof_dealloc(p);
    q = realloc(p, n);
    if (mode == 1 && q) prof_alloc_ex(q, n, PROF_DEVICE_CPU, 0, "prof.h");
    return q;
}
void probe_free(void *p) {
    if (mode == 1) prof_dealloc(p);
    free(p);
}

#define OPS 5000
static char run_child(void) {
    prof_config cfg;
    prof_events *ev;
    size_t i, n, ops = 0;
    int64_t op_mem = 0;
    alarm(10); /* a hang ends the child: no verdict */
    memset(&cfg, 0, sizeof cfg);
    cfg.profile_memory = 1;
    if (prof_start(&cfg) != PROF_OK) return 'S';
    for (i = 0; i < OPS; i++) {
        PROF_SCOPE("op");
        void *p = prof_malloc(24);
        if (i % 2) prof_free(p);
    }
    if (!(ev = prof_stop())) return 'N';
    n = prof_events_count(ev);
    for (i = 0; i < n; i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) != PROF_OK) return 'G';
        if (strcmp(e.name, "op") == 0) {
            ops++;
            op_mem += e.self_cpu_memory_usage;
        }
    }
    prof_events_free(ev);
    prof_shutdown();
    if (ops != OPS) return 'C';
    /* every op keeps its even allocation; what prof.h itself allocated
       inside an op, if reported, only adds */
    if (op_mem < (int64_t)24 * (OPS / 2)) return 'M';
    return 'Y';
}
static void no_release(void) {}

int main(void) {
    int st;
    char v;
    for (mode = 1; mode <= 2; mode++) {
        v = check_fork_verdict(run_child, no_release, &st);
        if (v != 'Y')
            fprintf(stderr, "mode %d: verdict %c, child %s %d\n", mode, v ? v : '-',
                    WIFSIGNALED(st) ? "killed by signal" : "exit status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        CHECK_EQ_INT(v, 'Y');
    }
    return check_report();
}
