/* Measuring the machine: peak FLOP/s and memory bandwidth for the roofline.
 *
 * FLOP/s comes from the system BLAS (a large sgemm), loaded with dlopen(RTLD_LOCAL) and called
 * through dlsym(handle) so that, inside a profiled process, the call never reaches tprof's own
 * wrapper and never counts as the program's op. Bandwidth is a STREAM triad a = b + s*c over
 * arrays much larger than the last-level cache, one slice per core; it counts the 24 bytes a
 * triad element reads and writes (not the write-allocate read), as STREAM does. Arrays come
 * from mmap so that the measurement never shows in a heap profile. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "peaks.h"

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
typedef void (*set_threads_fn)(int);
typedef int (*get_threads_fn)(void);

static void *map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

double tp_calib_gflops(double seconds, int n, int threads, char *blas, size_t blas_len)
{
    static const char *libs[] = {"libblas.so.3", "libopenblas.so.0", "libcblas.so.3"};
    void *h = NULL;
    sgemm_fn f = NULL;
    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !f; i++) {
        h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            f = (sgemm_fn)dlsym(h, "cblas_sgemm");
        if (h && !f)
            dlclose(h);
    }
    if (!f)
        return 0;
    if (blas && blas_len) {
        Dl_info info;
        if (dladdr((void *)f, &info) && info.dli_fname)
            snprintf(blas, blas_len, "%s", info.dli_fname);
    }
    set_threads_fn set = (set_threads_fn)dlsym(h, "openblas_set_num_threads");
    get_threads_fn get = (get_threads_fn)dlsym(h, "openblas_get_num_threads");
    int before = get ? get() : 0;
    if (set && threads > 0)
        set(threads);

    size_t bytes = sizeof(float) * (size_t)n * (size_t)n;
    float *a = map(bytes), *b = map(bytes), *c = map(bytes);
    double best = 0;
    if (a && b && c) {
        for (size_t i = 0; i < (size_t)n * (size_t)n; i++) {
            a[i] = (float)(i % 13) / 13;
            b[i] = (float)(i % 7) / 7;
        }
        enum { ROW = 101, NOTRANS = 111 };
        f(ROW, NOTRANS, NOTRANS, n, n, n, 1, a, n, b, n, 0, c, n); /* warm up, start threads */
        uint64_t start = tp_now_ns();
        do {
            uint64_t t0 = tp_now_ns();
            f(ROW, NOTRANS, NOTRANS, n, n, n, 1, a, n, b, n, 0, c, n);
            double dt = (double)(tp_now_ns() - t0);
            double rate = 2.0 * n * (double)n * n / dt; /* FLOP/ns = GFLOP/s */
            if (rate > best)
                best = rate;
        } while ((double)(tp_now_ns() - start) < seconds * 1e9);
    }
    if (a)
        munmap(a, bytes);
    if (b)
        munmap(b, bytes);
    if (c)
        munmap(c, bytes);
    if (set && before > 0)
        set(before);
    /* The handle is kept: unloading a BLAS with live worker threads is not safe. */
    return best;
}

struct triad {
    double *a, *b, *c;
    size_t lo, hi;
    pthread_barrier_t *start;
};

static void *triad_slice(void *arg)
{
    struct triad *t = arg;
    pthread_barrier_wait(t->start);
    for (size_t i = t->lo; i < t->hi; i++)
        t->a[i] = t->b[i] + 3.0 * t->c[i];
    return NULL;
}

double tp_calib_gbps(double seconds, size_t bytes)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = ncpu > 0 && ncpu < 256 ? (int)ncpu : 1;
    size_t n = bytes / sizeof(double);
    double *a = map(bytes), *b = map(bytes), *c = map(bytes);
    double best = 0;
    if (a && b && c) {
        for (size_t i = 0; i < n; i++) {
            a[i] = 0;
            b[i] = 1;
            c[i] = 2;
        }
        uint64_t start = tp_now_ns();
        int passes = 0;
        do {
            pthread_t th[256];
            struct triad t[256];
            pthread_barrier_t bar;
            pthread_barrier_init(&bar, NULL, (unsigned)nt + 1);
            for (int i = 0; i < nt; i++) {
                t[i] = (struct triad){a, b, c, n * (size_t)i / (size_t)nt,
                                      n * (size_t)(i + 1) / (size_t)nt, &bar};
                pthread_create(&th[i], NULL, triad_slice, &t[i]);
            }
            uint64_t t0 = tp_now_ns();
            pthread_barrier_wait(&bar);
            for (int i = 0; i < nt; i++)
                pthread_join(th[i], NULL);
            double dt = (double)(tp_now_ns() - t0);
            pthread_barrier_destroy(&bar);
            double rate = 3.0 * (double)bytes / dt; /* bytes/ns = GB/s */
            if (rate > best)
                best = rate;
            passes++;
        } while (passes < 2 || (double)(tp_now_ns() - start) < seconds * 1e9);
    }
    if (a)
        munmap(a, bytes);
    if (b)
        munmap(b, bytes);
    if (c)
        munmap(c, bytes);
    return best;
}

/* A synthetic peak for the quick calibration at exit: independent fused multiply-adds on vector
 * registers, all cores. Unlike calling the BLAS, this is safe inside any process at any moment
 * (a program's BLAS may already have shut its thread pool down when our destructor runs). */
typedef float v16f __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

/* Twelve independent accumulators in named variables (an array would go through memory): enough
 * to cover the latency of two FMA pipes. Returns a value so the work cannot be optimised away. */
#define FMA_KERNEL(V, W)                                                                       \
    V m, k;                                                                                    \
    for (int i = 0; i < W; i++) {                                                              \
        m[i] = 0.999999f;                                                                      \
        k[i] = 1e-7f;                                                                          \
    }                                                                                          \
    V a0 = m, a1 = m * 2, a2 = m * 3, a3 = m * 4, a4 = m * 5, a5 = m * 6, a6 = m * 7,          \
      a7 = m * 8, a8 = m * 9, a9 = m * 10, a10 = m * 11, a11 = m * 12;                         \
    for (uint64_t i = 0; i < iters; i++) {                                                     \
        a0 = a0 * m + k; a1 = a1 * m + k; a2 = a2 * m + k; a3 = a3 * m + k;                    \
        a4 = a4 * m + k; a5 = a5 * m + k; a6 = a6 * m + k; a7 = a7 * m + k;                    \
        a8 = a8 * m + k; a9 = a9 * m + k; a10 = a10 * m + k; a11 = a11 * m + k;                \
    }                                                                                          \
    V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;                         \
    double r = 0;                                                                              \
    for (int i = 0; i < W; i++)                                                                \
        r += s[i];                                                                             \
    return r;

__attribute__((target("avx512f"), noinline)) static double fma_512(uint64_t iters)
{
    FMA_KERNEL(v16f, 16)
}

__attribute__((target("avx2,fma"), noinline)) static double fma_256(uint64_t iters)
{
    FMA_KERNEL(v8f, 8)
}

__attribute__((noinline)) static double fma_128(uint64_t iters)
{
    FMA_KERNEL(v4f, 4)
}

struct fma_job {
    double seconds, gflops, sink;
    int width; /* floats per vector: 16, 8 or 4 */
};

static void *fma_thread(void *arg)
{
    struct fma_job *j = arg;
    uint64_t iters = 1 << 16, flops_per_iter = 12 * (uint64_t)j->width * 2;
    uint64_t start = tp_now_ns();
    double best = 0;
    while ((double)(tp_now_ns() - start) < j->seconds * 1e9) {
        uint64_t t0 = tp_now_ns();
        j->sink += j->width == 16 ? fma_512(iters) : j->width == 8 ? fma_256(iters) : fma_128(iters);
        double rate = (double)(iters * flops_per_iter) / (double)(tp_now_ns() - t0);
        if (rate > best)
            best = rate;
    }
    j->gflops = best;
    return NULL;
}

double tp_calib_fma(double seconds)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = ncpu > 0 && ncpu < 256 ? (int)ncpu : 1;
    __builtin_cpu_init();
    /* AVX-512 is often no faster than AVX2 (one 512-bit FMA pipe): take the wider only if the
     * CPU has it, and let the measurement decide nothing else. */
    int width = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 8 : 4;
    if (__builtin_cpu_supports("avx512f") && width == 8) {
        struct fma_job probe8 = {0.02, 0, 0, 8}, probe16 = {0.02, 0, 0, 16};
        fma_thread(&probe8);
        fma_thread(&probe16);
        if (probe16.gflops > probe8.gflops * 1.1)
            width = 16;
    }
    pthread_t th[256];
    struct fma_job jobs[256];
    double total = 0;
    for (int i = 0; i < nt; i++) {
        jobs[i] = (struct fma_job){seconds, 0, 0, width};
        if (pthread_create(&th[i], NULL, fma_thread, &jobs[i]) != 0)
            jobs[i].seconds = -1;
    }
    for (int i = 0; i < nt; i++)
        if (jobs[i].seconds >= 0) {
            pthread_join(th[i], NULL);
            total += jobs[i].gflops;
        }
    return total;
}
