// cuda_demo.cu - kernels, copies, a memset and a cuBLAS GEMM under nested
// prof.h scopes, traced through CUPTI. Prints the table with the CUDA
// columns (Self CUDA, CUDA total, ...) and writes cuda_trace.json with GPU
// lanes and launch -> kernel flow arrows.
//
//   make cuda-demo        (nvcc; needs a GPU and driver to run)
#define PROF_IMPLEMENTATION
#include "prof.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#define CHECK_CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
__global__ void relu(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] < 0) x[i] = 0;
}

int main() {
    const int n = 1024, bytes = n * n * (int)sizeof(float);
    float *host = (float *)malloc(bytes), *a = 0, *b = 0, *c = 0;
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t blas;
    prof_config cfg;
    for (int i = 0; i < n * n; i++) host[i] = (float)(i % 13) - 6.0f;

    memset(&cfg, 0, sizeof cfg);
    cfg.activities = PROF_ACTIVITY_CPU | PROF_ACTIVITY_CUDA;
    cfg.profile_memory = 1;
    cfg.with_stack = PROF_STACK_SCOPES;
    prof_start(&cfg);
    {
        PROF_SCOPE("setup");
        CHECK_CUDA(cudaMalloc(&a, bytes));
        CHECK_CUDA(cudaMalloc(&b, bytes));
        CHECK_CUDA(cudaMalloc(&c, bytes));
        if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublasCreate failed\n"); return 1; }
        { PROF_SCOPE("upload"); CHECK_CUDA(cudaMemcpy(a, host, bytes, cudaMemcpyHostToDevice)); CHECK_CUDA(cudaMemcpy(b, host, bytes, cudaMemcpyHostToDevice)); }
        { PROF_SCOPE("zero_output"); CHECK_CUDA(cudaMemset(c, 0, bytes)); }
    }
    for (int step = 0; step < 5; step++) {
        PROF_SCOPE("step");
        {
            PROF_SCOPE("forward");
            { PROF_SCOPE_FLOPS("gemm", prof_flops_matmul(n, n, n));
              cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n); }
            { PROF_SCOPE("relu"); relu<<<(n * n + 255) / 256, 256>>>(c, n * n); }
        }
        { PROF_SCOPE("update"); scale<<<(n * n + 255) / 256, 256>>>(a, 0.999f, n * n); }
        { PROF_SCOPE("sync"); CHECK_CUDA(cudaDeviceSynchronize()); }
    }
    { PROF_SCOPE("download"); CHECK_CUDA(cudaMemcpy(host, c, bytes, cudaMemcpyDeviceToHost)); }
    cublasDestroy(blas);
    cudaFree(a); cudaFree(b); cudaFree(c);
    prof_events *ev = prof_stop();
    if (!ev) return 1;

    prof_averages *avg = prof_key_averages(ev, NULL);
    prof_table_options opt;
    memset(&opt, 0, sizeof opt);
    opt.sort_by = "self_cuda_time_total";
    opt.row_limit = 15;
    prof_averages_print_table(stdout, avg, &opt);
    if (prof_export_chrome_trace(ev, "cuda_trace.json") == PROF_OK) printf("wrote cuda_trace.json\n");
    prof_export_stacks(ev, "cuda.stacks", "self_cuda_time_total");
    prof_averages_free(avg);
    prof_events_free(ev);
    free(host);
    return 0;
}
