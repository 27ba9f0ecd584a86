/* Machine peaks: the environment over the cache over the quick measurement; the cache
 * round-trips byte for byte, with its conditions; every kind of corrupt cache is ignored with
 * exactly one line on stderr; the measurements return sane figures in bounded time; the
 * quiet/busy rule on fixed numbers; a cache of another CPU or other CPUs is not used; the
 * header's words on the peaks' source, age and conditions. */
#include <check.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/peaks/peaks.h"

static char dir[64], path[1024];

/* The product's hook for the test suite (report/peaks/calib_cond.c): defined here, it resolves
 * the weak reference, and a test sets the on-CPU share it gives (negative: none). */
static double oncpu_given = -1;
double tprof_calib_oncpu(void)
{
    return oncpu_given;
}

/* A fresh XDG_CACHE_HOME for each test (each runs in its own process). */
static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/tprof-peaks-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    ck_assert_int_eq(tp_peaks_cache_path(path, sizeof path), 0);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* stderr into a file between begin and end; end returns what was written. */
static int saved_fd = -1;
static char captured[4096];
static void capture_begin(void)
{
    char f[128];
    snprintf(f, sizeof f, "%s/stderr", dir);
    fflush(stderr);
    saved_fd = dup(2);
    int fd = open(f, O_CREAT | O_TRUNC | O_RDWR, 0600);
    ck_assert_int_ge(fd, 0);
    dup2(fd, 2);
    close(fd);
}

static const char *capture_end(void)
{
    char f[128];
    snprintf(f, sizeof f, "%s/stderr", dir);
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    FILE *in = fopen(f, "r");
    size_t n = fread(captured, 1, sizeof captured - 1, in);
    fclose(in);
    captured[n] = 0;
    return captured;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void write_file(const char *p, const char *data, size_t len)
{
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

static const struct tp_peaks sample = {123.5,
                                       61.25,
                                       17.75,
                                       2,
                                       2048,
                                       134217728,
                                       "full",
                                       "/usr/lib/libblas.so.3",
                                       "OpenBLAS 0.3.21 Zen",
                                       "2026-01-01T00:00:00Z"};

START_TEST(test_cache_path)
{
    char p[1024], want[1100], host[256] = "";
    gethostname(host, sizeof host - 1);
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/home/u", 1);
    ck_assert_int_eq(tp_peaks_cache_path(p, sizeof p), 0);
    snprintf(want, sizeof want, "/x/cache/tprof/peaks-%s", host);
    ck_assert_str_eq(p, want);
    setenv("XDG_CACHE_HOME", "relative/cache", 1); /* not absolute: ignored, as the spec says */
    ck_assert_int_eq(tp_peaks_cache_path(p, sizeof p), 0);
    snprintf(want, sizeof want, "/home/u/.cache/tprof/peaks-%s", host);
    ck_assert_str_eq(p, want);
    unsetenv("XDG_CACHE_HOME");
    ck_assert_int_eq(tp_peaks_cache_path(p, sizeof p), 0);
    ck_assert_str_eq(p, want);
    unsetenv("HOME");
    ck_assert_int_eq(tp_peaks_cache_path(p, sizeof p), -1);
    setenv("HOME", "/home/u", 1);
    ck_assert_int_eq(tp_peaks_cache_path(p, 10), -1); /* too small a buffer */
}
END_TEST

/* The strings a resolve leaves in a report's machine (the report frees them in the product). */
static void machine_free(struct tp_machine *m)
{
    free(m->source);
    free(m->measured_at);
    free(m->conditions);
    free(m->busy_why);
    free(m->cpu_model);
    free(m->cpus);
}

START_TEST(test_round_trip)
{
    ck_assert_int_eq(tp_peaks_save(path, &sample), 0); /* creates $XDG_CACHE_HOME/tprof */
    FILE *f = fopen(path, "r");
    char text[1024];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    ck_assert_str_eq(text, "tprof-peaks 1\npeak_gflops 123.500\npeak_gflops_1t 61.250\n"
                           "peak_gbps 17.750\nthreads 2\nsgemm_n 2048\ntriad_bytes 134217728\n"
                           "method full\nblas /usr/lib/libblas.so.3\n"
                           "blas_config OpenBLAS 0.3.21 Zen\ndate 2026-01-01T00:00:00Z\n");
    struct tp_peaks q;
    capture_begin();
    ck_assert_int_eq(tp_peaks_load(path, &q), 0);
    ck_assert_str_eq(capture_end(), "");
    ck_assert(q.gflops == 123.5 && q.gflops_1t == 61.25 && q.gbps == 17.75);
    ck_assert(q.threads == 2 && q.sgemm_n == 2048 && q.triad_bytes == 134217728);
    ck_assert_str_eq(q.method, "full");
    ck_assert_str_eq(q.blas, sample.blas);
    ck_assert_str_eq(q.blas_config, sample.blas_config);
    ck_assert_str_eq(q.date, sample.date);

    struct tp_machine m = {0};
    char want[1100];
    snprintf(want, sizeof want, "cache:%s", path);
    ck_assert_int_eq(tp_peaks_resolve(&m, 0, 0, 1), 0); /* the cache, not a measurement */
    ck_assert(m.peak_gflops == 123.5 && m.peak_gbps == 17.75);
    ck_assert_str_eq(m.source, want);
    machine_free(&m);

    /* Control characters cannot break the one-line format; an empty string is "-". */
    struct tp_peaks odd = sample;
    snprintf(odd.blas, sizeof odd.blas, "/lib/a\nb\tc.so");
    odd.blas_config[0] = 0;
    ck_assert_int_eq(tp_peaks_save(path, &odd), 0);
    ck_assert_int_eq(tp_peaks_load(path, &q), 0);
    ck_assert_str_eq(q.blas, "/lib/a?b?c.so");
    ck_assert_str_eq(q.blas_config, "-");
}
END_TEST

START_TEST(test_env_wins)
{
    ck_assert_int_eq(tp_peaks_save(path, &sample), 0);
    struct tp_machine m = {0};
    ck_assert_int_eq(tp_peaks_resolve(&m, 100, 20, 1), 0);
    ck_assert(m.peak_gflops == 100 && m.peak_gbps == 20);
    ck_assert_str_eq(m.source, "env");
    /* One from the environment, the other from the cache. */
    char want[1100];
    snprintf(want, sizeof want, "env+cache:%s", path);
    ck_assert_int_eq(tp_peaks_resolve(&m, 50, 0, 1), 0);
    ck_assert(m.peak_gflops == 50 && m.peak_gbps == 17.75);
    ck_assert_str_eq(m.source, want);
    ck_assert_int_eq(tp_peaks_resolve(&m, -1, 9, 1), 0); /* not > 0: not a value */
    ck_assert(m.peak_gflops == 123.5 && m.peak_gbps == 9);
    ck_assert_str_eq(m.source, want);
    machine_free(&m);
}
END_TEST

START_TEST(test_absent)
{
    struct tp_peaks q;
    struct tp_machine m = {0};
    capture_begin();
    ck_assert_int_eq(tp_peaks_load(path, &q), -1);
    ck_assert_int_eq(tp_peaks_resolve(&m, 0, 0, 0), -1); /* no quick measurement allowed */
    ck_assert_str_eq(capture_end(), "");                 /* absent is not a problem worth a line */
    ck_assert_str_eq(m.source, "none");
    ck_assert(m.peak_gflops == 0 && m.peak_gbps == 0);
    /* Only one peak from the environment: kept, the other unknown. */
    ck_assert_int_eq(tp_peaks_resolve(&m, 7, 0, 0), -1);
    ck_assert_str_eq(m.source, "env");
    ck_assert(m.peak_gflops == 7 && m.peak_gbps == 0);
    machine_free(&m);
}
END_TEST

static const struct {
    const char *data, *why;
} bad[] = {
    {"tprof-peaks 1\npeak_gflops banana\npeak_gbps 3\n",
     "line 2: peak_gflops 'banana' is not valid"},
    {"tprof-peaks 1\npeak_gflops nan\npeak_gbps 3\n", "line 2: peak_gflops 'nan' is not valid"},
    {"tprof-peaks 1\npeak_gflops inf\npeak_gbps 3\n", "line 2: peak_gflops 'inf' is not valid"},
    {"tprof-peaks 1\npeak_gflops 5\npeak_gbps -3\n", "line 3: peak_gbps '-3' is not valid"},
    {"tprof-peaks 1\npeak_gflops 0\npeak_gbps 3\n", "line 2: peak_gflops '0' is not valid"},
    {"tprof-peaks 1\npeak_gflops 5x\npeak_gbps 3\n", "line 2: peak_gflops '5x' is not valid"},
    {"tprof-peaks 1\npeak_gflops 1e400\npeak_gbps 3\n", "line 2: peak_gflops '1e400' is not valid"},
    {"tprof-peaks 1\npeak_gflops 5\n", "no peak_gbps"},
    {"tprof-peaks 1\npeak_gbps 5\n", "no peak_gflops"},
    {"tprof-peaks 1\npeak_gflops 5\npeak_gbps 3\npeak_gflops 6\n",
     "line 4: peak_gflops given twice"},
    {"tprof-peaks 1\npeak_gflops 5\npeak_gbps 3", "truncated: no newline at the end"},
    {"tprof-peaks 2\npeak_gflops 5\npeak_gbps 3\n", "first line is not 'tprof-peaks 1'"},
    {"", "empty"},
    {"tprof-peaks 1\npeak_gflops 5\npeak_gbps\n", "line 3: 'peak_gbps' is not 'key value'"},
    {"tprof-peaks 1\npeak_gflops 5\npeak_gbps 3\nthreads two\n",
     "line 4: threads 'two' is not valid"},
    {"tprof-peaks 1\npeak_gflops 5\npeak_gbps 3\nmethod slow\n",
     "line 4: method 'slow' is not valid"},
    {"\x7f"
     "ELF\x02\x01\x01\n",
     "first line is not 'tprof-peaks 1'"},
    /* what the file holds is quoted escaped, once: an escape sequence, a backslash, a byte of no
     * character (a second line cannot be quoted: a line ends at the newline) */
    {"tprof-peaks 1\npeak_gflops \x1b[2J\\\xff\npeak_gbps 3\n",
     "line 2: peak_gflops '\\x1b[2J\\\\\\xff' is not valid"},
};

START_TEST(test_corrupt)
{
    char want[1200];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mkdir(dir, 0700);
        char d[1100];
        snprintf(d, sizeof d, "%s/tprof", dir);
        mkdir(d, 0700);
        write_file(path, bad[i].data, strlen(bad[i].data));
        struct tp_peaks q;
        struct tp_machine m = {0};
        capture_begin();
        int rc = tp_peaks_load(path, &q);
        const char *err = capture_end();
        snprintf(want, sizeof want,
                 "tprof: %s: not a valid peaks cache (%s); ignoring it (run "
                 "`tprof calibrate --force`)\n",
                 path, bad[i].why);
        ck_assert_msg(rc == -2, "case %zu: rc %d", i, rc);
        ck_assert_str_eq(err, want);
        ck_assert(q.gflops == 0 && q.gbps == 0);
        capture_begin();
        ck_assert_int_eq(tp_peaks_resolve(&m, 0, 0, 0), -1);
        err = capture_end();
        ck_assert_msg(lines(err) == 1 && strstr(err, bad[i].why), "case %zu: %s", i, err);
        ck_assert_str_eq(m.source, "none");
        ck_assert(m.peak_gflops == 0 && m.peak_gbps == 0);
        machine_free(&m);
    }
}
END_TEST

START_TEST(test_corrupt_binary)
{
    struct tp_peaks q;
    ck_assert_int_eq(tp_peaks_save(path, &sample), 0);
    char big[9000];
    memset(big, 'x', sizeof big);
    write_file(path, big, sizeof big);
    capture_begin();
    ck_assert_int_eq(tp_peaks_load(path, &q), -2);
    ck_assert(strstr(capture_end(), "(larger than 8192 bytes)"));
    write_file(path, "tprof-peaks 1\npeak_gflops 5\0\npeak_gbps 3\n", 41);
    capture_begin();
    ck_assert_int_eq(tp_peaks_load(path, &q), -2);
    ck_assert(strstr(capture_end(), "(contains a NUL byte)"));
    unlink(path);
    mkdir(path, 0700); /* a directory where the file should be */
    capture_begin();
    ck_assert_int_eq(tp_peaks_load(path, &q), -2);
    const char *err = capture_end();
    ck_assert_msg(lines(err) == 1 && strstr(err, "(Is a directory)"), "%s", err);
    ck_assert_int_eq(tp_peaks_save(path, &sample), -1); /* cannot replace a directory */
}
END_TEST

START_TEST(test_lenient)
{
    /* Unknown keys (a later tprof), blank lines, only the required keys: valid. */
    const char *ok = "tprof-peaks 1\n\nfuture_key something\npeak_gbps 3.5\npeak_gflops 5\n";
    char d[1100];
    snprintf(d, sizeof d, "%s/tprof", dir);
    mkdir(d, 0700);
    write_file(path, ok, strlen(ok));
    struct tp_peaks q;
    capture_begin();
    ck_assert_int_eq(tp_peaks_load(path, &q), 0);
    ck_assert_str_eq(capture_end(), "");
    ck_assert(q.gflops == 5 && q.gbps == 3.5 && q.gflops_1t == 0 && q.threads == 0);
}
END_TEST

START_TEST(test_quick_is_sane)
{
    struct tp_machine m = {0};
    /* Its duration (<= 300 ms on an idle machine) is a benchmark figure, not asserted here: on
     * a machine busy with other builds a timed assertion fails for reasons tprof cannot help. */
    ck_assert_int_eq(tp_peaks_resolve(&m, 0, 42, 1), 0);
    ck_assert_str_eq(m.source, "env+quick");
    ck_assert(m.peak_gbps == 42 && m.peak_gflops > 0.1);
    ck_assert_msg(isfinite(m.peak_gflops) && m.peak_gflops > 0.1 && m.peak_gflops < 1e5, "%g",
                  m.peak_gflops);
    /* Measured once per machine: both peaks cached, whatever the environment gave, marked as
     * the quick synthetic measurement; the next resolve reads them and measures nothing. */
    struct tp_peaks p;
    ck_assert_int_eq(tp_peaks_load(path, &p), 0);
    ck_assert_str_eq(p.method, "quick");
    ck_assert_str_eq(p.blas, "-");
    ck_assert(tp_peaks_synthetic(&p));
    ck_assert(p.gflops == m.peak_gflops && p.gbps > 0.1 && p.gbps < 1e4);
    ck_assert_int_eq(p.threads, tp_calib_cores());
    ck_assert(fabs(p.gflops - p.gflops_1t * p.threads) <= 0.001 * p.threads); /* 3 decimals */
    double g = m.peak_gflops;
    ck_assert_int_eq(tp_peaks_resolve(&m, 0, 0, 1), 0);
    char want[1100];
    snprintf(want, sizeof want, "quick-cache:%s", path);
    ck_assert_str_eq(m.source, want);
    ck_assert(m.peak_gflops == g && m.peak_gbps == p.gbps);
    machine_free(&m);
}
END_TEST

START_TEST(test_measurements)
{
    int passes = 0;
    double gbps = tp_calib_triad(0.02, 16u << 20, 2, &passes, NULL);
    ck_assert_msg(gbps > 0.1 && gbps < 1e4, "%g", gbps);
    ck_assert_int_ge(passes, 2);
    ck_assert(tp_calib_triad(0.01, 0, 1, NULL, NULL) == 0); /* nothing to stream */
    ck_assert_int_ge(tp_calib_cpus(), 1);

    struct tp_blas_run r;
    ck_assert_int_eq(tp_calib_sgemm("/nonexistent/libblas.so", 256, 1, 0.01, &r), -1);
    ck_assert_str_eq(r.error,
                     "no BLAS with cblas_sgemm could be loaded (tried /nonexistent/libblas.so)");
    ck_assert_int_eq(tp_calib_sgemm("libm.so.6", 256, 1, 0.01, &r), -1); /* loads, no cblas_sgemm */
    int rc = tp_calib_sgemm(NULL, 256, 1, 0.05, &r);
    if (rc == -1)
        return; /* no system BLAS: nothing more to measure (the shell test says so) */
    ck_assert_msg(rc == 0, "%s", r.error);
    ck_assert_msg(r.gflops > 0.1 && r.gflops < 1e5, "%g", r.gflops);
    ck_assert_int_eq(r.n, 256);
    ck_assert_int_ge(r.calls, 3);
    ck_assert(r.path[0] == '/');
    if (r.config[0]) /* OpenBLAS: it says how many threads it used */
        ck_assert_int_eq(r.threads, 1);
}
END_TEST

/* The quick triad's estimator on fixed rounds: exact figures, no timing. */
START_TEST(test_round_rate)
{
    /* Two threads, 1000 bytes each over 100 ns and 125 ns, started 5 ns apart: together for
     * 95 ns, under 90% of the second thread's 125: not counted (it ran alone for 30 ns). */
    uint64_t t0[2] = {1000, 1005}, t1[2] = {1100, 1130};
    double bytes[2] = {1000, 1000};
    ck_assert(tp_calib_round_rate(t0, t1, bytes, 2) == 0);
    /* Together for 95 ns of 100 and of 99: 10 + 1000/99 bytes per ns. */
    t1[1] = 1104;
    ck_assert(tp_calib_round_rate(t0, t1, bytes, 2) == 10.0 + 1000.0 / 99);
    /* Exactly 90% together counts; just under does not. */
    uint64_t a0[2] = {0, 10}, a1[2] = {100, 100};
    ck_assert(tp_calib_round_rate(a0, a1, bytes, 2) == 10.0 + 1000.0 / 90);
    a0[1] = 11;
    ck_assert(tp_calib_round_rate(a0, a1, bytes, 2) == 0);
    /* One thread is always together with itself; a clock that did not move counts nothing. */
    ck_assert(tp_calib_round_rate(a0, a1, bytes, 1) == 10.0);
    a1[0] = 0;
    ck_assert(tp_calib_round_rate(a0, a1, bytes, 1) == 0);
}
END_TEST

START_TEST(test_top_median)
{
    /* 40 rounds: 1..40 GB/s shuffled, plus zeros (rounds not counted). The top eighth is the
     * 5 highest, 36..40; their median is 38. */
    double v[48];
    for (int i = 0; i < 40; i++)
        v[i] = (double)((i * 17) % 40 + 1);
    for (int i = 40; i < 48; i++)
        v[i] = 0;
    ck_assert(tp_calib_top_median(v, 48) == 38.0);
    /* One freak round far above the rest does not set the figure. */
    double x[16] = {30, 31, 29, 30, 32, 31, 30, 29, 30, 31, 500, 30, 29, 31, 30, 32};
    ck_assert(tp_calib_top_median(x, 16) == 32.0); /* top eighth: 32 and 500 -> the lower */
    double y[3] = {3, 0, 7};                       /* fewer than 8: the highest */
    ck_assert(tp_calib_top_median(y, 3) == 7.0);
    double z[2] = {0, 0};
    ck_assert(tp_calib_top_median(z, 2) == 0);
}
END_TEST

/* The quiet/busy rule on fixed numbers: the thresholds hold at their edges, and each reason is
 * said exactly. */
START_TEST(test_quiet_rule)
{
    struct tp_calib_cond c;
    char why[128];
    tp_calib_cond_init(&c);
    ck_assert(tp_calib_quiet(&c, why, sizeof why)); /* nothing known: nothing against it */
    ck_assert_str_eq(why, "");
    tp_calib_cond_thread(&c, 0.90, 0.10); /* exactly at both thresholds: quiet */
    ck_assert(tp_calib_quiet(&c, why, sizeof why));
    tp_calib_cond_thread(&c, 0.95, 0.02); /* a better thread does not hide the worst */
    ck_assert(c.oncpu == 0.90 && c.runq == 0.10);
    tp_calib_cond_thread(&c, 0.52, -1);
    ck_assert(!tp_calib_quiet(&c, why, sizeof why));
    ck_assert_str_eq(why, "the measuring threads had 52% of their CPUs");
    tp_calib_cond_init(&c);
    tp_calib_cond_thread(&c, 0.97, 0.11);
    ck_assert(!tp_calib_quiet(&c, why, sizeof why));
    ck_assert_str_eq(why, "the measuring threads waited for a CPU 11% of their time");
    tp_calib_cond_init(&c);
    tp_calib_cond_thread(&c, 0.99, 0.01);
    c.threads = 2;
    c.speedup = 1.10;
    ck_assert(!tp_calib_quiet(&c, why, sizeof why));
    ck_assert_str_eq(why, "2 threads ran only 1.10 times as fast as one");
    c.speedup = 1.25;
    ck_assert(tp_calib_quiet(&c, why, sizeof why));
    c.speedup = 1.0;
    c.threads = 1; /* one thread: no speed-up to ask for */
    ck_assert(tp_calib_quiet(&c, why, sizeof why));
    /* Merging measurements keeps the worst thread, and the speed-up of the larger team. */
    struct tp_calib_cond a, b;
    tp_calib_cond_init(&a);
    tp_calib_cond_init(&b);
    tp_calib_cond_thread(&a, 0.99, 0.0);
    tp_calib_cond_thread(&b, 0.80, 0.15);
    b.threads = 4;
    b.speedup = 3.5;
    tp_calib_cond_merge(&a, &b);
    ck_assert(a.oncpu == 0.80 && a.runq == 0.15 && a.threads == 4 && a.speedup == 3.5);
    /* A thread's span from its own clocks: 30 of 100 ns on a CPU, 60 waiting. */
    struct tp_tclock t0 = {1000, 500, 7000, 1}, t1 = {1100, 530, 7060, 1};
    tp_calib_cond_init(&c);
    tp_calib_cond_span(&c, &t0, &t1);
    ck_assert(fabs(c.oncpu - 0.3) < 1e-12 && fabs(c.runq - 0.6) < 1e-12);
    t1.has_runq = 0; /* no schedstat: the delay is unknown, not 0 */
    tp_calib_cond_init(&c);
    tp_calib_cond_span(&c, &t0, &t1);
    ck_assert(c.runq == -1);
    /* Spans summed: a burst of 100 ns with 90 on a CPU and one with 10 make 50%, not 10%. */
    struct tp_tclock sum = {.has_runq = 1}, zero = {.has_runq = 1};
    struct tp_tclock b0 = {0, 0, 0, 1}, b1 = {100, 90, 10, 1}, b2 = {200, 90, 10, 1},
                     b3 = {300, 100, 100, 1};
    tp_calib_tclock_add(&sum, &b0, &b1);
    tp_calib_tclock_add(&sum, &b2, &b3);
    tp_calib_cond_init(&c);
    tp_calib_cond_span(&c, &zero, &sum);
    ck_assert(fabs(c.oncpu - 0.5) < 1e-12 && fabs(c.runq - 0.5) < 1e-12);
    /* The test suite's override (tprof_calib_oncpu) replaces what was measured. */
    oncpu_given = 0.5;
    tp_calib_cond_init(&c);
    tp_calib_cond_thread(&c, 1, 0);
    ck_assert(!tp_calib_judge(&c, why, sizeof why));
    ck_assert_str_eq(why, "the measuring threads had 50% of their CPUs");
    oncpu_given = 1;
    tp_calib_cond_thread(&c, 0.1, 0.9);
    ck_assert(tp_calib_judge(&c, why, sizeof why));
    /* None given: what was measured stands. */
    oncpu_given = -1;
    tp_calib_cond_init(&c);
    tp_calib_cond_thread(&c, 0.5, 0);
    ck_assert(!tp_calib_judge(&c, why, sizeof why));
    ck_assert_str_eq(why, "the measuring threads had 50% of their CPUs");
    tp_calib_cond_init(&c);
    tp_calib_cond_thread(&c, 1, 0);
    ck_assert(tp_calib_judge(&c, why, sizeof why));
}
END_TEST

static const struct tp_peaks measured = {.gflops = 200,
                                         .gflops_1t = 100,
                                         .gbps = 25.5,
                                         .threads = 2,
                                         .method = "quick",
                                         .blas = "-",
                                         .date = "2026-01-01T00:00:00Z",
                                         .conditions = "busy",
                                         .busy_why = "the measuring threads had 33% of their CPUs",
                                         .oncpu = 0.33,
                                         .runq = 0.66,
                                         .load_avg = 2.5,
                                         .cpu_model = "Some CPU @ 2.50GHz",
                                         .kernel = "6.1.0-test",
                                         .cpus = "0-1"};

/* The conditions round-trip; a cache without them (an earlier tprof's) reads as unknown. */
START_TEST(test_conditions_round_trip)
{
    ck_assert_int_eq(tp_peaks_save(path, &measured), 0);
    FILE *f = fopen(path, "r");
    char text[2048];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    ck_assert_str_eq(text, "tprof-peaks 1\npeak_gflops 200.000\npeak_gflops_1t 100.000\n"
                           "peak_gbps 25.500\nthreads 2\nsgemm_n 0\ntriad_bytes 0\nmethod quick\n"
                           "blas -\nblas_config -\ndate 2026-01-01T00:00:00Z\nconditions busy\n"
                           "busy_why the measuring threads had 33% of their CPUs\noncpu 0.330\n"
                           "runq 0.660\nload_avg 2.50\ncpu_model Some CPU @ 2.50GHz\n"
                           "kernel 6.1.0-test\ncpus 0-1\n");
    struct tp_peaks q;
    ck_assert_int_eq(tp_peaks_load(path, &q), 0);
    ck_assert_str_eq(q.conditions, "busy");
    ck_assert_str_eq(q.busy_why, measured.busy_why);
    ck_assert(q.oncpu == 0.33 && q.runq == 0.66 && q.load_avg == 2.5);
    ck_assert_str_eq(q.cpu_model, measured.cpu_model);
    ck_assert_str_eq(q.kernel, measured.kernel);
    ck_assert_str_eq(q.cpus, measured.cpus);
    /* Saved again, byte for byte the same. */
    ck_assert_int_eq(tp_peaks_save(path, &q), 0);
    f = fopen(path, "r");
    char again[2048];
    n = fread(again, 1, sizeof again - 1, f);
    fclose(f);
    again[n] = 0;
    ck_assert_str_eq(again, text);
    /* The file of an earlier tprof: no conditions, unknown figures -1, nothing said. */
    ck_assert_int_eq(tp_peaks_save(path, &sample), 0);
    capture_begin();
    ck_assert_int_eq(tp_peaks_load(path, &q), 0);
    ck_assert_str_eq(capture_end(), "");
    ck_assert_str_eq(q.conditions, "");
    ck_assert(q.oncpu == -1 && q.runq == -1 && q.load_avg == -1 && !q.cpu_model[0]);
    /* A value the reader does not know is a corrupt cache, as for any key. */
    const char *bad = "tprof-peaks 1\npeak_gflops 5\npeak_gbps 3\nconditions noisy\n";
    write_file(path, bad, strlen(bad));
    capture_begin();
    ck_assert_int_eq(tp_peaks_load(path, &q), -2);
    ck_assert(strstr(capture_end(), "(line 4: conditions 'noisy' is not valid)"));
}
END_TEST

/* A cache of another CPU model or of other CPUs is not used, not overwritten, and said why. */
START_TEST(test_unusable)
{
    struct tp_peaks here, other = measured;
    char why[300], want[1400];
    memset(&here, 0, sizeof here);
    tp_peaks_here(&here);
    ck_assert(here.cpus[0] && here.kernel[0]);
    snprintf(other.cpus, sizeof other.cpus, "%s", here.cpus);
    snprintf(other.cpu_model, sizeof other.cpu_model, "%s", here.cpu_model);
    tp_peaks_unusable(&other, &here, why, sizeof why);
    ck_assert_str_eq(why, "");
    snprintf(other.cpu_model, sizeof other.cpu_model, "Other CPU 9000");
    tp_peaks_unusable(&other, &here, why, sizeof why);
    snprintf(want, sizeof want, "measured on another CPU (Other CPU 9000, not %s)", here.cpu_model);
    ck_assert_str_eq(why, want);
    other.cpu_model[0] = 0; /* unknown: not a difference */
    snprintf(other.cpus, sizeof other.cpus, "0-4095");
    tp_peaks_unusable(&other, &here, why, sizeof why);
    snprintf(want, sizeof want, "measured with other CPUs allowed (0-4095, not %s)", here.cpus);
    ck_assert_str_eq(why, want);

    /* The library: not used, not overwritten; with no roofline to draw, nothing measured. */
    ck_assert_int_eq(tp_peaks_save(path, &other), 0);
    struct tp_machine m = {0};
    ck_assert_int_eq(tp_peaks_resolve(&m, 0, 0, 0), -1);
    ck_assert_str_eq(m.source, "none");
    snprintf(want, sizeof want,
             "machine peaks cached in %s are not used: measured with other CPUs allowed (0-4095, "
             "not %s); `tprof calibrate` replaces them",
             path, here.cpus);
    ck_assert_str_eq(tp_peaks_unused_line(), want);
    char note[2000];
    tp_peaks_note(m.source, note, sizeof note);
    ck_assert_str_eq(note, want);
    oncpu_given = 0.5;
    ck_assert_int_eq(tp_peaks_resolve(&m, 0, 0, 1), 0);
    oncpu_given = -1;
    ck_assert_str_eq(m.source, "quick");
    ck_assert_str_eq(m.conditions, "busy");
    ck_assert_str_eq(tp_peaks_busy_line(),
                     "machine peaks measured on a busy machine (the measuring threads had 50% of "
                     "their CPUs): not cached; run `tprof calibrate` on a quiet machine");
    struct tp_peaks q;
    ck_assert_int_eq(tp_peaks_load(path, &q), 0);
    ck_assert_str_eq(q.cpus, "0-4095"); /* still the other one */
    /* The machine's strings belong to it: a copy is deep, given peaks drop them. */
    struct tp_machine c;
    tp_peaks_machine_copy(&c, &m);
    ck_assert(c.conditions != m.conditions && !strcmp(c.conditions, "busy"));
    tp_peaks_given(&c, "command line");
    ck_assert(!c.conditions && !c.measured_at && !c.busy_why && c.load_avg == 0);
    ck_assert_str_eq(c.source, "command line");
    machine_free(&c);
    machine_free(&m);
}
END_TEST

/* The header's line: "machine peaks 200 GFLOP/s, 25.0 GB/s (" these words ")". */
static const char *words(const struct tp_report *r)
{
    static char out[512], w[512];
    tp_peaks_header(r, out, sizeof out);
    const char *pre = "machine peaks 200 GFLOP/s, 25.0 GB/s (";
    size_t n = strlen(out);
    ck_assert_msg(!strncmp(out, pre, strlen(pre)) && out[n - 1] == ')', "%s", out);
    snprintf(w, sizeof w, "%.*s", (int)(n - strlen(pre) - 1), out + strlen(pre));
    return w;
}

/* The header's words: source, age at the end of the run, conditions. */
START_TEST(test_header)
{
    struct tp_report r;
    memset(&r, 0, sizeof r);
    r.machine.peak_gflops = 200;
    r.machine.peak_gbps = 25;
    r.program.start_unix_ns = 1767225600ull * 1000000000ull; /* 2026-01-01T00:00:00Z */
    r.program.wall_ns = 3ull * 86400 * 1000000000ull;        /* ended 3 days later */
    r.machine.source = "cache:/c/peaks-h";
    ck_assert_str_eq(words(&r), "from cache:/c/peaks-h"); /* a report from before the conditions */
    r.machine.conditions = "quiet";
    r.machine.measured_at = "2026-01-01T00:00:00Z";
    ck_assert_str_eq(words(&r), "from cache:/c/peaks-h, 3 days old, quiet");
    static const struct {
        unsigned long long wall_s;
        const char *age;
    } ages[] = {{0, "0 s old"},           {89, "89 s old"},  {90, "2 min old"},
                {5399, "90 min old"},     {5400, "2 h old"}, {47 * 3600, "47 h old"},
                {48 * 3600, "2 days old"}};
    for (size_t i = 0; i < sizeof ages / sizeof ages[0]; i++) {
        char want[128];
        r.program.wall_ns = ages[i].wall_s * 1000000000ull;
        snprintf(want, sizeof want, "from cache:/c/peaks-h, %s, quiet", ages[i].age);
        ck_assert_str_eq(words(&r), want);
    }
    r.machine.measured_at = "yesterday";
    ck_assert_str_eq(words(&r), "from cache:/c/peaks-h, age unknown, quiet");
    r.machine.measured_at = "2026-01-01T00:00:00Z";
    r.machine.source = "env+quick-cache:/c/peaks-h";
    r.machine.conditions = "unknown";
    r.program.wall_ns = 3ull * 86400 * 1000000000ull;
    ck_assert_str_eq(words(&r), "from env+quick-cache:/c/peaks-h, 3 days old, unknown conditions");
    r.machine.source = "quick"; /* measured at this exit: no age */
    r.machine.conditions = "busy";
    r.machine.busy_why = "the measuring threads had 40% of their CPUs";
    ck_assert_str_eq(words(&r), "from quick, busy: the measuring threads had 40% of their CPUs");
    ck_assert_str_eq(tp_peaks_busy(&r.machine),
                     "; the peaks were measured on a busy machine, so this may be too high");
    r.machine.conditions = "quiet";
    ck_assert_str_eq(tp_peaks_busy(&r.machine), "");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("peaks");
    TCase *tc = tcase_create("peaks");
    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_cache_path);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_env_wins);
    tcase_add_test(tc, test_absent);
    tcase_add_test(tc, test_corrupt);
    tcase_add_test(tc, test_corrupt_binary);
    tcase_add_test(tc, test_lenient);
    tcase_add_test(tc, test_quick_is_sane);
    tcase_add_test(tc, test_measurements);
    tcase_add_test(tc, test_round_rate);
    tcase_add_test(tc, test_top_median);
    tcase_add_test(tc, test_quiet_rule);
    tcase_add_test(tc, test_conditions_round_trip);
    tcase_add_test(tc, test_unusable);
    tcase_add_test(tc, test_header);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
