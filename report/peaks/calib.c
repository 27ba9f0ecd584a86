/* Measuring the machine inside any process, the profiled one included: the CPUs and caches, a
 * synthetic FMA peak, and memory bandwidth as a STREAM triad over arrays much larger than the
 * last-level cache, one slice per thread. Every buffer comes from mmap, so that a measurement
 * never shows in a heap profile. The sgemm peak through the system BLAS is the CLI's
 * (cli/calib_blas.c). */
#include "common/pages.h"
#include "report/peaks/peaks.h"

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

/* ---- a team of threads timed together ---- */

/* A burst of rounds starts every thread at a barrier; within it, rounds start and end at a
 * spinning barrier, so that a thread keeps its CPU between rounds instead of sleeping and
 * waiting to be scheduled again (on a busy machine that wait made rounds whose threads never
 * ran at once). Each thread times its own part on its own clock. The coordinating thread is
 * member 0: no extra thread competes for a CPU with the team. */
struct member;
struct team {
    void (*setup)(struct member *); /* once per thread before the rounds (may be NULL) */
    void (*work)(struct member *);  /* one round of one thread */
    void *arg;
    int nt; /* threads that started (the coordinator included), fixed before go */
    int go;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_barrier_t burst;
    atomic_uint arrived, gen;
    atomic_int stop;
};

struct member {
    struct team *team;
    int index;
    int round; /* which eighth of the arrays */
    uint64_t t0, t1;
    double bytes;          /* what its last round moved */
    struct tp_tclock busy; /* its clocks summed over its bursts (not the naps between) */
};

static void spin_sync(struct team *t)
{
    unsigned g = atomic_load(&t->gen);
    if (atomic_fetch_add(&t->arrived, 1) + 1 == (unsigned)t->nt) {
        atomic_store(&t->arrived, 0);
        atomic_fetch_add(&t->gen, 1);
        return;
    }
    for (unsigned i = 0; atomic_load(&t->gen) == g; i++)
        if (i > 4096)
            sched_yield(); /* a team thread without a CPU: let it have this one */
        else
            __asm__ __volatile__("" ::: "memory");
}

enum { MAX_ROUNDS = 2048, SWEEP_ROUNDS = 8, NAP_NS = 10000000, MIN_TOGETHER = 8 };

static void one_round(struct member *m, int r)
{
    spin_sync(m->team);
    m->round = r;
    m->t0 = tp_now_ns();
    m->team->work(m);
    m->t1 = tp_now_ns();
    spin_sync(m->team);
}

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
        pthread_barrier_wait(&t->burst);
        if (atomic_load(&t->stop))
            return NULL;
        struct tp_tclock a, b;
        tp_calib_tclock(&a);
        for (int r = 0; r < SWEEP_ROUNDS; r++) {
            one_round(m, r);
            spin_sync(t); /* the coordinator has read the round's times */
        }
        tp_calib_tclock(&b);
        tp_calib_tclock_add(&m->busy, &a, &b);
    }
}

double tp_calib_round_rate(const uint64_t *t0, const uint64_t *t1, const double *bytes, int nt)
{
    uint64_t last_start = 0, first_end = UINT64_MAX;
    double rate = 0;
    for (int i = 0; i < nt; i++) {
        if (t1[i] <= t0[i])
            return 0;
        last_start = t0[i] > last_start ? t0[i] : last_start;
        first_end = t1[i] < first_end ? t1[i] : first_end;
        rate += bytes[i] / (double)(t1[i] - t0[i]);
    }
    double together = first_end > last_start ? (double)(first_end - last_start) : 0;
    for (int i = 0; i < nt; i++)
        if (together * 10 < (double)(t1[i] - t0[i]) * 9)
            return 0;
    return rate;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double tp_calib_top_median(double *v, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > 0)
            v[k++] = v[i];
    if (k == 0)
        return 0;
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    int top = k / 8 > 0 ? k / 8 : 1; /* the top eighth, at least one */
    return v[k - 1 - top / 2];
}

/* One round, all threads; its rate with every thread together (else 0) into rate[n], and the
 * sum of the threads' rates, together or not, into rate[MAX_ROUNDS + n]. */
static void team_round(struct team *t, struct member *m, int r, double *rate, int n)
{
    uint64_t t0[256], t1[256];
    double bytes[256], own = 0;
    one_round(&m[0], r);
    for (int i = 0; i < t->nt; i++) {
        t0[i] = m[i].t0;
        t1[i] = m[i].t1;
        bytes[i] = m[i].bytes;
        own += t1[i] > t0[i] ? bytes[i] / (double)(t1[i] - t0[i]) : 0;
    }
    spin_sync(t);
    rate[n] = tp_calib_round_rate(t0, t1, bytes, t->nt);
    rate[MAX_ROUNDS + n] = own;
}

/* Bursts of SWEEP_ROUNDS rounds back to back, NAP_NS apart, for about `seconds`, and on (up to
 * 6 x seconds) until MIN_TOGETHER rounds had every thread at work at once; the first burst
 * (the threads' first touch of their pages, cold TLBs) is not counted. Returns the rounds. */
static int team_rounds(struct team *t, struct member *m, double seconds, double *rate)
{
    uint64_t begin = 0;
    int n = 0, together = 0;
    for (int burst = 0;; burst++) {
        double el = burst > 0 ? (double)(tp_now_ns() - begin) / 1e9 : 0;
        if (burst > 3 && el >= seconds && (together >= MIN_TOGETHER || el >= 6 * seconds))
            break;
        pthread_barrier_wait(&t->burst);
        struct tp_tclock a, b;
        tp_calib_tclock(&a);
        for (int r = 0; r < SWEEP_ROUNDS; r++) {
            team_round(t, m, r, rate, n);
            if (burst > 0)
                together += rate[n++] > 0;
        }
        tp_calib_tclock(&b);
        tp_calib_tclock_add(&m[0].busy, &a, &b);
        if (n + SWEEP_ROUNDS > MAX_ROUNDS)
            break;
        if (burst == 0)
            begin = tp_now_ns();
        struct timespec nap = {0, NAP_NS};
        nanosleep(&nap, NULL);
    }
    return n;
}

/* Start threads 1..threads-1 (those that start share the work), run the rounds with this thread
 * as member 0, stop them; the worst of the threads' conditions into cond. Returns the rounds
 * counted. */
static int team_run(struct team *t, int threads, double seconds, double *rate,
                    struct tp_calib_cond *cond)
{
    enum { MAXT = 256 };
    pthread_t th[MAXT];
    struct member m[MAXT];
    int want = threads < 1 ? 1 : threads > MAXT ? MAXT : threads, nt = 1;
    t->go = 0;
    atomic_store(&t->stop, 0);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    for (int i = 0; i < want; i++) {
        m[i] = (struct member){.team = t, .index = i, .busy = {.has_runq = 1}};
    }
    for (int i = 1; i < want; i++) {
        if (pthread_create(&th[i], NULL, member_main, &m[i]) != 0)
            break;
        nt++;
    }
    t->nt = nt;
    pthread_barrier_init(&t->burst, NULL, (unsigned)nt);
    atomic_store(&t->arrived, 0);
    atomic_store(&t->gen, 0);
    pthread_mutex_lock(&t->mu);
    t->go = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    if (t->setup)
        t->setup(&m[0]);
    int n = team_rounds(t, m, seconds, rate);
    atomic_store(&t->stop, 1);
    pthread_barrier_wait(&t->burst);
    for (int i = 1; i < nt; i++)
        pthread_join(th[i], NULL);
    struct tp_tclock zero = {.has_runq = 1};
    for (int i = 0; i < nt; i++)
        tp_calib_cond_span(cond, &zero, &m[i].busy);
    cond->threads = nt;
    pthread_barrier_destroy(&t->burst);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    return n;
}

/* ---- STREAM triad ---- */

/* The arrays are cut into SWEEP_ROUNDS chunks and a round streams one chunk (each thread its
 * slice of it), so that a round lasts about a millisecond, shorter than a time slice, while a
 * chunk comes back only after the other chunks (over the last-level cache) went through. */
struct triad {
    double *a, *b, *c;
    size_t n;
};

static void triad_slice(struct member *m, int round, size_t *lo, size_t *hi)
{
    struct triad *w = m->team->arg;
    size_t c0 = w->n * (size_t)round / SWEEP_ROUNDS, c1 = w->n * (size_t)(round + 1) / SWEEP_ROUNDS;
    *lo = c0 + (c1 - c0) * (size_t)m->index / (size_t)m->team->nt;
    *hi = c0 + (c1 - c0) * (size_t)(m->index + 1) / (size_t)m->team->nt;
}

/* First touch by the thread that streams the slices: their pages land on its NUMA node. */
static void triad_setup(struct member *m)
{
    struct triad *w = m->team->arg;
    for (int r = 0; r < SWEEP_ROUNDS; r++) {
        size_t lo, hi;
        triad_slice(m, r, &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            w->a[i] = 0;
            w->b[i] = 1;
            w->c[i] = 2;
        }
    }
}

static void triad_work(struct member *m)
{
    struct triad *w = m->team->arg;
    double *restrict a = w->a;
    const double *restrict b = w->b, *restrict c = w->c;
    size_t lo, hi;
    triad_slice(m, m->round, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        a[i] = b[i] + 3.0 * c[i];
    m->bytes = 24.0 * (double)(hi - lo);
}

double tp_calib_triad(double seconds, size_t bytes, int threads, int *passes,
                      struct tp_calib_cond *cond)
{
    size_t n = bytes / sizeof(double);
    bytes = n * sizeof(double);
    int dummy;
    struct tp_calib_cond unused;
    if (!passes)
        passes = &dummy;
    if (!cond)
        cond = &unused;
    tp_calib_cond_init(cond);
    *passes = 0;
    struct triad w = {map(bytes), map(bytes), map(bytes), n};
    double *rate = map(2 * MAX_ROUNDS * sizeof(double)), best = 0;
    if (rate && w.a && w.b && w.c &&
        n >= (size_t)SWEEP_ROUNDS * (size_t)(threads < 1 ? 1 : threads)) {
        struct team t = {.setup = triad_setup, .work = triad_work, .arg = &w};
        *passes = team_run(&t, threads, seconds, rate, cond);
        int together = 0;
        for (int i = 0; i < *passes; i++)
            together += rate[i] > 0;
        /* Fewer than 8 rounds with every thread at work (every CPU busy with other processes): the
         * sum of the threads' own rates, each of which may have had the memory to itself, so
         * the figure errs high (like the FLOP/s figure, one core's rate times the cores): an
         * op's efficiency then errs low, never above 100% for that reason. */
        best = tp_calib_top_median(rate + (together >= MIN_TOGETHER ? 0 : MAX_ROUNDS), *passes);
    }
    if (rate)
        munmap(rate, 2 * MAX_ROUNDS * sizeof(double));
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

double tp_calib_fma_1t(double seconds, struct tp_calib_cond *cond)
{
    int width = fma_width();
    struct tp_tclock a, b;
    tp_calib_tclock(&a);
    double best = fma_1t(width, seconds);
    tp_calib_tclock(&b);
    if (cond) {
        tp_calib_cond_init(cond);
        tp_calib_cond_span(cond, &a, &b);
        cond->threads = 1;
    }
    return best;
}
