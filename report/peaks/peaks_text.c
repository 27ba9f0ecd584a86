/* The words about the machine's peaks in a report: the note on where quick peaks come from,
 * and why an op can show more than 100% of them. Both name where the peaks came from, so that
 * the advice fits: a value the user gave is named, not a calibration to run. */
#include "report/peaks/peaks.h"
#include "report/units.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

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
    else if (source && strstr(source, "quick") && tp_peaks_quick_cached() &&
             tp_peaks_cache_path(path, sizeof path) == 0)
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
    /* Then what the last resolve in this process found (the library's report at exit). */
    const char *more[] = {tp_peaks_busy_line(), tp_peaks_unused_line()};
    for (size_t i = 0; i < 2; i++) {
        size_t len = strlen(out);
        if (more[i][0] && len + 2 < n)
            snprintf(out + len, n - len, "%s%s", len ? "; " : "", more[i]);
    }
}

/* "2026-11-22T14:13:59Z" as seconds since the epoch; -1 when it is not that. */
static long long iso_seconds(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char z = 0;
    if (!s ||
        sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec, &z) != 7 ||
        z != 'Z')
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (long long)timegm(&tm);
}

/* The age of a measurement as a person says it: "40 s", "12 min", "5 h", "3 days". */
static void age_words(long long s, char *out, size_t n)
{
    if (s < 90)
        snprintf(out, n, "%lld s old", s);
    else if (s < 90 * 60)
        snprintf(out, n, "%lld min old", (s + 30) / 60);
    else if (s < 48 * 3600)
        snprintf(out, n, "%lld h old", (s + 1800) / 3600);
    else
        snprintf(out, n, "%lld days old", (s + 43200) / 86400);
}

const char *tp_peaks_header(const struct tp_report *r, char *out, size_t n)
{
    const struct tp_machine *m = &r->machine;
    const char *src = m->source ? m->source : "?";
    char a[64], b[64];
    int w = snprintf(out, n, "machine peaks %s, %s (from %s",
                     tp_fmt_rate(m->peak_gflops * 1e9, "FLOP/s", a, sizeof a),
                     tp_fmt_rate(m->peak_gbps * 1e9, "B/s", b, sizeof b), src);
    size_t len = w > 0 ? (size_t)w : 0;
    if (len + 2 >= n)
        return out;
    /* The age at the end of the run, so that re-rendering a report later says the same. */
    long long at = iso_seconds(m->measured_at);
    long long end = (long long)((r->program.start_unix_ns + r->program.wall_ns) / 1000000000u);
    char age[48] = "";
    /* A second or two "in the future": another process cached it while this one ended. */
    if (strstr(src, "cache:") && at >= 0 && end + 2 >= at)
        age_words(end > at ? end - at : 0, age, sizeof age);
    else if (strstr(src, "cache:"))
        snprintf(age, sizeof age, "age unknown");
    if (m->conditions) /* else given peaks, or a report from before conditions were recorded */
        snprintf(out + len, n - len, "%s%s, %s%s%s)", age[0] ? ", " : "", age,
                 !strcmp(m->conditions, "unknown") ? "unknown conditions" : m->conditions,
                 m->busy_why ? ": " : "", m->busy_why ? m->busy_why : "");
    else
        snprintf(out + len, n - len, ")");
    return out;
}

const char *tp_peaks_busy(const struct tp_machine *m)
{
    return m->conditions && !strcmp(m->conditions, "busy")
               ? "; the peaks were measured on a busy machine, so this may be too high"
               : "";
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
