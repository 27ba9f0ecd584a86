/* Machine peaks: the environment, the per-host cache (its file: report/peaks/peaks_file.c), the quick
 * measurement, and the conditions each measurement was made under. */
#include "report/peaks/peaks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/out/out.h"

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
 *   rounds, the sum of the threads' own rates, which errs high (report/peaks/calib.c).
 * Arrays of twice the last-level cache each (with 1x, part of the data still came from the
 * cache: 15% more GB/s), no smaller than 32 MiB, no larger than 128 MiB. The caller caches the
 * result per host: this runs once per machine, not at every exit. */
static void quick_measure(struct tp_peaks *p)
{
    tp_peaks_clear(p);
    size_t bytes = 2 * tp_calib_llc_bytes();
    if (bytes < (size_t)32 << 20)
        bytes = (size_t)32 << 20;
    if (bytes > (size_t)128 << 20)
        bytes = (size_t)128 << 20;
    int cores = tp_calib_cores();
    double load = tp_calib_loadavg(); /* before the measurement adds to it */
    struct tp_calib_cond c, triad;
    /* The program's own threads first: a pool spinning beside the FMA thread would make the
     * measurement busy for a reason that is gone a tenth of a second later. */
    tp_calib_wait_quiet(0.5);
    p->gflops_1t = tp_calib_fma_1t(0.03, &c);
    p->gflops = p->gflops_1t * cores;
    p->gbps = tp_calib_triad(0.2, bytes, tp_calib_cpus(), NULL, &triad);
    tp_calib_cond_merge(&c, &triad);
    p->threads = cores;
    p->triad_bytes = (long long)bytes;
    snprintf(p->method, sizeof p->method, "quick");
    tp_peaks_conditions(p, &c, load);
}

void tp_peaks_conditions(struct tp_peaks *p, struct tp_calib_cond *c, double load_avg)
{
    int quiet = tp_calib_judge(c, p->busy_why, sizeof p->busy_why);
    snprintf(p->conditions, sizeof p->conditions, "%s", quiet ? "quiet" : "busy");
    p->oncpu = c->oncpu;
    p->runq = c->runq;
    p->load_avg = load_avg;
    tp_peaks_here(p);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(p->date, sizeof p->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void tp_peaks_here(struct tp_peaks *p)
{
    tp_cpu_model(p->cpu_model, sizeof p->cpu_model);
    tp_calib_kernel(p->kernel, sizeof p->kernel);
    tp_calib_cpu_list(p->cpus, sizeof p->cpus);
}

void tp_peaks_unusable(const struct tp_peaks *cached, const struct tp_peaks *here, char *why,
                       size_t n)
{
    if (cached->cpu_model[0] && here->cpu_model[0] && strcmp(cached->cpu_model, here->cpu_model))
        snprintf(why, n, "measured on another CPU (%s, not %s)", cached->cpu_model,
                 here->cpu_model);
    else if (cached->cpus[0] && here->cpus[0] && strcmp(cached->cpus, here->cpus))
        snprintf(why, n, "measured with other CPUs allowed (%s, not %s)", cached->cpus, here->cpus);
    else if (n)
        why[0] = 0;
}

/* A string member of the report's machine, replacing what it held. */
static void set_str(char **to, const char *s)
{
    free(*to);
    *to = s && *s ? strdup(s) : NULL;
}

static void set_source(struct tp_machine *m, const char *s)
{
    set_str(&m->source, s);
}

/* When and how the peaks in p were measured, into the report (nothing for given peaks). */
static void set_conditions(struct tp_machine *m, const struct tp_peaks *p)
{
    set_str(&m->measured_at, p ? p->date : NULL);
    set_str(&m->conditions, !p ? NULL : p->conditions[0] ? p->conditions : "unknown");
    set_str(&m->busy_why, p && !strcmp(p->conditions, "busy") ? p->busy_why : NULL);
    set_str(&m->cpu_model, p ? p->cpu_model : NULL);
    set_str(&m->cpus, p ? p->cpus : NULL);
    m->load_avg = !p ? 0 : p->conditions[0] ? p->load_avg : -1;
}

void tp_peaks_machine_copy(struct tp_machine *to, const struct tp_machine *from)
{
    *to = *from;
    to->source = to->measured_at = to->conditions = to->busy_why = NULL;
    to->cpu_model = to->cpus = NULL;
    set_str(&to->source, from->source);
    set_str(&to->measured_at, from->measured_at);
    set_str(&to->conditions, from->conditions);
    set_str(&to->busy_why, from->busy_why);
    set_str(&to->cpu_model, from->cpu_model);
    set_str(&to->cpus, from->cpus);
}

void tp_peaks_given(struct tp_machine *m, const char *source)
{
    set_source(m, source);
    set_conditions(m, NULL);
}

/* What the last resolve found, for the report's notes (tp_peaks_note). */
static char busy_line[1400], unused_line[1800];
static int quick_cached;

const char *tp_peaks_busy_line(void)
{
    return busy_line;
}

const char *tp_peaks_unused_line(void)
{
    return unused_line;
}

int tp_peaks_quick_cached(void)
{
    return quick_cached;
}

/* The cache at path, if this process may use it: 0 and m filled; else -1 (absent), -2 (not
 * valid: the user's to replace), -3 (another machine's: not used, not overwritten). */
static int use_cache(struct tp_machine *m, const char *path, int from_env, struct tp_peaks *p)
{
    int loaded = tp_peaks_load(path, p);
    if (loaded < 0)
        return loaded;
    struct tp_peaks here;
    char why[300], src[1100];
    tp_peaks_clear(&here);
    tp_peaks_here(&here);
    tp_peaks_unusable(p, &here, why, sizeof why);
    if (why[0]) {
        snprintf(unused_line, sizeof unused_line,
                 "machine peaks cached in %s are not used: %s; `tprof calibrate` replaces them",
                 path, why);
        return -3;
    }
    if (m->peak_gflops <= 0)
        m->peak_gflops = p->gflops;
    if (m->peak_gbps <= 0)
        m->peak_gbps = p->gbps;
    snprintf(src, sizeof src, "%s%scache:%s", from_env ? "env+" : "",
             tp_peaks_synthetic(p) ? "quick-" : "", path);
    set_source(m, src);
    set_conditions(m, p);
    if (!strcmp(p->conditions, "busy"))
        snprintf(busy_line, sizeof busy_line,
                 "machine peaks cached in %s were measured on a busy machine (%s); run `tprof "
                 "calibrate` on a quiet machine",
                 path, p->busy_why);
    return 0;
}

int tp_peaks_resolve(struct tp_machine *m, double env_gflops, double env_gbps, int allow_quick)
{
    char path[1024];
    struct tp_peaks p;
    int from_env = env_gflops > 0 || env_gbps > 0;
    busy_line[0] = unused_line[0] = 0;
    quick_cached = 0;
    m->peak_gflops = env_gflops > 0 ? env_gflops : 0;
    m->peak_gbps = env_gbps > 0 ? env_gbps : 0;
    set_conditions(m, NULL);
    if (env_gflops > 0 && env_gbps > 0) {
        set_source(m, "env");
        return 0;
    }
    /* Only a cache with no file yet is written: one not valid is the user's to replace, one of
     * another machine is not ours. */
    int loaded =
        tp_peaks_cache_path(path, sizeof path) == 0 ? use_cache(m, path, from_env, &p) : -2;
    if (loaded == 0)
        return 0;
    if (allow_quick) {
        quick_measure(&p);
        if (p.gflops > 0 && p.gbps > 0) {
            /* Both peaks, whatever the environment gave: the cache is the machine's. A busy
             * measurement is cached too, marked busy (any `tprof calibrate` replaces it): measured
             * again at every exit instead, it would cost every run and move with the load. */
            tp_peaks_as_cached(&p);
            int saved = quick_cached = loaded == -1 && tp_peaks_save(path, &p) == 0;
            if (loaded == -1 && !saved) {
                char shown_path[1200];
                fprintf(stderr, "tprof: cannot write %s: %s; the quick peaks are not cached\n",
                        tp_escape_str(shown_path, sizeof shown_path, path), strerror(errno));
            }
            if (!strcmp(p.conditions, "busy"))
                snprintf(busy_line, sizeof busy_line,
                         "machine peaks measured on a busy machine (%s): %s; run `tprof "
                         "calibrate` on a quiet machine",
                         p.busy_why, saved ? "cached marked busy" : "not cached");
            if (m->peak_gflops <= 0)
                m->peak_gflops = p.gflops;
            if (m->peak_gbps <= 0)
                m->peak_gbps = p.gbps;
            set_source(m, from_env ? "env+quick" : "quick");
            set_conditions(m, &p);
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
