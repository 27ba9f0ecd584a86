/* Machine peaks for the roofline: from TPROF_PEAK_GFLOPS/GBPS, else the per-host cache written
 * by `tprof calibrate` (or by the first quick measurement), else a quick measurement at exit
 * (about 0.3 s, once per machine). Used by libtprof.so
 * (which cannot use json-c, hence a plain text cache) and by the CLI. */
#ifndef TPROF_PEAKS_H
#define TPROF_PEAKS_H

#include <stddef.h>

#include "report/report.h"

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
    /* The conditions (report/peaks/calib.h): "quiet" or "busy", "" when the cache predates them. */
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

/* This host's cache file of a kind ("peaks", "hook": report/peaks/hookcache.h):
 * $XDG_CACHE_HOME/tprof/<kind>-<host> (XDG_CACHE_HOME only if absolute), else
 * $HOME/.cache/tprof/<kind>-<host>. 0, or -1 when neither variable helps. */
int tp_cache_file(const char *kind, char *out, size_t n);
int tp_peaks_cache_path(char *out, size_t n); /* tp_cache_file("peaks") */
/* The directories above a cache file, made if missing. 0 or -1 (errno set). */
int tp_cache_dirs(const char *path);

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

#endif
