/* scenario.h - what tests/gpu's programs launch in each session, and what
   the checks then expect: one table for the GPU program (gpu_check.cu) and
   the fake one (fake_check.c). Durations are the spin kernels' targets in
   microseconds; the GPU program measures the real ones. */
#ifndef PROF_GPU_SCENARIO_H
#define PROF_GPU_SCENARIO_H

#include "gpu_checks.h"

#define SC_SESSIONS 3
#define SC_MIB (1024ull * 1024ull)

/* The expectations of one session, before the measured durations and
   stream ids are filled in. */
static inline void sc_expect(gc_session *s, int index) {
    memset(s, 0, sizeof *s);
    s->index = index;
#define SC_K(scope_, name_, count_) do { gc_kernel *k_ = &s->kernels[s->nkernels++]; \
        k_->scope = scope_; k_->name = name_; k_->device = 0; k_->stream = -1; k_->count = count_; k_->own_ns = 0; } while (0)
    SC_K("chevron", "spin_a", 1);           /* <<<>>> */
    SC_K("launch_kernel", "spin_b", 1);     /* cudaLaunchKernel */
    SC_K("launch_kernel_ex", "spin_c", 1);  /* cudaLaunchKernelExC */
    SC_K("cu_launch", "spin_d", 1);         /* cuLaunchKernel */
    SC_K("graph", "graph_k0", 1);           /* one cudaGraphLaunch */
    SC_K("graph", "graph_k1", 1);
    SC_K("graph", "graph_k2", 1);
    SC_K("streams", "spin_s1", 1);          /* two streams */
    SC_K("streams", "spin_s2", 1);
    SC_K("thread", "spin_t", 1);            /* from a second thread */
#undef SC_K
    s->any_kernels_scope[s->nany++] = "gemm"; /* cuBLAS: its own kernels */
#define SC_C(kind_, bytes_) do { gc_copy *c_ = &s->copies[s->ncopies++]; c_->scope = "copies"; c_->kind = kind_; c_->bytes = bytes_; } while (0)
    SC_C("HtoD", 1 * SC_MIB);
    SC_C("DtoH", 1 * SC_MIB);
    SC_C("DtoD", 2 * SC_MIB);
    SC_C("Memset", 4 * SC_MIB);
#undef SC_C
#define SC_M(scope_, dev_, cpu_) do { gc_mem *m_ = &s->mems[s->nmems++]; m_->scope = scope_; m_->device_bytes = (int64_t)(dev_); m_->cpu_bytes = (int64_t)(cpu_); } while (0)
    SC_M("alloc", 16 * SC_MIB, 0);          /* cudaMalloc, freed after the scope */
    SC_M("async_mem", 0, 0);                /* cudaMallocAsync + cudaFreeAsync */
    SC_M("pinned", 0, 4 * SC_MIB);          /* cudaMallocHost: host memory */
#undef SC_M
}

/* Spin kernels' target durations (us), by name. */
static inline int64_t sc_spin_us(const char *name) {
    if (!strcmp(name, "spin_a")) return 400;
    if (!strcmp(name, "spin_b")) return 300;
    if (!strcmp(name, "spin_c")) return 250;
    if (!strcmp(name, "spin_d")) return 200;
    if (!strcmp(name, "spin_s1") || !strcmp(name, "spin_s2")) return 150;
    if (!strcmp(name, "spin_t")) return 120;
    return 100; /* graph kernels, cuBLAS's stand-in */
}

static inline gc_kernel *sc_kernel(gc_session *s, const char *name) {
    int k;
    for (k = 0; k < s->nkernels; k++)
        if (!strcmp(s->kernels[k].name, name)) return &s->kernels[k];
    return NULL;
}

#endif /* PROF_GPU_SCENARIO_H */
