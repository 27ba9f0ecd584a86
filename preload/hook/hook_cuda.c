/* The CUDA driver API (libcuda.so.1), interposed: device memory (cuMemAlloc, cuMemAllocPitch,
 * cuMemAllocManaged, cuMemAllocAsync and their frees), copies and memsets, kernel launches (with
 * the names cuModuleGetFunction gave the functions) and the synchronise calls, each told to
 * track/gpu/gpu.c. tprof loads no CUDA library: these run only when the program calls the driver,
 * and each forwards to the driver's own function and returns its result untouched.
 *
 * A program reaches the driver three ways, and all three end here:
 *   - by the exported names (a program linked with -lcuda): these definitions come first in the
 *     global scope;
 *   - through cuGetProcAddress (the CUDA runtime, linked statically by nvcc's default, and any
 *     program since CUDA 11.3 gets every driver function so): its wrapper returns, for the names
 *     below, the wrapper instead, keeping the driver's pointer for it;
 *   - and cuGetProcAddress itself comes from dlsym on the handle of a dlopen'ed libcuda.so.1, which
 *     no global definition reaches: dlsym is interposed by a trampoline that answers for the two
 *     cuGetProcAddress names and jumps to the real dlsym for every other, with the caller's return
 *     address still on the stack, so that RTLD_NEXT and every caller-relative lookup keep their
 *     meaning exactly (x86-64; elsewhere dlsym is left alone and only the first two ways are seen).
 *
 * The types are declared here from the driver API's ABI (CUresult an int, CUdeviceptr 64 bits,
 * handles pointers): no CUDA header is needed to build. A per-thread-stream variant (_ptsz, _ptds)
 * asked of cuGetProcAddress gets the driver's own function when it differs from the one kept. */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "common/clock.h"
#include "preload/main.h"
#include "preload/real.h"
#include "preload/shim.h"
#include "track/gpu/gpu.h"
#include "track/ops/ops.h"
#include "track/runtime.h"
#include "track/sites/sites.h"
#include "track/unwind/unwind.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef void *CUstream;
typedef void *CUevent;
typedef void *CUfunction;
typedef void *CUmodule;
typedef unsigned long long cuuint64_t;

#define CUDA_SUCCESS 0

/* A hooked driver function: the name cuGetProcAddress knows it by, the exported name, the
 * driver's function (from either way) and the wrapper the program gets instead. */
struct slot {
    const char *base, *export;
    _Atomic(void *) real;
    void *wrapper;
    struct tp_real lookup;
};

static struct slot *slot_by_base(const char *name);

/* The driver's function for a wrapper: the one cuGetProcAddress gave, else the exported one. */
static void *real_of(struct slot *s)
{
    void *f = atomic_load_explicit(&s->real, memory_order_acquire);
    if (f)
        return f;
    f = tp_real_fn(&s->lookup);
    if (f) {
        void *none = NULL;
        atomic_compare_exchange_strong(&s->real, &none, f);
    }
    return f;
}

/* Is this the program's call (tprof running, not tprof's own)? */
static int program_call(void)
{
    tp_gpu_seen();
    if (tp_guard)
        return 0;
    int s = atomic_load_explicit(&tp_state, memory_order_relaxed);
    return s == TP_RUNNING;
}

static int current_device(void);

/* The call site of a wrapper's caller, as the heap's call sites are made. */
static __attribute__((noinline)) uint32_t call_site(void *ra, void *fp)
{
    void *raw[TP_MAX_STACK + TP_STACK_ROOM];
    struct tp_own g = tp_own_begin();
    int want = tp_sites_want();
    int got = want > 0 ? tp_unwind(raw, want - TP_STACK_ROOM + 1, ra, fp) : 0;
    uint32_t site = tp_site_find(raw, got, ra);
    tp_own_end(g);
    return site;
}

/* ---- device memory ---- */

static struct slot s_alloc, s_pitch, s_managed, s_async, s_free, s_free_async;

static void note_alloc(enum tp_gpu_mem kind, CUresult rc, const CUdeviceptr *p, uint64_t bytes,
                       void *ra, void *fp)
{
    if (rc != CUDA_SUCCESS || !p || !program_call())
        return;
    tp_gpu_alloc(current_device(), kind, *p, bytes, call_site(ra, fp));
}

TP_EXPORT TP_NOINSTR CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
    CUresult (*f)(CUdeviceptr *, size_t) = real_of(&s_alloc);
    CUresult rc = f ? f(dptr, bytes) : 999;
    note_alloc(TP_GPU_DEVICE, rc, dptr, bytes, __builtin_return_address(0),
               __builtin_frame_address(0));
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width,
                                                 size_t height, unsigned elem)
{
    CUresult (*f)(CUdeviceptr *, size_t *, size_t, size_t, unsigned) = real_of(&s_pitch);
    CUresult rc = f ? f(dptr, pitch, width, height, elem) : 999;
    note_alloc(TP_GPU_DEVICE, rc, dptr, rc == CUDA_SUCCESS && pitch ? *pitch * height : 0,
               __builtin_return_address(0), __builtin_frame_address(0));
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned flags)
{
    CUresult (*f)(CUdeviceptr *, size_t, unsigned) = real_of(&s_managed);
    CUresult rc = f ? f(dptr, bytes, flags) : 999;
    note_alloc(TP_GPU_MANAGED, rc, dptr, bytes, __builtin_return_address(0),
               __builtin_frame_address(0));
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream stream)
{
    CUresult (*f)(CUdeviceptr *, size_t, CUstream) = real_of(&s_async);
    CUresult rc = f ? f(dptr, bytes, stream) : 999;
    note_alloc(TP_GPU_ASYNC, rc, dptr, bytes, __builtin_return_address(0),
               __builtin_frame_address(0));
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemFree_v2(CUdeviceptr p)
{
    CUresult (*f)(CUdeviceptr) = real_of(&s_free);
    CUresult rc = f ? f(p) : 999;
    if (rc == CUDA_SUCCESS && p && program_call())
        tp_gpu_free(p);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemFreeAsync(CUdeviceptr p, CUstream stream)
{
    CUresult (*f)(CUdeviceptr, CUstream) = real_of(&s_free_async);
    CUresult rc = f ? f(p, stream) : 999;
    if (rc == CUDA_SUCCESS && p && program_call())
        tp_gpu_free(p);
    return rc;
}

/* ---- copies and memsets ---- */

static struct slot s_htod, s_dtoh, s_dtod, s_htod_async, s_dtoh_async, s_dtod_async, s_copy,
    s_copy_async, s_set8, s_set32, s_set8_async, s_set32_async;

static void note_copy(enum tp_gpu_dir dir, CUresult rc, size_t n, uint64_t t0, int async)
{
    if (rc == CUDA_SUCCESS && t0)
        tp_gpu_copy(dir, n, tp_now_ns() - t0, async);
}

/* The start of a copy the program makes, 0 for one that is not recorded. */
static uint64_t copy_start(void)
{
    return program_call() ? tp_now_ns() : 0;
}

TP_EXPORT TP_NOINSTR CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
    CUresult (*f)(CUdeviceptr, const void *, size_t) = real_of(&s_htod);
    uint64_t t0 = copy_start();
    CUresult rc = f ? f(dst, src, n) : 999;
    note_copy(TP_GPU_HTOD, rc, n, t0, 0);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    CUresult (*f)(void *, CUdeviceptr, size_t) = real_of(&s_dtoh);
    uint64_t t0 = copy_start();
    CUresult rc = f ? f(dst, src, n) : 999;
    note_copy(TP_GPU_DTOH, rc, n, t0, 0);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    CUresult (*f)(CUdeviceptr, CUdeviceptr, size_t) = real_of(&s_dtod);
    uint64_t t0 = copy_start();
    CUresult rc = f ? f(dst, src, n) : 999;
    note_copy(TP_GPU_DTOD, rc, n, t0, 0);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n,
                                                   CUstream s)
{
    CUresult (*f)(CUdeviceptr, const void *, size_t, CUstream) = real_of(&s_htod_async);
    uint64_t t0 = copy_start();
    CUresult rc = f ? f(dst, src, n, s) : 999;
    note_copy(TP_GPU_HTOD, rc, n, t0, 1);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    CUresult (*f)(void *, CUdeviceptr, size_t, CUstream) = real_of(&s_dtoh_async);
    uint64_t t0 = copy_start();
    CUresult rc = f ? f(dst, src, n, s) : 999;
    note_copy(TP_GPU_DTOH, rc, n, t0, 1);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n,
                                                   CUstream s)
{
    CUresult (*f)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = real_of(&s_dtod_async);
    uint64_t t0 = copy_start();
    CUresult rc = f ? f(dst, src, n, s) : 999;
    note_copy(TP_GPU_DTOD, rc, n, t0, 1);
    return rc;
}

/* cuMemcpy's addresses are unified: the device memory table says which side each is on. */
static enum tp_gpu_dir direction(CUdeviceptr dst, CUdeviceptr src)
{
    int d = tp_gpu_is_device(dst), s = tp_gpu_is_device(src);
    return d && s ? TP_GPU_DTOD : d ? TP_GPU_HTOD : s ? TP_GPU_DTOH : TP_GPU_HTOH;
}

TP_EXPORT TP_NOINSTR CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    CUresult (*f)(CUdeviceptr, CUdeviceptr, size_t) = real_of(&s_copy);
    uint64_t t0 = copy_start();
    CUresult rc = f ? f(dst, src, n) : 999;
    if (rc == CUDA_SUCCESS && t0)
        note_copy(direction(dst, src), rc, n, t0, 0);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    CUresult (*f)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = real_of(&s_copy_async);
    uint64_t t0 = copy_start();
    CUresult rc = f ? f(dst, src, n, s) : 999;
    if (rc == CUDA_SUCCESS && t0)
        note_copy(direction(dst, src), rc, n, t0, 1);
    return rc;
}

static void note_set(CUresult rc, uint64_t bytes, int async)
{
    if (rc == CUDA_SUCCESS && program_call())
        tp_gpu_memset(bytes, async);
}

TP_EXPORT TP_NOINSTR CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n)
{
    CUresult (*f)(CUdeviceptr, unsigned char, size_t) = real_of(&s_set8);
    CUresult rc = f ? f(p, v, n) : 999;
    note_set(rc, n, 0);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned v, size_t n)
{
    CUresult (*f)(CUdeviceptr, unsigned, size_t) = real_of(&s_set32);
    CUresult rc = f ? f(p, v, n) : 999;
    note_set(rc, 4 * (uint64_t)n, 0);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream s)
{
    CUresult (*f)(CUdeviceptr, unsigned char, size_t, CUstream) = real_of(&s_set8_async);
    CUresult rc = f ? f(p, v, n, s) : 999;
    note_set(rc, n, 1);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuMemsetD32Async(CUdeviceptr p, unsigned v, size_t n, CUstream s)
{
    CUresult (*f)(CUdeviceptr, unsigned, size_t, CUstream) = real_of(&s_set32_async);
    CUresult rc = f ? f(p, v, n, s) : 999;
    note_set(rc, 4 * (uint64_t)n, 1);
    return rc;
}

/* ---- kernels ---- */

static struct slot s_getfn, s_launch;

TP_EXPORT TP_NOINSTR CUresult cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name)
{
    CUresult (*f)(CUfunction *, CUmodule, const char *) = real_of(&s_getfn);
    CUresult rc = f ? f(fn, mod, name) : 999;
    if (rc == CUDA_SUCCESS && fn && program_call())
        tp_gpu_function(*fn, name);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
                                             unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                             CUstream s, void **params, void **extra)
{
    CUresult (*f)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                  CUstream, void **, void **) = real_of(&s_launch);
    CUresult rc = f ? f(fn, gx, gy, gz, bx, by, bz, shared, s, params, extra) : 999;
    if (rc == CUDA_SUCCESS && program_call()) {
        unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
        tp_gpu_launch(fn, grid, block, shared);
    }
    return rc;
}

/* ---- synchronise: the host waits for the device ---- */

static struct slot s_ctx_sync, s_stream_sync, s_event_sync;

/* Around a synchronise call: its time is the host's wait for the device, and the op around it
 * (if any) is waiting then, not working (track/ops/wait.c). */
struct wait {
    uint64_t t0, w0;
    int op;
};

static struct wait sync_begin(void)
{
    struct wait w = {0, 0, -1};
    if (!program_call())
        return w;
    w.op = tp_ops_current();
    w.w0 = tp_wait_enter();
    w.t0 = tp_now_ns();
    return w;
}

static void sync_end(struct wait w, enum tp_gpu_wait kind)
{
    if (!w.t0)
        return;
    uint64_t ns = tp_now_ns() - w.t0;
    tp_wait_leave(w.w0, TP_WAIT_DEVICE);
    tp_gpu_sync(kind, ns, w.op);
}

TP_EXPORT TP_NOINSTR CUresult cuCtxSynchronize(void)
{
    CUresult (*f)(void) = real_of(&s_ctx_sync);
    struct wait w = sync_begin();
    CUresult rc = f ? f() : 999;
    sync_end(w, TP_GPU_SYNC_CTX);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuStreamSynchronize(CUstream s)
{
    CUresult (*f)(CUstream) = real_of(&s_stream_sync);
    struct wait w = sync_begin();
    CUresult rc = f ? f(s) : 999;
    sync_end(w, TP_GPU_SYNC_STREAM);
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuEventSynchronize(CUevent e)
{
    CUresult (*f)(CUevent) = real_of(&s_event_sync);
    struct wait w = sync_begin();
    CUresult rc = f ? f(e) : 999;
    sync_end(w, TP_GPU_SYNC_EVENT);
    return rc;
}

/* ---- the current device ---- */

static struct slot s_ctx_device;

/* The device of the calling thread's context (cuCtxGetDevice, the driver's own), 0 when it
 * cannot be told. */
static int current_device(void)
{
    CUresult (*f)(CUdevice *) = real_of(&s_ctx_device);
    CUdevice d = 0;
    return f && f(&d) == CUDA_SUCCESS && d >= 0 ? d : 0;
}

/* ---- cuGetProcAddress: the way the runtime gets every driver function ---- */

static struct slot s_proc, s_proc2;

/* The driver gave pfn for name at the program's CUDA version: the program gets the wrapper
 * instead, when there is one of that ABI. The wrappers have the ABI of CUDA 11 and later (a
 * version before it gets the older functions of some names, which are left alone); from CUDA
 * 12, "cuGetProcAddress" is cuGetProcAddress_v2's. */
static void give_wrapper(const char *name, void **pfn, int version)
{
    struct slot *s = name && pfn && *pfn && version >= 11000 ? slot_by_base(name) : NULL;
    if (s == &s_proc && version >= 12000)
        s = &s_proc2;
    /* a driver whose own references bind to the global definitions (not -Bsymbolic) hands back
     * the wrapper itself: kept as the driver's, it would call itself */
    if (!s || s == &s_ctx_device || *pfn == s->wrapper)
        return;
    void *none = NULL, *kept;
    if (!atomic_compare_exchange_strong(&s->real, &none, *pfn))
        kept = none;
    else
        kept = *pfn;
    if (kept == *pfn && s->wrapper)
        *pfn = s->wrapper;
}

TP_EXPORT TP_NOINSTR CUresult cuGetProcAddress(const char *name, void **pfn, int version,
                                               cuuint64_t flags)
{
    CUresult (*f)(const char *, void **, int, cuuint64_t) = real_of(&s_proc);
    CUresult rc = f ? f(name, pfn, version, flags) : 999;
    if (rc == CUDA_SUCCESS) {
        tp_gpu_seen();
        give_wrapper(name, pfn, version);
    }
    return rc;
}

TP_EXPORT TP_NOINSTR CUresult cuGetProcAddress_v2(const char *name, void **pfn, int version,
                                                  cuuint64_t flags, void *status)
{
    CUresult (*f)(const char *, void **, int, cuuint64_t, void *) = real_of(&s_proc2);
    CUresult rc = f ? f(name, pfn, version, flags, status) : 999;
    if (rc == CUDA_SUCCESS) {
        tp_gpu_seen();
        give_wrapper(name, pfn, version);
    }
    return rc;
}

#define SLOT(v, base, export, fn) static struct slot v = {base, export, NULL, (void *)fn, {export}}
SLOT(s_alloc, "cuMemAlloc", "cuMemAlloc_v2", cuMemAlloc_v2);
SLOT(s_pitch, "cuMemAllocPitch", "cuMemAllocPitch_v2", cuMemAllocPitch_v2);
SLOT(s_managed, "cuMemAllocManaged", "cuMemAllocManaged", cuMemAllocManaged);
SLOT(s_async, "cuMemAllocAsync", "cuMemAllocAsync", cuMemAllocAsync);
SLOT(s_free, "cuMemFree", "cuMemFree_v2", cuMemFree_v2);
SLOT(s_free_async, "cuMemFreeAsync", "cuMemFreeAsync", cuMemFreeAsync);
SLOT(s_htod, "cuMemcpyHtoD", "cuMemcpyHtoD_v2", cuMemcpyHtoD_v2);
SLOT(s_dtoh, "cuMemcpyDtoH", "cuMemcpyDtoH_v2", cuMemcpyDtoH_v2);
SLOT(s_dtod, "cuMemcpyDtoD", "cuMemcpyDtoD_v2", cuMemcpyDtoD_v2);
SLOT(s_htod_async, "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2", cuMemcpyHtoDAsync_v2);
SLOT(s_dtoh_async, "cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2", cuMemcpyDtoHAsync_v2);
SLOT(s_dtod_async, "cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2", cuMemcpyDtoDAsync_v2);
SLOT(s_copy, "cuMemcpy", "cuMemcpy", cuMemcpy);
SLOT(s_copy_async, "cuMemcpyAsync", "cuMemcpyAsync", cuMemcpyAsync);
SLOT(s_set8, "cuMemsetD8", "cuMemsetD8_v2", cuMemsetD8_v2);
SLOT(s_set32, "cuMemsetD32", "cuMemsetD32_v2", cuMemsetD32_v2);
SLOT(s_set8_async, "cuMemsetD8Async", "cuMemsetD8Async", cuMemsetD8Async);
SLOT(s_set32_async, "cuMemsetD32Async", "cuMemsetD32Async", cuMemsetD32Async);
SLOT(s_getfn, "cuModuleGetFunction", "cuModuleGetFunction", cuModuleGetFunction);
SLOT(s_launch, "cuLaunchKernel", "cuLaunchKernel", cuLaunchKernel);
SLOT(s_ctx_sync, "cuCtxSynchronize", "cuCtxSynchronize", cuCtxSynchronize);
SLOT(s_stream_sync, "cuStreamSynchronize", "cuStreamSynchronize", cuStreamSynchronize);
SLOT(s_event_sync, "cuEventSynchronize", "cuEventSynchronize", cuEventSynchronize);
SLOT(s_ctx_device, "cuCtxGetDevice", "cuCtxGetDevice", NULL);
SLOT(s_proc, "cuGetProcAddress", "cuGetProcAddress", cuGetProcAddress);
SLOT(s_proc2, "cuGetProcAddress_v2", "cuGetProcAddress_v2", cuGetProcAddress_v2);

static struct slot *const slots[] = {
    &s_alloc, &s_pitch,      &s_managed,  &s_async,       &s_free,       &s_free_async,
    &s_htod,  &s_dtoh,       &s_dtod,     &s_htod_async,  &s_dtoh_async, &s_dtod_async,
    &s_copy,  &s_copy_async, &s_set8,     &s_set32,       &s_set8_async, &s_set32_async,
    &s_getfn, &s_launch,     &s_ctx_sync, &s_stream_sync, &s_event_sync, &s_ctx_device,
    &s_proc,  &s_proc2};

static struct slot *slot_by_base(const char *name)
{
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (!strcmp(slots[i]->base, name))
            return slots[i];
    return NULL;
}

static struct slot *slot_by_export(const char *name)
{
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (slots[i]->wrapper && !strcmp(slots[i]->export, name))
            return slots[i];
    return NULL;
}

/* ---- dlsym: the trampoline ---- */

#if defined(__x86_64__)
typedef void *(*dlsym_fn)(void *, const char *);
/* The real dlsym, found before the first call passes through (tp_cuda_dlsym_name). */
__attribute__((visibility("hidden"))) dlsym_fn tp_real_dlsym;

/* 1 when dlsym's name is one this file answers: a CUDA name ("cu..."), which libtprof.so may
 * define (the driver's, cuBLAS's). Finds the real dlsym first. */
__attribute__((visibility("hidden"), used)) int tp_cuda_dlsym_name(const char *name)
{
    if (!tp_real_dlsym) {
        void *f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!f)
            f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        tp_real_dlsym = (dlsym_fn)f;
    }
    return name && name[0] == 'c' && name[1] == 'u';
}

/* dlsym of a CUDA name. In the global scope a name libtprof.so defines finds the wrapper itself
 * (libtprof.so comes first): the wrapper when the library it wraps (the driver, cuBLAS) is
 * loaded, and NULL, as without tprof, when it is not, so that a program that looks for CUDA to
 * tell whether it has it is told the truth. On the handle of libcuda.so.1 a wrapped driver
 * function finds the driver's, which is kept and the wrapper returned. */
__attribute__((visibility("hidden"), used)) void *tp_cuda_dlsym(void *handle, const char *name)
{
    void *f = tp_real_dlsym ? tp_real_dlsym(handle, name) : NULL;
    /* tprof's own lookup of the driver's function (preload/real.c) gets the driver's: the
     * trampoline jumped here, so the return address is dlsym's caller's */
    if (tp_addr_is_ours((uintptr_t)__builtin_return_address(0)))
        return f;
    if (f && tp_addr_is_ours((uintptr_t)f))
        return tp_real(name) ? f : NULL;
    struct slot *s = f ? slot_by_export(name) : NULL;
    if (!s)
        return f;
    void *none = NULL;
    if (atomic_compare_exchange_strong(&s->real, &none, f) || none == f)
        return s->wrapper;
    return f;
}

/* The trampoline: the name checked with the arguments kept, then a jump (not a call) to the real
 * dlsym or to tp_cuda_dlsym, which return to dlsym's caller. */
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "    endbr64\n" /* a target of indirect calls, where indirect branch tracking is on */
        "    pushq %rdi\n"
        "    pushq %rsi\n"
        "    subq $8, %rsp\n"
        "    movq %rsi, %rdi\n"
        "    call tp_cuda_dlsym_name\n"
        "    addq $8, %rsp\n"
        "    popq %rsi\n"
        "    popq %rdi\n"
        "    testl %eax, %eax\n"
        "    jnz tp_cuda_dlsym\n"
        "    movq tp_real_dlsym(%rip), %rax\n"
        "    testq %rax, %rax\n"
        "    jz 1f\n"
        "    jmp *%rax\n"
        "1:  xorl %eax, %eax\n"
        "    ret\n"
        ".size dlsym, .-dlsym\n");
#endif
