// A CUDA program of known sizes for bench/gpu/check.sh: cudaMalloc'd buffers, copies both ways,
// a hand-written kernel launched a known number of times, and cublasSgemm calls of one shape.
// It prints what it did ("expect key=value ..."), which check.sh compares with tprof's report.
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                             \
            return 3;                                                                              \
        }                                                                                          \
    } while (0)

int main()
{
    const int n = 1 << 20, M = 512, N = 512, K = 512, launches = 100, gemms = 10;
    const size_t xb = (size_t)n * 4, ab = (size_t)M * K * 4, bb = (size_t)K * N * 4,
                 cb = (size_t)M * N * 4;
    float *h = (float *)calloc(n, sizeof(float));
    float *dx, *da, *db, *dc;
    CHECK(cudaMalloc(&dx, xb));
    CHECK(cudaMalloc(&da, ab));
    CHECK(cudaMalloc(&db, bb));
    CHECK(cudaMalloc(&dc, cb));
    CHECK(cudaMemcpy(dx, h, xb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(da, h, ab, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, h, bb, cudaMemcpyHostToDevice));
    for (int i = 0; i < launches; i++)
        scale<<<(n + 255) / 256, 256>>>(dx, 1.0001f, n);
    CHECK(cudaGetLastError());
    cublasHandle_t hd;
    if (cublasCreate(&hd) != CUBLAS_STATUS_SUCCESS)
        return 4;
    float alpha = 1, beta = 0;
    for (int i = 0; i < gemms; i++)
        cublasSgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da, M, db, K, &beta, dc, M);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, dc, cb, cudaMemcpyDeviceToHost));
    cublasDestroy(hd);
    CHECK(cudaFree(dx));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    /* dc stays allocated: the report's "still allocated at exit" */
    printf("expect program_bytes=%zu program_peak=%zu left=%zu htod=%zu dtoh=%zu "
           "scale_launches=%d gemm_calls=%d gemm_flops=%lld\n",
           xb + ab + bb + cb, xb + ab + bb + cb, cb, xb + ab + bb, cb, launches, gemms,
           (long long)gemms * 2 * M * N * K);
    return 0;
}
