/* The words about the machine's peaks in a report: the note on where quick peaks come from,
 * and why an op can show more than 100% of them. Both name where the peaks came from, so that
 * the advice fits: a value the user gave is named, not a calibration to run. */
#include "report/peaks.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void tp_peaks_note(const char *source, char *out, size_t n)
{
    const char *how = "one core's FMA rate times the cores, and a STREAM triad";
    const char *c = source ? strstr(source, "quick-cache:") : NULL;
    char path[1024];
    if (c)
        snprintf(out, n,
                 "machine peaks from a quick synthetic measurement (%s) that an earlier run "
                 "cached in %s; `tprof calibrate` measures them through the BLAS and replaces it",
                 how, c + strlen("quick-cache:"));
    else if (source && strstr(source, "quick") && tp_peaks_cache_path(path, sizeof path) == 0 &&
             access(path, F_OK) == 0)
        snprintf(out, n,
                 "machine peaks from a quick synthetic measurement at this exit (%s), now cached "
                 "in %s for later runs; `tprof calibrate` measures them through the BLAS",
                 how, path);
    else if (source && strstr(source, "quick"))
        snprintf(out, n,
                 "machine peaks from a quick synthetic measurement at this exit (%s); `tprof "
                 "calibrate` measures them through the BLAS and caches them",
                 how);
    else if (n)
        out[0] = 0;
}

/* "5 GFLOP/s" from a value as given. */
static const char *given(double v, const char *unit, char *out, size_t n)
{
    snprintf(out, n, "%g %s", v, unit);
    return out;
}

void tp_peaks_over(const struct tp_machine *m, const char *bound, int brief, char *out, size_t n)
{
    const char *src = m->source ? m->source : "";
    int mem = bound && !strcmp(bound, "memory");
    char a[64], b[64];
    if (!strcmp(src, "env") || !strcmp(src, "command line")) {
        int env = !strcmp(src, "env");
        const char *name = mem ? (env ? "TPROF_PEAK_GBPS" : "--peak-gbps")
                               : (env ? "TPROF_PEAK_GFLOPS" : "--peak-gflops");
        given(mem ? m->peak_gbps : m->peak_gflops, mem ? "GB/s" : "GFLOP/s", a, sizeof a);
        if (brief)
            snprintf(out, n, "given");
        else
            snprintf(out, n,
                     "the %s given in %s is below what it reached, or its FLOP count is too high",
                     a, name);
    } else if (!strncmp(src, "env+", 4)) {
        given(m->peak_gflops, "GFLOP/s", a, sizeof a);
        given(m->peak_gbps, "GB/s", b, sizeof b);
        if (brief)
            snprintf(out, n, "given");
        else
            snprintf(out, n,
                     "the peaks, %s and %s (partly given in TPROF_PEAK_*), are below what it "
                     "reached, or its FLOP count is too high",
                     a, b);
    } else if (strstr(src, "quick")) {
        snprintf(out, n, "%s",
                 brief ? "quick"
                       : "the quick measurement's peaks are too low (run `tprof calibrate`) or "
                         "its FLOP count too high");
    } else if (!strncmp(src, "cache:", 6)) {
        snprintf(out, n, "%s",
                 brief ? "cache"
                       : "the cached peaks are too low (run `tprof calibrate --force`) or its "
                         "FLOP count too high");
    } else {
        snprintf(out, n, "%s",
                 brief ? "peaks" : "the peaks are too low or its FLOP count too high");
    }
}

int tp_peaks_over_shown(double efficiency)
{
    return efficiency >= 1.005; /* shown as 101% or more */
}
