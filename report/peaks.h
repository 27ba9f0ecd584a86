/* Machine peaks for the roofline: from TPROF_PEAK_GFLOPS/GBPS, else the per-host cache written
 * by `tprof calibrate`, else a quick measurement at exit (about 250 ms). Used by libtprof.so
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
};

/* Fill m (peak_gflops, peak_gbps, source). Values > 0 in env_* win ("env"); what they leave
 * unknown comes from the cache ("cache:<path>", or "env+cache:<path>" when both contribute);
 * else, if allow_quick, from a quick measurement ("quick", "env+quick"). Returns 0 when both
 * peaks are known; else -1, with whatever the environment gave kept and source "env", or zeros
 * and "none". The library passes allow_quick only when some op has FLOPs (a roofline to draw). */
int tp_peaks_resolve(struct tp_machine *m, double env_gflops, double env_gbps, int allow_quick);

/* The quick measurement: synthetic FMA peak and a short triad, all CPUs, about 250 ms. */
void tp_peaks_quick(double *gflops, double *gbps);

/* This host's cache file: $XDG_CACHE_HOME/tprof/peaks-<host> (XDG_CACHE_HOME only if absolute),
 * else $HOME/.cache/tprof/peaks-<host>. 0, or -1 when neither variable helps. */
int tp_peaks_cache_path(char *out, size_t n);

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
