/* What a CUDA program does with its devices, recorded from the driver API calls
 * (preload/hook/hook_cuda.c): device memory by call site and device (peak, at exit), copies by
 * direction, memsets, kernel launches by function, and the host's time blocked in the driver's
 * synchronise calls. track/gpu/gpu.c keeps it; the report's "gpu" object is its collection. */
#ifndef TPROF_TRACK_GPU_H
#define TPROF_TRACK_GPU_H

#include <stddef.h>
#include <stdint.h>

struct tp_report;

/* Kinds of device memory, as the driver call that made it says. */
enum tp_gpu_mem { TP_GPU_DEVICE, TP_GPU_MANAGED, TP_GPU_ASYNC, TP_GPU_MEM_KINDS };
/* Directions of a copy; TP_GPU_ANY: cuMemcpy's unified addressing, told apart by the device
 * memory table (an address in it is the device's). */
enum tp_gpu_dir { TP_GPU_HTOD, TP_GPU_DTOH, TP_GPU_DTOD, TP_GPU_HTOH, TP_GPU_COPY_KINDS };
/* The synchronise calls, each a wait of the host for the device. */
enum tp_gpu_wait { TP_GPU_SYNC_CTX, TP_GPU_SYNC_STREAM, TP_GPU_SYNC_EVENT, TP_GPU_SYNC_KINDS };

#define TP_GPU_DEVICES 16

/* Device memory at ptr of bytes on device, made by the call at site (track/sites). */
void tp_gpu_alloc(int device, enum tp_gpu_mem kind, uint64_t ptr, uint64_t bytes, uint32_t site);
/* Freed: 1 when ptr was in the table, 0 when tprof never saw it made. */
int tp_gpu_free(uint64_t ptr);
/* 1 when ptr lies in device memory the table holds. */
int tp_gpu_is_device(uint64_t ptr);
void tp_gpu_copy(enum tp_gpu_dir dir, uint64_t bytes, uint64_t ns, int async);
void tp_gpu_memset(uint64_t bytes, int async);
/* A function the program got from a module by name, for the launches' names. */
void tp_gpu_function(const void *fn, const char *name);
void tp_gpu_launch(const void *fn, const unsigned grid[3], const unsigned block[3],
                   unsigned shared_bytes);
/* The host waited ns in a synchronise call, inside the op id (-1: none). */
void tp_gpu_sync(enum tp_gpu_wait kind, uint64_t ns, int op);
/* A driver call the program made (any the hooks see): the report says the program used CUDA. */
void tp_gpu_seen(void);

/* A cuBLAS matrix product the program asked for (preload/hook/hook_cublas.c): the function, its
 * transposes ('N', 'T', 'C'), m, n, k, batch (1 for one product), the element type ("f32" ...)
 * and the host's time in the call (the launch: the product runs on the device after it). */
struct tp_gpu_gemm_call {
    const char *function, *dtype;
    char transa, transb;
    int64_t m, n, k, batch;
};
void tp_gpu_gemm(const struct tp_gpu_gemm_call *g, uint64_t host_ns);

/* Into r->gpu, with the device memory's call sites' frames made by frames(site, ...). */
struct tp_frame;
void tp_gpu_collect(struct tp_report *r,
                    void (*frames)(uint32_t site, struct tp_frame **out, size_t *nout));
void tp_gpu_fork_child(void);

#endif
