/* Machine peaks: the per-host cache file, its path, reading and writing it.
 *
 * The cache is a small text file (docs/calibrate.md):
 *     tprof-peaks 1
 *     peak_gflops 105.300
 *     ...
 * one "key value" per line. The reader is strict about what it knows (numbers parse entirely,
 * are finite and in range; required keys present; no key twice; the file ends with a newline, so
 * a truncated write is caught) and ignores keys it does not know, so that a later tprof may add
 * some. Reading uses open/read into a stack buffer: no allocation, as the preloaded library
 * reads it at exit. */
#include "report/peaks/peaks.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/out/out.h"

#define MAGIC     "tprof-peaks 1"
#define MAX_CACHE 8192

int tp_peaks_cache_path(char *out, size_t n)
{
    return tp_cache_file("peaks", out, n);
}

/* One warning line: the file, the problem, what to do. */
static int corrupt(const char *path, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    /* the path and the line quoted, escaped once here (common/out/escape.c) */
    char p[1200], w[800];
    fprintf(stderr,
            "tprof: %s: not a valid peaks cache (%s); ignoring it (run `tprof calibrate "
            "--force`)\n",
            tp_escape_str(p, sizeof p, path), tp_escape_str(w, sizeof w, why));
    return -2;
}

/* A value as the warning quotes it: its first 40 bytes (corrupt() escapes them). */
static const char *shown(const char *v, char *buf, size_t n)
{
    size_t i = 0;
    for (; v[i] && i + 1 < n && i < 40; i++)
        buf[i] = v[i];
    buf[i] = 0;
    return buf;
}

static int parse_double(const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(d) || d < lo || d > hi)
        return -1;
    *out = d;
    return 0;
}

static int parse_long(const char *v, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long d = strtoll(v, &end, 10);
    if (end == v || *end || errno || d < lo || d > hi)
        return -1;
    *out = d;
    return 0;
}

enum {
    K_GFLOPS,
    K_GFLOPS_1T,
    K_GBPS,
    K_THREADS,
    K_SGEMM_N,
    K_TRIAD_BYTES,
    K_METHOD,
    K_BLAS,
    K_BLAS_CONFIG,
    K_DATE,
    K_CONDITIONS,
    K_BUSY_WHY,
    K_ONCPU,
    K_RUNQ,
    K_LOAD_AVG,
    K_CPU_MODEL,
    K_KERNEL,
    K_CPUS,
    K_CALIBRATIONS,
    NKEYS
};
static const char *const keys[NKEYS] = {"peak_gflops", "peak_gflops_1t", "peak_gbps",   "threads",
                                        "sgemm_n",     "triad_bytes",    "method",      "blas",
                                        "blas_config", "date",           "conditions",  "busy_why",
                                        "oncpu",       "runq",           "load_avg",    "cpu_model",
                                        "kernel",      "cpus",           "calibrations"};

/* "-" is how the file writes an empty string. */
static void put_text(char *out, size_t n, const char *val)
{
    snprintf(out, n, "%s", strcmp(val, "-") ? val : "");
}

/* The keys of the conditions and the machine (tprof 0.1 wrote none: all optional). */
static int parse_conditions(int k, const char *val, struct tp_peaks *p)
{
    switch (k) {
    case K_CONDITIONS:
        snprintf(p->conditions, sizeof p->conditions, "%s", val);
        return strcmp(val, "quiet") && strcmp(val, "busy");
    case K_BUSY_WHY: put_text(p->busy_why, sizeof p->busy_why, val); return 0;
    case K_ONCPU: return parse_double(val, -1, 1, &p->oncpu);
    case K_RUNQ: return parse_double(val, -1, 1, &p->runq);
    case K_LOAD_AVG: return parse_double(val, -1, 1e6, &p->load_avg);
    case K_CPU_MODEL: put_text(p->cpu_model, sizeof p->cpu_model, val); return 0;
    case K_KERNEL: put_text(p->kernel, sizeof p->kernel, val); return 0;
    case K_CPUS: put_text(p->cpus, sizeof p->cpus, val); return 0;
    case K_CALIBRATIONS: {
        long long l = 0;
        int bad = parse_long(val, 1, 1000000, &l);
        p->calibrations = (int)l;
        return bad;
    }
    }
    return 0;
}

/* One "key value" line into p; a message in why when it is not valid. */
static int parse_line(char *line, struct tp_peaks *p, unsigned *seen, char *why, size_t wn)
{
    char *sp = strchr(line, ' '), buf[48];
    if (!sp || sp == line || !sp[1]) {
        snprintf(why, wn, "'%s' is not 'key value'", shown(line, buf, sizeof buf));
        return -1;
    }
    *sp = 0;
    const char *key = line, *val = sp + 1;
    int k = 0;
    while (k < NKEYS && strcmp(key, keys[k]))
        k++;
    if (k == NKEYS)
        return 0; /* a key from a later tprof */
    if (*seen & 1u << k) {
        snprintf(why, wn, "%s given twice", key);
        return -1;
    }
    *seen |= 1u << k;
    long long l = 0;
    int bad = 0;
    switch (k) {
    case K_GFLOPS: bad = parse_double(val, 1e-6, 1e7, &p->gflops); break;
    case K_GFLOPS_1T: bad = parse_double(val, 0, 1e7, &p->gflops_1t); break;
    case K_GBPS: bad = parse_double(val, 1e-6, 1e6, &p->gbps); break;
    case K_THREADS:
        bad = parse_long(val, 0, 1 << 20, &l);
        p->threads = (int)l;
        break;
    case K_SGEMM_N:
        bad = parse_long(val, 0, 1 << 20, &l);
        p->sgemm_n = (long)l;
        break;
    case K_TRIAD_BYTES:
        bad = parse_long(val, 0, 1ll << 50, &l);
        p->triad_bytes = l;
        break;
    case K_METHOD:
        bad = strcmp(val, "full") && strcmp(val, "quick");
        snprintf(p->method, sizeof p->method, "%s", val);
        break;
    case K_BLAS: snprintf(p->blas, sizeof p->blas, "%s", val); break;
    case K_BLAS_CONFIG: snprintf(p->blas_config, sizeof p->blas_config, "%s", val); break;
    case K_DATE: snprintf(p->date, sizeof p->date, "%s", val); break;
    default: bad = parse_conditions(k, val, p); break;
    }
    if (bad) {
        snprintf(why, wn, "%s '%s' is not valid", key, shown(val, buf, sizeof buf));
        return -1;
    }
    return 0;
}

/* Nothing read yet: the figures that may be absent are unknown (-1), not 0. */
void tp_peaks_clear(struct tp_peaks *p)
{
    memset(p, 0, sizeof *p);
    p->oncpu = p->runq = p->load_avg = -1;
}

int tp_peaks_load(const char *path, struct tp_peaks *p)
{
    tp_peaks_clear(p);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? -1 : corrupt(path, "%s", strerror(errno));
    char buf[MAX_CACHE + 1];
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, sizeof buf - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            return corrupt(path, "%s", strerror(e));
        }
        if (r == 0 || (len += (size_t)r) == sizeof buf)
            break;
    }
    close(fd);
    if (len > MAX_CACHE)
        return corrupt(path, "larger than %d bytes", MAX_CACHE);
    if (len == 0)
        return corrupt(path, "empty");
    if (memchr(buf, 0, len))
        return corrupt(path, "contains a NUL byte");
    if (buf[len - 1] != '\n')
        return corrupt(path, "truncated: no newline at the end");
    buf[len] = 0;
    char *line = buf, *nl = strchr(line, '\n');
    *nl = 0;
    if (strcmp(line, MAGIC) != 0)
        return corrupt(path, "first line is not '%s'", MAGIC);
    unsigned seen = 0;
    int lineno = 1;
    char why[160];
    for (line = nl + 1; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        *nl = 0;
        lineno++;
        if (!*line)
            continue;
        if (parse_line(line, p, &seen, why, sizeof why) < 0) {
            tp_peaks_clear(p);
            return corrupt(path, "line %d: %s", lineno, why);
        }
    }
    static const int required[] = {K_GFLOPS, K_GBPS};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!(seen & 1u << required[i])) {
            tp_peaks_clear(p);
            return corrupt(path, "no %s", keys[required[i]]);
        }
    return 0;
}

/* A string as a one-line value: control characters become '?', empty becomes "-". */
static void put_str(struct tp_buf *b, const char *key, const char *v)
{
    tp_buf_printf(b, "%s ", key);
    if (!v || !*v)
        tp_buf_putc(b, '-');
    for (; v && *v; v++)
        tp_buf_putc(b, (unsigned char)*v < 0x20 || *v == 0x7f ? '?' : *v);
    tp_buf_putc(b, '\n');
}

/* The cache keeps three decimals. */
static double cached(double v)
{
    char t[64];
    snprintf(t, sizeof t, "%.3f", v);
    return strtod(t, NULL);
}

void tp_peaks_as_cached(struct tp_peaks *p)
{
    p->gflops = cached(p->gflops);
    p->gflops_1t = cached(p->gflops_1t);
    p->gbps = cached(p->gbps);
}

int tp_peaks_save(const char *path, const struct tp_peaks *p)
{
    struct tp_buf b;
    if (tp_cache_dirs(path) < 0)
        return -1;
    tp_buf_init(&b);
    tp_buf_printf(&b,
                  MAGIC "\npeak_gflops %.3f\npeak_gflops_1t %.3f\npeak_gbps %.3f\nthreads %d\n"
                        "sgemm_n %ld\ntriad_bytes %lld\n",
                  p->gflops, p->gflops_1t, p->gbps, p->threads, p->sgemm_n, p->triad_bytes);
    put_str(&b, "method", p->method[0] ? p->method : "full");
    put_str(&b, "blas", p->blas);
    put_str(&b, "blas_config", p->blas_config);
    put_str(&b, "date", p->date);
    if (p->conditions[0]) {
        put_str(&b, "conditions", p->conditions);
        put_str(&b, "busy_why", p->busy_why);
        tp_buf_printf(&b, "oncpu %.3f\nrunq %.3f\nload_avg %.2f\n", p->oncpu, p->runq, p->load_avg);
        put_str(&b, "cpu_model", p->cpu_model);
        put_str(&b, "kernel", p->kernel);
        put_str(&b, "cpus", p->cpus);
    }
    if (p->calibrations > 1)
        tp_buf_printf(&b, "calibrations %d\n", p->calibrations);
    /* written like a report (common/out/fileio.c): atomically, so that a reader never sees half */
    int rc = tp_buf_ok(&b) ? tp_write_file(path, b.p, b.len, NULL) : (errno = ENOMEM, -1);
    int e = errno;
    tp_buf_free(&b);
    errno = e;
    return rc;
}
