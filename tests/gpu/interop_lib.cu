// interop_lib.cu - prof.h inside a PyTorch process (tests/gpu/interop.py):
// a shared library whose sessions launch kernels under a scope, for the
// check that prof.h and torch.profiler (Kineto, another CUPTI client) take
// turns in one process. Built by interop.py with nvcc.
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <cuda_runtime.h>
#include <string.h>

__global__ void interop_kernel(int *p) {
    if (p) *p = 1;
}

// Launches n kernels (no profiler of ours), for torch.profiler to see.
extern "C" int interop_launch(int n) {
    for (int i = 0; i < n; i++) interop_kernel<<<1, 1>>>(NULL);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

// The messages of one session, joined ("; "), for the caller to read.
struct interop_log { char *buf; size_t cap, n; };
static void interop_log_fn(prof_log_level, prof_result, const char *message, void *user) {
    interop_log *l = (interop_log *)user;
    size_t m = strlen(message);
    if (!l->buf || l->cap == 0) return;
    if (l->n && l->n + 2 < l->cap) { memcpy(l->buf + l->n, "; ", 2); l->n += 2; }
    if (m > l->cap - 1 - l->n) m = l->cap - 1 - l->n;
    memcpy(l->buf + l->n, message, m);
    l->n += m;
    l->buf[l->n] = 0;
}

// One prof.h session of n scoped launches: the CUDA kernels it recorded
// (-1: prof_start or prof_stop failed); that session's messages in err.
extern "C" int interop_session(int n, char *err, int cap) {
    prof_config cfg;
    prof_events *ev;
    interop_log log = { err, cap > 0 ? (size_t)cap : 0, 0 };
    int kernels = 0;
    size_t i;
    if (err && cap > 0) err[0] = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    cfg.log = interop_log_fn;
    cfg.log_user_data = &log;
    if (prof_start(&cfg) != PROF_OK) return -1;
    for (int k = 0; k < n; k++) {
        PROF_SCOPE("interop");
        interop_kernel<<<1, 1>>>(NULL);
    }
    cudaDeviceSynchronize();
    ev = prof_stop();
    prof_set_log(NULL, NULL); // the log outlives the session, and ours is on this stack
    if (!ev) return -1;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type == PROF_DEVICE_CUDA && !strncmp(e.name, "interop_kernel", 14)) kernels++;
    }
    prof_events_free(ev);
    return kernels;
}
