/* A stand-in for the CUDA driver (built as libtpfakecuda.so with the soname libcuda.so.1, found as
 * libcuda.so.1 through LD_LIBRARY_PATH): the driver API calls tprof interposes, with "device"
 * memory in host pages, so that the hooks and the report can be tested on a machine without a
 * GPU. Synchronise calls sleep FAKECUDA_SYNC_MS milliseconds (0 by default); cuCtxGetDevice
 * answers FAKECUDA_DEVICE (0). cuGetProcAddress and cuGetProcAddress_v2 answer by the names the
 * runtime asks for ("cuMemAlloc", not "cuMemAlloc_v2"), as the driver does. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define MAXBLOCKS 256
static struct {
    CUdeviceptr p;
    size_t n;
} blocks[MAXBLOCKS];

static CUresult give(CUdeviceptr *out, size_t n)
{
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    for (int i = 0; i < MAXBLOCKS; i++)
        if (!blocks[i].p) {
            blocks[i].p = (CUdeviceptr)(uintptr_t)p;
            blocks[i].n = n ? n : 1;
            *out = blocks[i].p;
            return 0;
        }
    munmap(p, n);
    return 2;
}

static CUresult take(CUdeviceptr p)
{
    for (int i = 0; i < MAXBLOCKS; i++)
        if (blocks[i].p == p) {
            munmap((void *)(uintptr_t)p, blocks[i].n);
            blocks[i].p = 0;
            return 0;
        }
    return 1; /* CUDA_ERROR_INVALID_VALUE */
}

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 12020; return 0; }
CUresult cuCtxGetDevice(int *d)
{
    const char *e = getenv("FAKECUDA_DEVICE");
    *d = e ? atoi(e) : 0;
    return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { return give(p, n); }
CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned f) { (void)f; return give(p, n); }
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, void *s) { (void)s; return give(p, n); }
CUresult cuMemAllocPitch_v2(CUdeviceptr *p, size_t *pitch, size_t w, size_t h, unsigned e)
{
    (void)e;
    *pitch = (w + 511) / 512 * 512;
    return give(p, *pitch * h);
}
CUresult cuMemFree_v2(CUdeviceptr p) { return take(p); }
CUresult cuMemFreeAsync(CUdeviceptr p, void *s) { (void)s; return take(p); }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n)
{
    memcpy((void *)(uintptr_t)d, s, n);
    return 0;
}
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
    memcpy(d, (void *)(uintptr_t)s, n);
    return 0;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n)
{
    memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
    return 0;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st)
{
    (void)st;
    return cuMemcpyHtoD_v2(d, s, n);
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st)
{
    (void)st;
    return cuMemcpyDtoH_v2(d, s, n);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *st)
{
    (void)st;
    return cuMemcpyDtoD_v2(d, s, n);
}
CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n) { return cuMemcpyDtoD_v2(d, s, n); }
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void *st)
{
    (void)st;
    return cuMemcpyDtoD_v2(d, s, n);
}
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n)
{
    memset((void *)(uintptr_t)p, v, n);
    return 0;
}
CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned v, size_t n)
{
    unsigned *q = (unsigned *)(uintptr_t)p;
    for (size_t i = 0; i < n; i++)
        q[i] = v;
    return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, void *s)
{
    (void)s;
    return cuMemsetD8_v2(p, v, n);
}
CUresult cuMemsetD32Async(CUdeviceptr p, unsigned v, size_t n, void *s)
{
    (void)s;
    return cuMemsetD32_v2(p, v, n);
}

struct fn {
    char name[64];
};
static struct fn fns[16];

CUresult cuModuleGetFunction(void **f, void *mod, const char *name)
{
    (void)mod;
    for (int i = 0; i < 16; i++)
        if (!fns[i].name[0] || !strcmp(fns[i].name, name)) {
            strncpy(fns[i].name, name, sizeof fns[i].name - 1);
            *f = &fns[i];
            return 0;
        }
    return 500; /* CUDA_ERROR_NOT_FOUND */
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned sh, void *s, void **params, void **extra)
{
    (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)sh, (void)s, (void)params;
    (void)extra;
    return f ? 0 : 400; /* CUDA_ERROR_INVALID_HANDLE */
}

static CUresult wait_device(void)
{
    const char *e = getenv("FAKECUDA_SYNC_MS");
    long ms = e ? atol(e) : 0;
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (ms > 0 && nanosleep(&t, &t) != 0)
        ;
    return 0;
}
CUresult cuCtxSynchronize(void) { return wait_device(); }
CUresult cuStreamSynchronize(void *s) { (void)s; return wait_device(); }
CUresult cuEventSynchronize(void *e) { (void)e; return wait_device(); }

CUresult cuGetProcAddress(const char *name, void **pfn, int version, unsigned long long flags);
CUresult cuGetProcAddress_v2(const char *name, void **pfn, int version, unsigned long long flags,
                             int *status);

static const struct {
    const char *name;
    void *fn;
} table[] = {
    {"cuInit", (void *)cuInit},
    {"cuDriverGetVersion", (void *)cuDriverGetVersion},
    {"cuCtxGetDevice", (void *)cuCtxGetDevice},
    {"cuMemAlloc", (void *)cuMemAlloc_v2},
    {"cuMemAllocManaged", (void *)cuMemAllocManaged},
    {"cuMemAllocAsync", (void *)cuMemAllocAsync},
    {"cuMemAllocPitch", (void *)cuMemAllocPitch_v2},
    {"cuMemFree", (void *)cuMemFree_v2},
    {"cuMemFreeAsync", (void *)cuMemFreeAsync},
    {"cuMemcpyHtoD", (void *)cuMemcpyHtoD_v2},
    {"cuMemcpyDtoH", (void *)cuMemcpyDtoH_v2},
    {"cuMemcpyDtoD", (void *)cuMemcpyDtoD_v2},
    {"cuMemcpyHtoDAsync", (void *)cuMemcpyHtoDAsync_v2},
    {"cuMemcpyDtoHAsync", (void *)cuMemcpyDtoHAsync_v2},
    {"cuMemcpyDtoDAsync", (void *)cuMemcpyDtoDAsync_v2},
    {"cuMemcpy", (void *)cuMemcpy},
    {"cuMemcpyAsync", (void *)cuMemcpyAsync},
    {"cuMemsetD8", (void *)cuMemsetD8_v2},
    {"cuMemsetD32", (void *)cuMemsetD32_v2},
    {"cuMemsetD8Async", (void *)cuMemsetD8Async},
    {"cuMemsetD32Async", (void *)cuMemsetD32Async},
    {"cuModuleGetFunction", (void *)cuModuleGetFunction},
    {"cuLaunchKernel", (void *)cuLaunchKernel},
    {"cuCtxSynchronize", (void *)cuCtxSynchronize},
    {"cuStreamSynchronize", (void *)cuStreamSynchronize},
    {"cuEventSynchronize", (void *)cuEventSynchronize},
};

CUresult cuGetProcAddress(const char *name, void **pfn, int version, unsigned long long flags)
{
    (void)flags;
    if (!strcmp(name, "cuGetProcAddress")) {
        *pfn = version >= 12000 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
        return 0;
    }
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, name)) {
            *pfn = table[i].fn;
            return 0;
        }
    *pfn = NULL;
    return 500;
}

CUresult cuGetProcAddress_v2(const char *name, void **pfn, int version, unsigned long long flags,
                             int *status)
{
    CUresult rc = cuGetProcAddress(name, pfn, version, flags);
    if (status)
        *status = rc == 0 ? 0 : 1;
    return rc;
}
