/* The machine's peaks: measured, cached per host, and what a report says of them: the one header of report/peaks/ for code outside it. */
#ifndef TPROF_REPORT_PEAKS_PEAKS
#define TPROF_REPORT_PEAKS_PEAKS

#include <stddef.h>
#include <stdint.h>

#include "common/machine/machine.h"
#include "report/report.h"

/* Machine peaks for the roofline: from TPROF_PEAK_GFLOPS/GBPS, else the per-host cache written
 * by `tprof calibrate` (or by the first quick measurement), else a quick measurement at exit
 * (about 0.3 s, once per machine). Used by libtprof.so
 * (which cannot use json-c, hence a plain text cache) and by the CLI. */
/* What the cache holds (format in docs/calibrate.md). */
struct tp_peaks {
    double gflops;         /* sgemm, all threads */
    double gflops_1t;      /* sgemm, one thread; 0 if not measured */
    double gbps;           /* STREAM triad, all threads */
    int threads;           /* threads of the all-threads figures; 0 unknown */
    long sgemm_n;          /* matrix size of the sgemm; 0 unknown */
    long long triad_bytes; /* bytes of each triad array; 0 unknown */
    char method[16];       /* "full" or "quick" (tprof calibrate --quick) */
    char blas[512];        /* the BLAS library file */
    char blas_config[256]; /* openblas_get_config(), "-" when the library has none */
    char date[64];         /* UTC, ISO 8601 */
    /* The conditions (report/peaks/calib.c): "quiet" or "busy", "" when the cache predates them. */
    char conditions[8];
    char busy_why[96];  /* why busy, e.g. "the measuring threads had 52% of their CPUs" */
    double oncpu, runq; /* the measuring threads' worst shares; -1 unknown */
    double load_avg;    /* 1-minute load average when measured; -1 unknown */
    char cpu_model[64]; /* "" unknown (and in the file: "-") */
    char kernel[64];
    char cpus[128]; /* the CPUs the measuring process could use, "0-3,8" */
    /* Quiet calibrations of the same method and BLAS whose best figures these are (each figure
     * the best of them: cmd_calibrate.c); 0 when the cache predates the count (one). */
    int calibrations;
};

/* Fill m: peak_gflops, peak_gbps, source ("env", "cache:<path>", "quick", "none", below) and,
 * for measured peaks, measured_at (UTC, ISO 8601), conditions ("quiet", "busy", "unknown" for a
 * cache from before they were recorded), busy_why, cpu_model, cpus (the CPUs the measurement
 * could use, "0-3,8") and load_avg (-1 unknown); NULL and 0 for given peaks. A cache made on another CPU model or with
 * other CPUs allowed than this process's is not used, nor overwritten: the peaks are measured
 * quickly (if allow_quick) as when there is none, and tp_peaks_note says why. Values > 0 in env_* win ("env"); what they leave
 * unknown comes from the cache ("cache:<path>", or "env+cache:<path>" when both contribute;
 * "quick-cache:<path>" when the cache holds a quick synthetic measurement); else, if
 * allow_quick, from a quick measurement ("quick", "env+quick"), which is then written to the
 * cache if there was no cache file (one line on stderr if it cannot be). Returns 0 when both
 * peaks are known; else -1, with whatever the environment gave kept and source "env", or zeros
 * and "none". The library passes allow_quick only when some op has FLOPs (a roofline to draw),
 * and only in the report that ends the process (track/out/collect.c: the measurement's arrays count
 * in the process's peak RSS). */
int tp_peaks_resolve(struct tp_machine *m, double env_gflops, double env_gbps, int allow_quick);

/* 1 when a cache holds the library's quick synthetic measurement (method quick, no BLAS):
 * its source is then "quick-cache:<path>", and `tprof calibrate --quick` replaces it. */
int tp_peaks_synthetic(const struct tp_peaks *p);

/* A deep copy of a report's machine (to: not holding anything). */
void tp_peaks_machine_copy(struct tp_machine *to, const struct tp_machine *from);
/* Peaks given by the user (source "command line", say): the measurement's conditions go. */
void tp_peaks_given(struct tp_machine *m, const char *source);

/* The report's note on quick peaks, from the machine's source ("" when it needs none): how
 * they were measured, where they are cached, that `tprof calibrate` measures them better; then,
 * after tp_peaks_resolve in this process, a busy measurement and why a cache was not used. */
void tp_peaks_note(const char *source, char *out, size_t n); /* report/peaks/peaks_text.c */
/* What the last tp_peaks_resolve of this process found, for tp_peaks_note: the busy line of a
 * measurement or cache ("" quiet), why the cache was not used (""). */
const char *tp_peaks_busy_line(void);
const char *tp_peaks_unused_line(void);
int tp_peaks_quick_cached(void); /* 1 when it wrote its quick measurement to the cache */
/* After a measurement: judge c (tp_calib_judge) into p's conditions, busy_why, oncpu, runq,
 * with load_avg (read before measuring), this machine (tp_peaks_here) and the time. */
struct tp_calib_cond;
void tp_peaks_conditions(struct tp_peaks *p, struct tp_calib_cond *c, double load_avg);
/* This machine as a cache records it (cpu_model, kernel, cpus). */
void tp_peaks_here(struct tp_peaks *p);
/* Why a cache cannot be used by this process ("" when it can): another CPU model, other CPUs. */
void tp_peaks_unusable(const struct tp_peaks *cached, const struct tp_peaks *here, char *why,
                       size_t n);
/* The header's line on the peaks (they are known): "machine peaks 201 GFLOP/s, 60.3 GB/s (from
 * cache:<path>, 3 days old, quiet)": the age at the end of the run, "busy: <why>", "unknown
 * conditions" for a cache that predates them. Returns out. (report/peaks/peaks_text.c) */
const char *tp_peaks_header(const struct tp_report *r, char *out, size_t n);
/* The verdict's words for peaks measured on a busy machine ("" otherwise). */
const char *tp_peaks_busy(const struct tp_machine *m); /* report/peaks/peaks_text.c */

/* Why an op shows more than 100% of the roofline (tp_peaks_over_shown), naming where the peaks
 * came from: the value given in TPROF_PEAK_* or with --peak-* (then no calibration is advised),
 * the quick measurement, the cache. brief: one word for the op's row ("given", "quick",
 * "cache", "peaks"); else a clause for the verdict sentence and the table's legend. bound: the
 * op's "compute" or "memory". */
void tp_peaks_over(const struct tp_machine *m, const char *bound, int brief, char *out, size_t n);
/* 1 when an efficiency shows as more than 100% (rounded to a whole percent). */
int tp_peaks_over_shown(double efficiency);

int tp_peaks_cache_path(char *out, size_t n); /* tp_cache_file("peaks") */

/* p as nothing read: zeros, the figures that may be absent -1 (unknown). */
void tp_peaks_clear(struct tp_peaks *p);
/* 0 and p filled; -1 when the file does not exist (silently); -2 when it exists but cannot be
 * read or is not a valid cache: then one line on stderr names the file and the problem. */
int tp_peaks_load(const char *path, struct tp_peaks *p);
/* Write atomically (temporary file and rename), creating directories. 0 or -1 (errno set). */
int tp_peaks_save(const char *path, const struct tp_peaks *p);
/* The figures as the cache will hold them, so that what a measurement prints is what a later
 * `--print` of the cache prints (a figure printed with one decimal from its full value could
 * round the other way from the same figure read back with three). */
void tp_peaks_as_cached(struct tp_peaks *p);

/* Measuring the machine (report/peaks/calib.c): peak FLOP/s and memory bandwidth for the roofline;
 * the conditions of a measurement and the machine's CPUs (report/peaks/calib_cond.c). */
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
/* The machine: the CPUs this process may use as a list ("0-3,8"; "" when unknown), the 1-minute
 * load average (-1 unknown), the kernel release (its CPU model: common/machine/machine.h). */
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
