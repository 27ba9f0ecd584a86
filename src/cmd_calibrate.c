/* tprof calibrate: measure this machine's peak FLOP/s (the system BLAS, one thread and all) and
 * memory bandwidth (STREAM triad), cache them per host for every later profile, print them. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "peaks.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tprof calibrate [--quick] [--print]\n\n"
               "Measures peak GFLOP/s with a large sgemm through the system BLAS (one thread and\n"
               "all threads) and memory bandwidth with a STREAM triad on arrays far larger than the\n"
               "last-level cache, then writes them to $XDG_CACHE_HOME/tprof/peaks-<host> (else\n"
               "~/.cache/tprof/), where libtprof.so reads them.\n\n"
               "  --quick   smaller, faster measurement (about a second)\n"
               "  --print   show the cached figures without measuring\n");
}

/* Last-level cache size from sysfs, for sizing the triad arrays. */
static size_t llc_bytes(void)
{
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[128], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        if (fgets(buf, sizeof buf, f)) {
            size_t v = 0;
            char unit = 0;
            if (sscanf(buf, "%zu%c", &v, &unit) >= 1) {
                if (unit == 'K')
                    v <<= 10;
                else if (unit == 'M')
                    v <<= 20;
                if (v > best)
                    best = v;
            }
        }
        fclose(f);
    }
    return best;
}

static void show(const char *path, const struct tp_peaks *p)
{
    printf("peak GFLOP/s (all threads): %.1f\n", p->gflops);
    printf("peak GFLOP/s (one thread):  %.1f\n", p->gflops_1t);
    printf("memory bandwidth GB/s:      %.1f\n", p->gbps);
    printf("ridge point (FLOP/byte):    %.2f\n", p->gbps > 0 ? p->gflops / p->gbps : 0);
    printf("BLAS:                       %s\n", p->blas);
    printf("measured:                   %s\n", p->date);
    printf("cache:                      %s\n", path);
}

int tp_cmd_calibrate(int argc, char **argv)
{
    int quick = 0, print = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--print")) {
            print = 1;
        } else {
            fprintf(stderr, "tprof calibrate: unknown option '%s' (try --help)\n", argv[i]);
            return 2;
        }
    }
    char path[1024];
    if (tp_peaks_cache_path(path, sizeof path) < 0) {
        fprintf(stderr, "tprof calibrate: no cache directory (set XDG_CACHE_HOME or HOME)\n");
        return 2;
    }
    struct tp_peaks p;
    if (print) {
        if (tp_peaks_load(path, &p) < 0) {
            fprintf(stderr, "tprof calibrate: %s: no calibration yet (run `tprof calibrate`)\n", path);
            return 2;
        }
        show(path, &p);
        return 0;
    }
    memset(&p, 0, sizeof p);
    int n = quick ? 768 : 2048;
    double secs = quick ? 0.3 : 1.5;
    p.gflops_1t = tp_calib_gflops(secs, n, 1, p.blas, sizeof p.blas);
    if (p.gflops_1t <= 0) {
        fprintf(stderr, "tprof calibrate: no BLAS could be loaded (libblas.so.3, libopenblas.so.0): "
                        "install libopenblas0 or libblas3\n");
        return 2;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    p.gflops = tp_calib_gflops(secs, n, ncpu > 0 ? (int)ncpu : 1, NULL, 0);
    if (p.gflops < p.gflops_1t)
        p.gflops = p.gflops_1t;
    size_t bytes = 4 * llc_bytes();
    if (bytes < (quick ? (size_t)32 << 20 : (size_t)64 << 20))
        bytes = quick ? (size_t)32 << 20 : (size_t)64 << 20;
    p.gbps = tp_calib_gbps(quick ? 0.3 : 1.0, bytes);
    time_t now = time(NULL);
    strftime(p.date, sizeof p.date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    if (tp_peaks_save(path, &p) < 0)
        fprintf(stderr, "tprof calibrate: cannot write %s; figures not cached\n", path);
    show(path, &p);
    return 0;
}
