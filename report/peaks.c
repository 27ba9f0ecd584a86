/* Machine peaks: environment, per-host cache, quick measurement.
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
#include "report/peaks.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/escape.h"
#include "report/calib.h"
#include "common/fileio.h"

#define MAGIC     "tprof-peaks 1"
#define MAX_CACHE 8192

int tp_peaks_cache_path(char *out, size_t n)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) < 0 || !host[0])
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = 0;
    for (char *s = host; *s; s++)
        if (*s == '/' || (unsigned char)*s < 0x21)
            *s = '_';
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w;
    if (x && *x == '/')
        w = snprintf(out, n, "%s/tprof/peaks-%s", x, host);
    else if (home && *home == '/')
        w = snprintf(out, n, "%s/.cache/tprof/peaks-%s", home, host);
    else
        return -1;
    return w > 0 && (size_t)w < n ? 0 : -1;
}

/* One warning line: the file, the problem, what to do. */
static int corrupt(const char *path, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    /* the path and the line quoted, escaped once here (common/escape.h) */
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
    NKEYS
};
static const char *const keys[NKEYS] = {
    "peak_gflops", "peak_gflops_1t", "peak_gbps", "threads",     "sgemm_n",
    "triad_bytes", "method",         "blas",      "blas_config", "date"};

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
    }
    if (bad) {
        snprintf(why, wn, "%s '%s' is not valid", key, shown(val, buf, sizeof buf));
        return -1;
    }
    return 0;
}

int tp_peaks_load(const char *path, struct tp_peaks *p)
{
    memset(p, 0, sizeof *p);
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
            memset(p, 0, sizeof *p);
            return corrupt(path, "line %d: %s", lineno, why);
        }
    }
    static const int required[] = {K_GFLOPS, K_GBPS};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!(seen & 1u << required[i])) {
            memset(p, 0, sizeof *p);
            return corrupt(path, "no %s", keys[required[i]]);
        }
    return 0;
}

static int mkdirs(const char *path)
{
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = tmp + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
            return -1;
        *s = '/';
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
    if (mkdirs(path) < 0)
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
    /* written like a report (common/fileio.h): atomically, so that a reader never sees half */
    int rc = tp_buf_ok(&b) ? tp_write_file(path, b.p, b.len, NULL) : (errno = ENOMEM, -1);
    int e = errno;
    tp_buf_free(&b);
    errno = e;
    return rc;
}

int tp_peaks_synthetic(const struct tp_peaks *p)
{
    return !strcmp(p->method, "quick") && (!p->blas[0] || !strcmp(p->blas, "-"));
}

/* The quick measurement runs at the exit of a profiled program, whose own threads may still be
 * busy: OpenBLAS's pool spins for about a tenth of a second after its last call, and an FMA loop
 * on every CPU beside it measured half the peak in some runs and all of it in others. So:
 * - FLOP/s is one thread's FMA rate, best of 0.1 ms passes, times the physical cores. A pass is
 *   far shorter than a time slice: even on a CPU shared with a spinning thread, some pass runs
 *   alone, and the best pass is the core's own rate. One thread drives both FMA pipes of its
 *   core (12 independent chains), and SMT siblings share them, hence cores, not CPUs. One
 *   core's turbo clock may beat all cores' at once, and a hypervisor may show SMT siblings as
 *   cores: the figure errs high, so an op's efficiency errs low, never above 100% for that.
 * - GB/s needs every core at once (one core cannot saturate the memory controllers), so the
 *   triad first waits, up to half a second, for the program's other threads to go quiet. It
 *   then streams in rounds of about a millisecond spread over 0.2 s (up to 1.2 s on a busy
 *   machine), and counts only rounds in which every thread ran at once, each timed on its own
 *   clock: a round in which a thread waited for a CPU, or ran alone with the memory to itself,
 *   says nothing of the all-core rate. The figure is the median of the top eighth of those
 *   rounds: bandwidth shared with other machines' guests varies from round to round, and its
 *   high rounds are what this machine can do; one freak round cannot set it. With no such
 *   rounds, the sum of the threads' own rates, which errs high (report/calib.h).
 * Arrays of twice the last-level cache each (with 1x, part of the data still came from the
 * cache: 15% more GB/s), no smaller than 32 MiB, no larger than 128 MiB. The caller caches the
 * result per host: this runs once per machine, not at every exit. */
static void quick_measure(struct tp_peaks *p)
{
    memset(p, 0, sizeof *p);
    size_t bytes = 2 * tp_calib_llc_bytes();
    if (bytes < (size_t)32 << 20)
        bytes = (size_t)32 << 20;
    if (bytes > (size_t)128 << 20)
        bytes = (size_t)128 << 20;
    int cores = tp_calib_cores();
    p->gflops_1t = tp_calib_fma_1t(0.03);
    p->gflops = p->gflops_1t * cores;
    tp_calib_wait_quiet(0.5);
    p->gbps = tp_calib_triad(0.2, bytes, tp_calib_cpus(), NULL);
    p->threads = cores;
    p->triad_bytes = (long long)bytes;
    snprintf(p->method, sizeof p->method, "quick");
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(p->date, sizeof p->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void tp_peaks_quick(double *gflops, double *gbps)
{
    struct tp_peaks p;
    quick_measure(&p);
    if (gflops)
        *gflops = p.gflops;
    if (gbps)
        *gbps = p.gbps;
}

static void set_source(struct tp_machine *m, const char *s)
{
    free(m->source);
    m->source = strdup(s);
}

int tp_peaks_resolve(struct tp_machine *m, double env_gflops, double env_gbps, int allow_quick)
{
    char path[1024], src[1100];
    struct tp_peaks p;
    int from_env = env_gflops > 0 || env_gbps > 0;
    m->peak_gflops = env_gflops > 0 ? env_gflops : 0;
    m->peak_gbps = env_gbps > 0 ? env_gbps : 0;
    if (env_gflops > 0 && env_gbps > 0) {
        set_source(m, "env");
        return 0;
    }
    /* A cache that exists but is not valid (-2) is the user's to replace: not overwritten. */
    int loaded = tp_peaks_cache_path(path, sizeof path) == 0 ? tp_peaks_load(path, &p) : -2;
    if (loaded == 0) {
        if (m->peak_gflops <= 0)
            m->peak_gflops = p.gflops;
        if (m->peak_gbps <= 0)
            m->peak_gbps = p.gbps;
        snprintf(src, sizeof src, "%s%scache:%s", from_env ? "env+" : "",
                 tp_peaks_synthetic(&p) ? "quick-" : "", path);
        set_source(m, src);
        return 0;
    }
    if (allow_quick) {
        quick_measure(&p);
        if (p.gflops > 0 && p.gbps > 0) {
            /* Both peaks, whatever the environment gave: the cache is the machine's. */
            tp_peaks_as_cached(&p);
            if (loaded == -1 && tp_peaks_save(path, &p) < 0) {
                char shown_path[1200];
                fprintf(stderr, "tprof: cannot write %s: %s; the quick peaks are not cached\n",
                        tp_escape_str(shown_path, sizeof shown_path, path), strerror(errno));
            }
            if (m->peak_gflops <= 0)
                m->peak_gflops = p.gflops;
            if (m->peak_gbps <= 0)
                m->peak_gbps = p.gbps;
            set_source(m, from_env ? "env+quick" : "quick");
            return 0;
        }
    }
    if (env_gflops <= 0)
        m->peak_gflops = 0;
    if (env_gbps <= 0)
        m->peak_gbps = 0;
    set_source(m, from_env ? "env" : "none");
    return -1;
}
