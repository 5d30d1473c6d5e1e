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

// One prof.h session of n scoped launches: the CUDA kernels it recorded
// (-1: prof_start or prof_stop failed); the last message in err.
extern "C" int interop_session(int n, char *err, int cap) {
    prof_config cfg;
    prof_events *ev;
    int kernels = 0;
    size_t i;
    memset(&cfg, 0, sizeof cfg);
    cfg.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    if (err && cap > 0) err[0] = 0;
    if (prof_start(&cfg) != PROF_OK) return -1;
    for (int k = 0; k < n; k++) {
        PROF_SCOPE("interop");
        interop_kernel<<<1, 1>>>(NULL);
    }
    cudaDeviceSynchronize();
    ev = prof_stop();
    if (err && cap > 0) {
        strncpy(err, prof_last_error(), (size_t)cap - 1);
        err[cap - 1] = 0;
    }
    if (!ev) return -1;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && e.device_type == PROF_DEVICE_CUDA && !strncmp(e.name, "interop_kernel", 14)) kernels++;
    }
    prof_events_free(ev);
    return kernels;
}
