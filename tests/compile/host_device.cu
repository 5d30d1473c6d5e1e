/* Every macro inside a __host__ __device__ function (a helper shared by
   host code and kernels). nvcc's device pass compiles its body for the GPU,
   where prof.h's scope guard and clock are host functions: the macros are
   the compiled-out ones there (warnings #20011/#20014 otherwise, errors
   under -Werror all-warnings). The host pass records as usual: run on the
   host alone (no kernel is launched, no GPU needed), the host call is
   recorded. */
#define PROF_IMPLEMENTATION
#include "prof.h"
#include <stdio.h>
#include <string.h>

__host__ __device__ inline float cube(float x) {
    PROF_FUNC();
    PROF_SCOPE("cube_scope");
    PROF_SCOPE_SHAPES("cube_shapes", 2, 3, 4);
    PROF_SCOPE_FLOPS("cube_flops", 3);
    PROF_SCOPE_DYN("cube_dyn");
    PROF_COUNTER("cube_x", x);
    PROF_MARK("cube_mark");
    PROF_BEGIN("cube_range");
    PROF_END();
    return x * x * x;
}
__global__ void cube_kernel(float *y) { y[threadIdx.x] = cube(y[threadIdx.x]); }

int main(int argc, char **argv) {
    (void)argv;
    prof_config cfg;
    prof_events *ev;
    size_t i, found = 0;
    prof_stats st;
    float v;
    if (argc > 1) { /* never: the kernel is only compiled */
        cube_kernel<<<1, 1>>>(NULL);
        return 2;
    }
    memset(&cfg, 0, sizeof cfg);
    if (prof_start(&cfg) != PROF_OK) return 1;
    v = cube(2.0f);
    ev = prof_stop();
    if (!ev) return 1;
    for (i = 0; i < prof_events_count(ev); i++) {
        prof_event e;
        if (prof_events_get(ev, i, &e) == PROF_OK && strncmp(e.name, "cube", 4) == 0) found++;
    }
    st = prof_events_stats(ev);
    prof_events_free(ev);
    printf("host_device: %zu events of cube on the host, %llu mark, %llu counter sample, cube(2) = %g\n",
           found, (unsigned long long)st.marks, (unsigned long long)st.counters, (double)v);
    return found == 6 && st.marks == 1 && st.counters == 1 && v == 8.0f ? 0 : 1; /* cube, cube_scope, _shapes, _flops, _dyn, _range */
}
