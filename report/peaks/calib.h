/* Measuring the machine (report/peaks/calib.c): peak FLOP/s and memory bandwidth for the roofline;
 * the conditions of a measurement and the machine's CPUs (report/peaks/calib_cond.c). */
#ifndef TPROF_CALIB_H
#define TPROF_CALIB_H

#include <stddef.h>
#include <stdint.h>

/* The conditions a measurement ran under (report/peaks/calib_cond.c). A measurement is quiet when
 * every measuring thread was on a CPU at least TP_QUIET_ONCPU of its wall time, waited for one
 * (runnable, not running) at most TP_QUIET_RUNQ of it, and, where several threads measured one
 * rate, they ran at least TP_QUIET_SPEEDUP times as fast as one thread; else it is busy. A
 * figure that could not be measured (-1, 0 for speedup) does not count against it. */
#define TP_QUIET_ONCPU   0.90
#define TP_QUIET_RUNQ    0.10
#define TP_QUIET_SPEEDUP 1.25
struct tp_calib_cond {
    double oncpu;   /* the lowest share of its wall time a measuring thread had a CPU; -1 unknown */
    double runq;    /* the highest share a measuring thread waited for a CPU; -1 unknown */
    double speedup; /* all-threads rate / one-thread rate; 0 not measured */
    int threads;    /* threads of the all-threads rate */
};
/* A thread's clocks at one moment: monotonic, its CPU time, its run-queue delay. */
struct tp_tclock {
    uint64_t wall, cpu, runq;
    int has_runq; /* /proc/thread-self/schedstat could be read */
};
void tp_calib_cond_init(struct tp_calib_cond *c); /* nothing known yet */
void tp_calib_tclock(struct tp_tclock *t);        /* the calling thread's clocks now */
/* One measuring thread's span from a to b (its own clocks), or its figures directly. */
void tp_calib_cond_span(struct tp_calib_cond *c, const struct tp_tclock *a,
                        const struct tp_tclock *b);
void tp_calib_cond_thread(struct tp_calib_cond *c, double oncpu, double runq);
/* A thread's span from a to b added to sum (start it at {.has_runq = 1}): a thread measured in
 * bursts counts its spans together, so that one unlucky burst does not make it busy. */
void tp_calib_tclock_add(struct tp_tclock *sum, const struct tp_tclock *a,
                         const struct tp_tclock *b);
/* The worse of two measurements' conditions (the speedup of the one with more threads). */
void tp_calib_cond_merge(struct tp_calib_cond *into, const struct tp_calib_cond *c);
/* 1 quiet; 0 busy, with why (e.g. "the measuring threads had 52% of their CPUs"). */
int tp_calib_quiet(const struct tp_calib_cond *c, char *why, size_t n);
/* tp_calib_quiet, after the test suite's override (tprof_calib_oncpu, calib_cond.c). */
int tp_calib_judge(struct tp_calib_cond *c, char *why, size_t n);
/* The machine: CPU model (CPUID brand string, else /proc/cpuinfo), the CPUs this process may
 * use as a list ("0-3,8"; "" when unknown), the 1-minute load average (-1 unknown), the kernel
 * release. No allocation: the library calls them at exit. */
void tp_calib_cpu_model(char *out, size_t n);
void tp_calib_cpu_list(char *out, size_t n);
double tp_calib_loadavg(void);
void tp_calib_kernel(char *out, size_t n);

/* One sgemm measurement through a BLAS reached with dlopen + dlsym(handle). */
struct tp_blas_run {
    double gflops;             /* best of the timed calls */
    int threads;               /* what the library reports using; 0 when it cannot say */
    int calls;                 /* timed calls */
    int n;                     /* matrix size used: smaller than asked when a call would be slow */
    char path[512];            /* the library file, symlinks resolved */
    char config[256];          /* openblas_get_config(), or "" */
    char error[256];           /* why it failed, when it did */
    struct tp_calib_cond cond; /* of its threads over the timed calls */
};

/* Best GFLOP/s of an n x n x n sgemm repeated for about `seconds` (n shrunk, not below 256, when
 * a 256^3 probe says one call would take more than a third of that), with `threads` threads
 * (0: the library's default), in a child process so that the thread count is set before the
 * library initialises (OpenBLAS's openblas_set_num_threads when present, else
 * OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, GOTO_NUM_THREADS, BLIS_NUM_THREADS and
 * MKL_NUM_THREADS) and a crashing BLAS cannot take the caller down. lib: a file or soname to
 * load, or NULL for libblas.so.3, then libopenblas.so.0, then libcblas.so.3.
 * Returns 0, -1 when no BLAS with cblas_sgemm could be loaded, -2 when the measurement failed;
 * out->error says why. For the CLI: it forks. */
int tp_calib_sgemm(const char *lib, int n, int threads, double seconds, struct tp_blas_run *out);
/* (cli/calib_blas.c, in the CLI only.) */

/* Synthetic single-precision peak of one core: independent FMAs on the widest useful vector
 * registers, on one thread, best of passes of about 0.1 ms for about `seconds`; short passes
 * measure it even on a CPU shared with a busy thread. Needs no library, so it is safe in a
 * profiled process at exit (after the program's BLAS may have run its destructors). GFLOP/s.
 * cond (may be NULL): the thread's clocks over the passes. */
double tp_calib_fma_1t(double seconds, struct tp_calib_cond *cond);
/* STREAM triad a[i] = b[i] + s * c[i] over three mmap'd arrays of `bytes` each, on `threads`
 * threads, in rounds of about a millisecond (one eighth of the arrays, each thread its slice,
 * first touched by that thread), bursts of 8 rounds 10 ms apart for about `seconds` (at least 3
 * bursts; the first is not counted). Counts 24 bytes per element (2 reads, 1 write; not the
 * write-allocate read), as STREAM does. The figure is tp_calib_top_median of the rounds in
 * which every thread ran (tp_calib_round_rate), or, when fewer than 8 did, of the sums of the
 * threads' own rates (which err high). GB/s, 0 if the arrays cannot be mapped. passes (may be NULL): the rounds counted. cond (may be
 * NULL): each thread's clocks over its bursts of rounds (not the naps between them). */
double tp_calib_triad(double seconds, size_t bytes, int threads, int *passes,
                      struct tp_calib_cond *cond);

/* One round of a team of nt threads, thread i streaming bytes[i] from t0[i] to t1[i] (ns, its
 * own clock): the sum of the threads' rates (bytes per ns), when every thread spent at least 90%
 * of its time while all the others were at work too; else 0 (a thread that ran alone had the
 * memory to itself, and its rate would inflate the sum). */
double tp_calib_round_rate(const uint64_t *t0, const uint64_t *t1, const double *bytes, int nt);
/* The high figure of a set of round rates that a few freak rounds cannot make: the median of
 * the top eighth of the values above 0 (at least one value); 0 if none. Reorders v. */
double tp_calib_top_median(double *v, int n);

/* CPUs this process may run on (sched_getaffinity), at least 1. */
int tp_calib_cpus(void);
/* Physical cores among those CPUs (distinct package and core ids in sysfs; SMT siblings share
 * one core's FMA units), at least 1; the CPU count when sysfs has no topology. */
int tp_calib_cores(void);
/* Sleep in 5 ms naps until the process's other threads (a BLAS pool still spinning after its
 * last call, say) used less than a tenth of a CPU over one nap, or max_seconds passed. Returns
 * the seconds waited. */
double tp_calib_wait_quiet(double max_seconds);
/* Largest cache size listed for cpu0 in sysfs, 0 if none. */
size_t tp_calib_llc_bytes(void);

#endif
