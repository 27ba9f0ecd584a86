/* A CUDA program as the runtime makes one, without the runtime: v_cuda MODE.
 *   runtime  dlopen("libcuda.so.1"), cuGetProcAddress_v2 from dlsym on its handle, and every
 *            driver function from cuGetProcAddress_v2 at CUDA 12.0 (what nvcc's static cudart
 *            does); without a driver: one line on stderr and exit status 3;
 *   linked   the exported names (built with -lcuda -lcublas: tests/victims/v_cuda_linked), and
 *            cuBLAS products: cublasSgemm_v2 512 x 512 x 512 NN 10 times, cublasGemmEx 256 x 128 x
 *            64 TN on f16 twice, cublasSgemmStridedBatched 64 x 64 x 64 NT in batches of 8 once,
 *            and one cublasSgemm_v2 that fails (k = -1);
 *   probe    is the driver there? dlsym(RTLD_DEFAULT, "cuMemAlloc_v2") and a dlopen with
 *            RTLD_NOLOAD, printed: "driver absent" or "driver present";
 *   churn    as runtime, then 60,000 stream-ordered allocations of 4 KiB, each freed at once
 *            (more than tprof's table holds live at once, never more than one live).
 * The work, in both of the first two (sizes in bytes):
 *   a = 1 MiB device (MARK:a), b = 4 MiB device (MARK:b), m = 2 MiB managed (MARK:m),
 *   s = 512 KiB stream-ordered (MARK:s), then s freed, b freed: a peak of 7.5 MiB, 3 MiB at exit;
 *   copies: 1 MiB host to device, 64 KiB host to device async, 4 KiB through cuMemcpy to a + 8 KiB,
 *   1 MiB device to host, 256 KiB device to device; cuMemsetD32 of 1000 words;
 *   kernels: vec_add launched 10 times on a 64 x 1 x 1 grid of 256 x 1 x 1 blocks, reduce 3
 *   times on 8 x 4 x 1 of 32 x 8 x 1 with 1024 bytes of shared memory, from train_step (an op
 *   with TPROF_OPS=train_step);
 *   two cuStreamSynchronize, the second inside train_step. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

struct driver {
    CUresult (*alloc)(CUdeviceptr *, size_t);
    CUresult (*managed)(CUdeviceptr *, size_t, unsigned);
    CUresult (*alloc_async)(CUdeviceptr *, size_t, void *);
    CUresult (*free_)(CUdeviceptr);
    CUresult (*free_async)(CUdeviceptr, void *);
    CUresult (*htod)(CUdeviceptr, const void *, size_t);
    CUresult (*htod_async)(CUdeviceptr, const void *, size_t, void *);
    CUresult (*dtoh)(void *, CUdeviceptr, size_t);
    CUresult (*dtod)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*copy)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*set32)(CUdeviceptr, unsigned, size_t);
    CUresult (*getfn)(void **, void *, const char *);
    CUresult (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, void *, void **, void **);
    CUresult (*stream_sync)(void *);
};

static struct driver drv;

static void check(CUresult rc, const char *what)
{
    if (rc) {
        printf("%s failed: %d\n", what, rc);
        exit(4);
    }
}

static void train_step(void *reduce)
{
    for (int i = 0; i < 3; i++)
        check(drv.launch(reduce, 8, 4, 1, 32, 8, 1, 1024, NULL, NULL, NULL), "launch reduce");
    check(drv.stream_sync(NULL), "sync in train_step");
}

static void work(void)
{
    static char host[1 << 20];
    CUdeviceptr a, b, m, s;
    check(drv.alloc(&a, 1 << 20), "a"); /* MARK:a */
    check(drv.alloc(&b, 4 << 20), "b"); /* MARK:b */
    check(drv.managed(&m, 2 << 20, 1), "m"); /* MARK:m */
    check(drv.alloc_async(&s, 512 << 10, NULL), "s"); /* MARK:s */
    check(drv.free_async(s, NULL), "free s");
    memset(host, 7, sizeof host);
    check(drv.htod(a, host, 1 << 20), "htod");
    check(drv.htod_async(b, host, 64 << 10, NULL), "htod async");
    check(drv.copy(a + 8192, (CUdeviceptr)(uintptr_t)host, 4096), "cuMemcpy into a");
    check(drv.dtoh(host, a, 1 << 20), "dtoh");
    check(drv.dtod(b, a, 256 << 10), "dtod");
    check(drv.set32(b, 0, 1000), "memset");
    void *add, *reduce;
    check(drv.getfn(&add, NULL, "vec_add"), "vec_add");
    check(drv.getfn(&reduce, NULL, "reduce"), "reduce");
    for (int i = 0; i < 10; i++)
        check(drv.launch(add, 64, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL), "launch vec_add");
    check(drv.stream_sync(NULL), "sync");
    train_step(reduce);
    check(drv.free_(b), "free b");
    printf("sum %d\n", host[100] + host[200000]);
}

typedef CUresult (*getproc_fn)(const char *, void **, int, unsigned long long, int *);

static void *need(getproc_fn get, const char *name)
{
    void *f = NULL;
    int status = 0;
    if (get(name, &f, 12000, 0, &status) || !f) {
        printf("no %s\n", name);
        exit(4);
    }
    return f;
}

static int runtime(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "no CUDA driver: %s\n", dlerror());
        return 3;
    }
    getproc_fn get = (getproc_fn)dlsym(h, "cuGetProcAddress_v2");
    if (!get) {
        fprintf(stderr, "a driver without cuGetProcAddress_v2\n");
        return 3;
    }
    drv.alloc = need(get, "cuMemAlloc");
    drv.managed = need(get, "cuMemAllocManaged");
    drv.alloc_async = need(get, "cuMemAllocAsync");
    drv.free_ = need(get, "cuMemFree");
    drv.free_async = need(get, "cuMemFreeAsync");
    drv.htod = need(get, "cuMemcpyHtoD");
    drv.htod_async = need(get, "cuMemcpyHtoDAsync");
    drv.dtoh = need(get, "cuMemcpyDtoH");
    drv.dtod = need(get, "cuMemcpyDtoD");
    drv.copy = need(get, "cuMemcpy");
    drv.set32 = need(get, "cuMemsetD32");
    drv.getfn = need(get, "cuModuleGetFunction");
    drv.launch = need(get, "cuLaunchKernel");
    drv.stream_sync = need(get, "cuStreamSynchronize");
    work();
    return 0;
}

static int churn(void)
{
    int rc = runtime();
    for (int i = 0; rc == 0 && i < 60000; i++) {
        CUdeviceptr p;
        check(drv.alloc_async(&p, 4096, NULL), "churn alloc");
        check(drv.free_async(p, NULL), "churn free");
    }
    return rc;
}

#ifdef LINKED
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemAllocManaged(CUdeviceptr *, size_t, unsigned);
CUresult cuMemAllocAsync(CUdeviceptr *, size_t, void *);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemFreeAsync(CUdeviceptr, void *);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void *, size_t, void *);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpyDtoD_v2(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemcpy(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemsetD32_v2(CUdeviceptr, unsigned, size_t);
CUresult cuModuleGetFunction(void **, void *, const char *);
CUresult cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, void *, void **, void **);
CUresult cuStreamSynchronize(void *);
int cublasSgemm_v2(void *, int, int, int, int, int, const float *, const float *, int,
                   const float *, int, const float *, float *, int);
int cublasGemmEx(void *, int, int, int, int, int, const void *, const void *, int, int,
                 const void *, int, int, const void *, void *, int, int, int, int);
int cublasSgemmStridedBatched(void *, int, int, int, int, int, const float *, const float *, int,
                              long long, const float *, int, long long, const float *, float *,
                              int, long long, int);

static void blas(void)
{
    float one = 1, zero = 0;
    for (int i = 0; i < 10; i++)
        if (cublasSgemm_v2(NULL, 0, 0, 512, 512, 512, &one, NULL, 512, NULL, 512, &zero, NULL, 512))
            printf("sgemm failed\n");
    for (int i = 0; i < 2; i++)
        if (cublasGemmEx(NULL, 1, 0, 256, 128, 64, &one, NULL, 2, 64, NULL, 2, 64, &zero, NULL, 2,
                         256, 68, -1))
            printf("gemmex failed\n");
    if (cublasSgemmStridedBatched(NULL, 0, 1, 64, 64, 64, &one, NULL, 64, 4096, NULL, 64, 4096,
                                  &zero, NULL, 64, 4096, 8))
        printf("batched failed\n");
    if (!cublasSgemm_v2(NULL, 0, 0, 8, 8, -1, &one, NULL, 8, NULL, 8, &zero, NULL, 8))
        printf("a bad sgemm succeeded\n");
}

static int linked(void)
{
    blas();
    drv = (struct driver){cuMemAlloc_v2,   cuMemAllocManaged,    cuMemAllocAsync,
                          cuMemFree_v2,    cuMemFreeAsync,       cuMemcpyHtoD_v2,
                          cuMemcpyHtoDAsync_v2, cuMemcpyDtoH_v2, cuMemcpyDtoD_v2,
                          cuMemcpy,        cuMemsetD32_v2,       cuModuleGetFunction,
                          cuLaunchKernel,  cuStreamSynchronize};
    work();
    return 0;
}
#endif

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "runtime";
    if (!strcmp(mode, "runtime"))
        return runtime();
    if (!strcmp(mode, "churn"))
        return churn();
#ifdef LINKED
    if (!strcmp(mode, "linked"))
        return linked();
#endif
    if (!strcmp(mode, "probe")) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        printf("driver %s, loaded %s\n", dlsym(RTLD_DEFAULT, "cuMemAlloc_v2") ? "present" : "absent",
               h ? "yes" : "no");
        return 0;
    }
    fprintf(stderr, "usage: v_cuda runtime|linked|probe\n");
    return 2;
}
