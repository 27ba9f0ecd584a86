/* Machine peaks for the roofline: from TPROF_PEAK_GFLOPS/GBPS, else the per-host cache written
 * by `tprof calibrate`, else a quick measurement (about 300 ms). */
#ifndef TPROF_PEAKS_H
#define TPROF_PEAKS_H

#include "report.h"

struct tp_peaks {
    double gflops, gflops_1t, gbps;
    char blas[512];
    char date[64];
};

/* Fill m (peak_gflops, peak_gbps, source). env values > 0 win; then the cache; then, if
 * allow_quick, a quick measurement. Returns 0, or -1 when no peak could be had (then both are 0
 * and source is "none"). */
int tp_peaks_resolve(struct tp_machine *m, double env_gflops, double env_gbps, int allow_quick);

/* The cache file of this host: $XDG_CACHE_HOME/tprof/peaks-<host>, else ~/.cache/tprof/... */
int tp_peaks_cache_path(char *out, size_t n);
/* 0 and p filled, or -1 (absent or unreadable; corrupt prints one warning line). */
int tp_peaks_load(const char *path, struct tp_peaks *p);
int tp_peaks_save(const char *path, const struct tp_peaks *p);

/* Measurements (src/calib.c). seconds: time budget of each measurement. */
/* Peak single-precision GFLOP/s of the system BLAS (sgemm of size n), with `threads` threads
 * (0 = the library's default). Returns 0 if no BLAS can be loaded; blas gets its path. */
double tp_calib_gflops(double seconds, int n, int threads, char *blas, size_t blas_len);
/* Synthetic single-precision FMA peak of all cores (safe anywhere, no library). */
double tp_calib_fma(double seconds);
/* Memory bandwidth in GB/s: STREAM triad on three arrays of `bytes` each, all cores. */
double tp_calib_gbps(double seconds, size_t bytes);

#endif
