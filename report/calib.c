/* Measuring the machine inside any process, the profiled one included: the CPUs and caches, a
 * synthetic FMA peak, and memory bandwidth as a STREAM triad over arrays much larger than the
 * last-level cache, one slice per thread. Every buffer comes from mmap, so that a measurement
 * never shows in a heap profile. The sgemm peak through the system BLAS is the CLI's
 * (cli/calib_blas.c). */
#include "common/pages.h"
#include "report/calib.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"

/* No MADV_HUGEPAGE: pages as the system gives a program's own arrays by default. (Asking for
 * huge pages measured up to 2x more here, but only when the kernel found them, after compaction
 * stalls of up to a second.) */
static void *map(size_t bytes)
{
    return tp_pages_map(bytes, 0);
}

int tp_calib_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < 4096 ? (int)n : 1;
}

/* A small sysfs number, read without stdio (no allocation: this runs in the profiled process). */
static long sysfs_long(const char *path)
{
    char buf[32];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0)
        return -1;
    buf[r] = 0;
    char *end;
    long v = strtol(buf, &end, 10);
    return end == buf ? -1 : v;
}

int tp_calib_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return tp_calib_cpus();
    enum { MAXC = CPU_SETSIZE };
    static long key[MAXC]; /* package << 32 | core of each core seen; the caller is one thread */
    int n = 0;
    for (int c = 0; c < MAXC; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        char p[96];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
        long pkg = sysfs_long(p);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/core_id", c);
        long core = sysfs_long(p);
        if (pkg < 0 || core < 0)
            return tp_calib_cpus(); /* no topology: every CPU counts as a core */
        long k = pkg << 32 | (core & 0xffffffff);
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = key[i] == k;
        if (!seen)
            key[n++] = k;
    }
    return n > 0 ? n : tp_calib_cpus();
}

static uint64_t cpu_ns(clockid_t id)
{
    struct timespec ts;
    return clock_gettime(id, &ts) == 0 ? (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec
                                       : 0;
}

double tp_calib_wait_quiet(double max_seconds)
{
    uint64_t begin = tp_now_ns(), t0 = begin;
    uint64_t o0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_ns(CLOCK_THREAD_CPUTIME_ID);
    for (;;) {
        struct timespec nap = {0, 5000000};
        nanosleep(&nap, NULL);
        uint64_t t1 = tp_now_ns();
        uint64_t o1 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_ns(CLOCK_THREAD_CPUTIME_ID);
        /* The other threads together used less than a tenth of one CPU over the nap. */
        if ((o1 - o0) * 10 < t1 - t0 || (double)(t1 - begin) >= max_seconds * 1e9)
            return (double)(t1 - begin) / 1e9;
        t0 = t1;
        o0 = o1;
    }
}

size_t tp_calib_llc_bytes(void)
{
    size_t best = 0;
    for (int i = 0; i < 16; i++) {
        char path[128], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        if (fgets(buf, sizeof buf, f)) {
            unsigned long long v = 0;
            char unit = 0;
            if (sscanf(buf, "%llu%c", &v, &unit) >= 1) {
                if (unit == 'K')
                    v <<= 10;
                else if (unit == 'M')
                    v <<= 20;
                else if (unit == 'G')
                    v <<= 30;
                if (v > best)
                    best = (size_t)v;
            }
        }
        fclose(f);
    }
    return best;
}

/* ---- a team of threads timed together ---- */

/* Each pass starts every thread at a barrier and ends at another; its time runs from the first
 * thread's start to the last one's end, on the threads' own clocks (the coordinating thread may
 * wait for a CPU after the start barrier while the work is done). The best pass counts: other
 * load on the machine only ever adds time. */
struct member;
struct team {
    void (*setup)(struct member *); /* once per thread before the passes (may be NULL) */
    void (*work)(struct member *);  /* one pass of one thread */
    void *arg;
    int nt; /* threads that started, fixed before go */
    int go;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_barrier_t start, done;
    atomic_int stop;
};

struct member {
    struct team *team;
    int index;
    uint64_t t0, t1;
    double sink; /* results the compiler must not drop */
};

static void *member_main(void *arg)
{
    struct member *m = arg;
    struct team *t = m->team;
    pthread_mutex_lock(&t->mu);
    while (!t->go)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    if (t->setup)
        t->setup(m);
    for (;;) {
        pthread_barrier_wait(&t->start);
        if (atomic_load(&t->stop))
            return NULL;
        m->t0 = tp_now_ns();
        t->work(m);
        m->t1 = tp_now_ns();
        pthread_barrier_wait(&t->done);
    }
}

/* Run passes on up to `threads` threads for about `seconds` (and at least 3); the first pass
 * warms caches and TLBs and is not counted. Returns the best pass in ns (0 if none ran); *nt gets
 * the threads that ran, *passes the passes counted. */
static double team_run(struct team *t, int threads, double seconds, int *nt, int *passes)
{
    enum { MAXT = 256 };
    pthread_t th[MAXT];
    struct member m[MAXT];
    int want = threads < 1 ? 1 : threads > MAXT ? MAXT : threads, started = 0;
    double best = 0;
    *nt = *passes = 0;
    t->go = t->nt = 0;
    atomic_store(&t->stop, 0);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    for (int i = 0; i < want; i++) {
        m[i] = (struct member){t, i, 0, 0, 0};
        if (pthread_create(&th[i], NULL, member_main, &m[i]) != 0)
            break;
        started++;
    }
    if (started > 0) {
        /* Threads that started share the work if some could not. */
        t->nt = started;
        pthread_barrier_init(&t->start, NULL, (unsigned)started + 1);
        pthread_barrier_init(&t->done, NULL, (unsigned)started + 1);
        pthread_mutex_lock(&t->mu);
        t->go = 1;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
        uint64_t begin = tp_now_ns();
        int p = 0;
        do {
            pthread_barrier_wait(&t->start);
            pthread_barrier_wait(&t->done);
            uint64_t t0 = UINT64_MAX, t1 = 0;
            for (int i = 0; i < started; i++) {
                t0 = m[i].t0 < t0 ? m[i].t0 : t0;
                t1 = m[i].t1 > t1 ? m[i].t1 : t1;
            }
            double dt = (double)(t1 - t0);
            if (p > 0 && dt > 0 && (best == 0 || dt < best))
                best = dt;
            p++;
        } while (p < 4 || (double)(tp_now_ns() - begin) < seconds * 1e9);
        atomic_store(&t->stop, 1);
        pthread_barrier_wait(&t->start);
        for (int i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        pthread_barrier_destroy(&t->start);
        pthread_barrier_destroy(&t->done);
        *nt = started;
        *passes = p - 1;
    }
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    return best;
}

/* ---- STREAM triad ---- */

struct triad {
    double *a, *b, *c;
    size_t n;
};

static void triad_slice(struct member *m, size_t *lo, size_t *hi)
{
    struct triad *w = m->team->arg;
    *lo = w->n * (size_t)m->index / (size_t)m->team->nt;
    *hi = w->n * (size_t)(m->index + 1) / (size_t)m->team->nt;
}

/* First touch by the thread that streams the slice: its pages land on its NUMA node. */
static void triad_setup(struct member *m)
{
    struct triad *w = m->team->arg;
    size_t lo, hi;
    triad_slice(m, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        w->a[i] = 0;
        w->b[i] = 1;
        w->c[i] = 2;
    }
}

static void triad_work(struct member *m)
{
    struct triad *w = m->team->arg;
    double *restrict a = w->a;
    const double *restrict b = w->b, *restrict c = w->c;
    size_t lo, hi;
    triad_slice(m, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        a[i] = b[i] + 3.0 * c[i];
}

double tp_calib_triad(double seconds, size_t bytes, int threads, int *passes)
{
    size_t n = bytes / sizeof(double);
    bytes = n * sizeof(double);
    int dummy, nt;
    if (!passes)
        passes = &dummy;
    *passes = 0;
    struct triad w = {map(bytes), map(bytes), map(bytes), n};
    double best = 0;
    if (w.a && w.b && w.c && n >= (size_t)(threads < 1 ? 1 : threads)) {
        struct team t = {.setup = triad_setup, .work = triad_work, .arg = &w};
        double ns = team_run(&t, threads, seconds, &nt, passes);
        if (ns > 0)
            best = 3.0 * (double)bytes / ns; /* bytes per ns = GB/s */
    }
    if (w.a)
        munmap(w.a, bytes);
    if (w.b)
        munmap(w.b, bytes);
    if (w.c)
        munmap(w.c, bytes);
    return best;
}

/* ---- synthetic FMA peak ---- */

typedef float v16f __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

/* Twelve independent accumulators in named variables (an array would go through memory): enough
 * to cover the latency of two FMA pipes. Returns a value so the work cannot be optimised away. */
#define FMA_KERNEL(V, W)                                                                           \
    V m, k;                                                                                        \
    for (int i = 0; i < W; i++) {                                                                  \
        m[i] = 0.999999f;                                                                          \
        k[i] = 1e-7f;                                                                              \
    }                                                                                              \
    V a0 = m, a1 = m * 2, a2 = m * 3, a3 = m * 4, a4 = m * 5, a5 = m * 6, a6 = m * 7, a7 = m * 8,  \
      a8 = m * 9, a9 = m * 10, a10 = m * 11, a11 = m * 12;                                         \
    for (uint64_t i = 0; i < iters; i++) {                                                         \
        a0 = a0 * m + k;                                                                           \
        a1 = a1 * m + k;                                                                           \
        a2 = a2 * m + k;                                                                           \
        a3 = a3 * m + k;                                                                           \
        a4 = a4 * m + k;                                                                           \
        a5 = a5 * m + k;                                                                           \
        a6 = a6 * m + k;                                                                           \
        a7 = a7 * m + k;                                                                           \
        a8 = a8 * m + k;                                                                           \
        a9 = a9 * m + k;                                                                           \
        a10 = a10 * m + k;                                                                         \
        a11 = a11 * m + k;                                                                         \
    }                                                                                              \
    V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;                             \
    double r = 0;                                                                                  \
    for (int i = 0; i < W; i++)                                                                    \
        r += s[i];                                                                                 \
    return r;

__attribute__((target("avx512f"), noinline)) static double fma_512(uint64_t iters)
{
    FMA_KERNEL(v16f, 16)
}

__attribute__((target("avx2,fma"), noinline)) static double fma_256(uint64_t iters)
{
    FMA_KERNEL(v8f, 8)
}

/* SSE: a multiply and an add, counted as 2 FLOPs like an FMA. */
__attribute__((noinline)) static double fma_128(uint64_t iters)
{
    FMA_KERNEL(v4f, 4)
}

enum { FMA_ITERS = 1 << 16 }; /* one pass: about 0.1 ms at 2 x 512-bit FMAs per cycle */

static double fma_run(int width, uint64_t iters)
{
    return width == 16 ? fma_512(iters) : width == 8 ? fma_256(iters) : fma_128(iters);
}

static volatile double fma_sink; /* keeps the single-thread passes' work */

/* One thread, best of short passes for about `seconds` (and at least 16): a pass is about 0.1 ms,
 * far shorter than a scheduler's time slice, so even on a CPU shared with a spinning thread some
 * passes run undisturbed, and the best of them is the core's own rate. */
static double fma_1t(int width, double seconds)
{
    double best = 0;
    uint64_t begin = tp_now_ns();
    for (int i = 0; i < 16 || (double)(tp_now_ns() - begin) < seconds * 1e9; i++) {
        uint64_t t0 = tp_now_ns();
        fma_sink = fma_run(width, FMA_ITERS);
        double dt = (double)(tp_now_ns() - t0);
        if (dt > 0 && (double)FMA_ITERS * 24 * width / dt > best)
            best = (double)FMA_ITERS * 24 * width / dt;
    }
    return best;
}

static int fma_width(void)
{
    __builtin_cpu_init();
    int width = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 8 : 4;
    /* AVX-512 is often no faster than AVX2 (one 512-bit pipe, or 256-bit halves): take the
     * wider registers only if they measure faster. */
    if (width == 8 && __builtin_cpu_supports("avx512f") && fma_1t(16, 0) > fma_1t(8, 0) * 1.1)
        width = 16;
    return width;
}

double tp_calib_fma_1t(double seconds)
{
    return fma_1t(fma_width(), seconds);
}
