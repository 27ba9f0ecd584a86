/* tprof calibrate: measure this machine's peak FLOP/s (the system BLAS, one thread and all) and
 * memory bandwidth (STREAM triad), cache them per host for every later profile, print them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/peaks/peaks.h"
#include "cli/cli.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tprof calibrate [--quick] [--force] [--print] [--blas LIB]\n\n"
            "Measures peak GFLOP/s with a large sgemm through the system BLAS (one thread and\n"
            "all threads) and memory bandwidth with a STREAM triad on arrays far larger than the\n"
            "last-level cache, then writes them to $XDG_CACHE_HOME/tprof/peaks-<host> (else\n"
            "~/.cache/tprof/), where libtprof.so reads them. When that file already holds a full\n"
            "calibration made quietly on this CPU model with these CPUs allowed, shows it\n"
            "instead of measuring again.\n\n"
            "The measurement is quiet when each measuring thread was on a CPU at least 90%% of\n"
            "its wall time and waited for one at most 10%%, and the threads together ran at\n"
            "least 1.25 times as fast as one; else busy: then it is printed, cached marked\n"
            "busy (never over a quiet one; the next quiet one replaces it), and the exit\n"
            "status is 3. A quiet calibration over a quiet cached one of the same method and\n"
            "BLAS keeps each figure's best of the two (a peak is the most the machine did);\n"
            "delete the file to start over.\n\n"
            "  --quick     smaller, faster measurement (about a second)\n"
            "  --force     measure even if a calibration is cached\n"
            "  --print     show the cached figures without measuring\n"
            "  --blas LIB  the BLAS to load (a path or soname; default libblas.so.3, then\n"
            "              libopenblas.so.0, then libcblas.so.3)\n");
}

static void show(const char *path, const struct tp_peaks *p)
{
    double mib = (double)p->triad_bytes / (1 << 20);
    printf("peak GFLOP/s, all threads:  %.1f", p->gflops);
    if (p->threads > 0)
        printf("  (%d threads)", p->threads);
    if (p->sgemm_n > 0)
        printf("  sgemm %ld^3", p->sgemm_n);
    printf("\npeak GFLOP/s, one thread:   %.1f\n", p->gflops_1t);
    printf("memory bandwidth GB/s:      %.1f", p->gbps);
    if (p->triad_bytes > 0)
        printf("  triad over 3 x %.0f MiB, 24 bytes per element", mib);
    printf("\nridge point (FLOP/byte):    %.2f\n", p->gflops / p->gbps);
    printf("BLAS:                       %s\n", p->blas[0] ? p->blas : "-");
    printf("BLAS config:                %s\n", p->blas_config[0] ? p->blas_config : "-");
    printf("measured:                   %s (%s)\n", p->date[0] ? p->date : "-",
           p->method[0] ? p->method : "full");
    if (p->calibrations > 1)
        printf("calibrations:               each figure the best of %d quiet ones\n",
               p->calibrations);
    if (!p->conditions[0])
        printf("conditions:                 unknown (cached by an earlier tprof)\n");
    else if (p->load_avg >= 0)
        printf("conditions:                 %s%s%s; load average %.2f\n", p->conditions,
               p->busy_why[0] ? ": " : "", p->busy_why, p->load_avg);
    else
        printf("conditions:                 %s%s%s\n", p->conditions, p->busy_why[0] ? ": " : "",
               p->busy_why);
    if (p->cpu_model[0] || p->cpus[0])
        printf("machine:                    %s, CPUs %s, kernel %s\n",
               p->cpu_model[0] ? p->cpu_model : "-", p->cpus[0] ? p->cpus : "-",
               p->kernel[0] ? p->kernel : "-");
    printf("cache:                      %s\n", path);
}

static void progress(const char *what)
{
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "tprof calibrate: %s...\n", what);
}

/* The triad arrays: at least 4x the last-level cache each and 64 MiB (quick: 2x and 32 MiB),
 * at most 1 GiB (quick: 128 MiB). */
static size_t triad_bytes(int quick)
{
    size_t llc = tp_calib_llc_bytes(), b = quick ? 2 * llc : 4 * llc;
    size_t lo = (quick ? (size_t)32 : 64) << 20, hi = (quick ? (size_t)128 : 1024) << 20;
    return b < lo ? lo : b > hi ? hi : b;
}

/* Measure into p (sgemm one thread and all, triad); 0, or the exit status after one line. */
static int measure(const char *blas, int quick, struct tp_peaks *p)
{
    memset(p, 0, sizeof *p);
    int n = quick ? 512 : 2048, cpus = tp_calib_cpus();
    double load = tp_calib_loadavg(); /* before the measurement adds to it */
    struct tp_calib_cond cond, triad;
    double secs = quick ? 0.2 : 1.5;
    struct tp_blas_run one, all;
    char what[128];
    snprintf(what, sizeof what, "sgemm %d^3, one thread", n);
    progress(what);
    int rc = tp_calib_sgemm(blas, n, 1, secs, &one);
    if (rc == -1) {
        fprintf(stderr,
                "tprof calibrate: %s: install libopenblas0 or libblas3, or name one with "
                "--blas\n",
                one.error);
        return 2;
    }
    if (rc < 0) {
        fprintf(stderr, "tprof calibrate: %s\n", one.error);
        return 1;
    }
    all = one;
    if (cpus > 1) {
        snprintf(what, sizeof what, "sgemm %d^3, %d threads", n, cpus);
        progress(what);
        if (tp_calib_sgemm(blas, n, cpus, secs, &all) < 0) {
            fprintf(stderr, "tprof calibrate: %s\n", all.error);
            return 1;
        }
    }
    size_t bytes = triad_bytes(quick);
    snprintf(what, sizeof what, "triad over 3 x %zu MiB, %d threads", bytes >> 20, cpus);
    progress(what);
    p->gbps = tp_calib_triad(quick ? 0.2 : 1.0, bytes, cpus, NULL, &triad);
    if (p->gbps <= 0) {
        fprintf(stderr, "tprof calibrate: cannot map 3 x %zu MiB for the triad\n", bytes >> 20);
        return 1;
    }
    /* A peak is the most the machine did: threads that lose to one (a busy machine, a
     * single-threaded BLAS) leave the single-thread figure as the peak. */
    p->gflops_1t = one.gflops;
    p->gflops = all.gflops > one.gflops ? all.gflops : one.gflops;
    p->threads = all.threads; /* 0 when the library cannot say */
    p->sgemm_n = all.n;
    p->triad_bytes = (long long)bytes;
    snprintf(p->method, sizeof p->method, "%s", quick ? "quick" : "full");
    snprintf(p->blas, sizeof p->blas, "%s", one.path);
    snprintf(p->blas_config, sizeof p->blas_config, "%s", one.config);
    /* The worst thread of the three measurements; the threads' speed-up counts where the BLAS
     * ran several threads on several cores (SMT siblings share one core's FMA units). */
    cond = one.cond;
    tp_calib_cond_merge(&cond, &all.cond);
    tp_calib_cond_merge(&cond, &triad);
    cond.threads = all.threads > 1 && tp_calib_cores() > 1 ? all.threads : 0;
    cond.speedup = one.gflops > 0 ? all.gflops / one.gflops : 0;
    tp_peaks_conditions(p, &cond, load);
    return 0;
}

/* A peak is the most the machine did, and a measurement only ever falls short of it (another
 * job, a frequency step, the scheduler): a quiet calibration over a quiet cached one of the same
 * method and BLAS keeps, figure by figure, the better of the two, so that calibrating again
 * converges on the machine's peaks instead of moving them to whatever the last run got. One
 * line on stdout gives this run's own figures. */
static void keep_best(struct tp_peaks *q, const struct tp_peaks *p)
{
    if (strcmp(q->conditions, "quiet") || strcmp(p->conditions, "quiet") ||
        strcmp(q->method, p->method) || strcmp(q->blas, p->blas))
        return;
    printf("this calibration:           %.1f GFLOP/s all threads, %.1f one thread, %.1f GB/s\n",
           q->gflops, q->gflops_1t, q->gbps);
    if (p->gflops > q->gflops)
        q->gflops = p->gflops;
    if (p->gflops_1t > q->gflops_1t)
        q->gflops_1t = p->gflops_1t;
    if (p->gbps > q->gbps)
        q->gbps = p->gbps;
    q->calibrations = (p->calibrations > 1 ? p->calibrations : 1) + 1;
}

/* Cache q unless it is busy and keep (a quiet calibration of this machine is cached: a busy
 * one never replaces it), show it; 0, 3 when busy (one line says what became of it), 1 when
 * the cache cannot be written. */
static int save_and_show(const char *path, const struct tp_peaks *q, int keep)
{
    int busy = !strcmp(q->conditions, "busy");
    if (busy && keep) {
        show(path, q);
        fprintf(stderr,
                "tprof calibrate: measured on a busy machine (%s): not cached (the cache keeps "
                "the earlier calibration); run `tprof calibrate --force` on a quiet machine\n",
                q->busy_why);
        return 3;
    }
    if (tp_peaks_save(path, q) < 0) {
        fprintf(stderr, "tprof calibrate: cannot write %s: %s; the figures are not cached\n",
                tp_cli_shown(path), strerror(errno));
        show(path, q);
        return 1;
    }
    show(path, q);
    if (busy)
        fprintf(stderr,
                "tprof calibrate: measured on a busy machine (%s): cached marked busy; run `tprof "
                "calibrate` on a quiet machine to replace it\n",
                q->busy_why);
    return busy ? 3 : 0;
}

int tp_cmd_calibrate(int argc, char **argv)
{
    int quick = 0, print = 0, force = 0;
    const char *blas = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--print")) {
            print = 1;
        } else if (!strcmp(argv[i], "--force")) {
            force = 1;
        } else if (!strcmp(argv[i], "--blas") || !strncmp(argv[i], "--blas=", 7)) {
            blas = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : NULL;
            if (!blas || !*blas) {
                fprintf(stderr, "tprof calibrate: --blas needs a library (a path or soname)\n");
                return 2;
            }
        } else {
            fprintf(stderr, "tprof calibrate: unknown option '%s' (try --help)\n",
                    tp_cli_shown(argv[i]));
            return 2;
        }
    }
    if (print && (quick || force || blas)) {
        fprintf(stderr, "tprof calibrate: --print measures nothing: it takes no other option\n");
        return 2;
    }
    char path[1024];
    if (tp_peaks_cache_path(path, sizeof path) < 0) {
        fprintf(stderr, "tprof calibrate: no cache directory (set XDG_CACHE_HOME or HOME to an "
                        "absolute path)\n");
        return 2;
    }
    struct tp_peaks p;
    int loaded = tp_peaks_load(path, &p); /* -2 has printed its line */
    if (print) {
        if (loaded == -1)
            fprintf(stderr, "tprof calibrate: %s: no calibration cached (run `tprof calibrate`)\n",
                    tp_cli_shown(path));
        if (loaded < 0)
            return 1;
        show(path, &p);
        return 0;
    }
    /* A quick calibration is replaced by a full one without --force, and the library's quick
     * synthetic measurement, a busy one or one made on another CPU or with other CPUs allowed
     * by any calibration; naming a BLAS measures. */
    struct tp_peaks here;
    char why[300] = "";
    memset(&here, 0, sizeof here);
    tp_peaks_here(&here);
    if (loaded == 0)
        tp_peaks_unusable(&p, &here, why, sizeof why);
    int keep = loaded == 0 && !why[0] && strcmp(p.conditions, "busy") != 0;
    if (keep && !force && !blas && !tp_peaks_synthetic(&p) &&
        (quick || strcmp(p.method, "quick") != 0)) {
        show(path, &p);
        printf("(cached: `tprof calibrate --force` measures again)\n");
        return 0;
    }
    struct tp_peaks q;
    int rc = measure(blas, quick, &q);
    if (rc)
        return rc;
    tp_peaks_as_cached(&q);
    if (keep)
        keep_best(&q, &p);
    return save_and_show(path, &q, keep);
}
