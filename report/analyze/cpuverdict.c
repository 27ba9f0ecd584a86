/* The CPU verdict: when a program's threads spend a large part of the time they could run
 * waiting for a CPU, every op's time is stretched by the wait, and advice about the op (its
 * efficiency, its bound) misleads: the first thing to say is that the CPUs were missing. The
 * figures are the kernel's (schedstat: time on a CPU, time runnable in the run queue), summed
 * over the program's threads; reports without them get no line. The reason it gives must fit
 * the figures: one busy thread with two CPUs allowed was told of "more busy threads than CPUs",
 * and darknet, which loads neither, of OPENBLAS_NUM_THREADS and OMP_NUM_THREADS. So the busy
 * threads are held against the CPUs (more: fewer threads, by the settings of the runtimes
 * loaded; no more: the other load), and only loaded runtimes' settings are named. */
#include "report/analyze/analyze.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/fields.h"
#include "report/units.h"

#define F_OTHER(f, d)
#define F_STR(f, d)      free(s->f);
#define F_I64            F_OTHER
#define F_U64            F_OTHER
#define F_BOOL           F_OTHER
#define FREE(KIND, f, d) F_##KIND(f, d)

static int have_runq(const struct tp_program *p)
{
    return p->cpu_source && !strcmp(p->cpu_source, "schedstat");
}

double tp_cpu_wait_share(const struct tp_program *p)
{
    double runnable = (double)p->cpu_ns + (double)p->runq_ns;
    if (!have_runq(p) || !(runnable > 0))
        return 0;
    return (double)p->runq_ns / runnable;
}

int tp_cpu_wait_rule(const struct tp_program *p)
{
    return have_runq(p) && p->runq_ns >= TP_CPU_WAIT_MIN_NS &&
           tp_cpu_wait_share(p) >= TP_CPU_WAIT_SHARE;
}

double tp_cpus_available(const struct tp_program *p)
{
    double n = (double)p->cpus_allowed;
    if (p->cpu_quota > 0 && isfinite(p->cpu_quota) && (n == 0 || p->cpu_quota < n))
        n = p->cpu_quota;
    return n;
}

/* "0.6", "0.04", "2": a count of CPUs, to one decimal (two below 0.1), whole ones bare. */
static void cpus_str(double v, char *out, size_t n)
{
    if (!isfinite(v) || v < 0)
        v = 0;
    if (fabs(v - floor(v + 0.5)) < 0.005)
        snprintf(out, n, "%.0f", floor(v + 0.5));
    else
        snprintf(out, n, v < 0.095 ? "%.2f" : "%.1f", v);
}

int tp_cpu_header(const struct tp_program *p, char *out, size_t n)
{
    if (!p->cpus_allowed)
        return 0;
    char quota[64] = "", on[32], wait[32], pct[32];
    if (p->cpu_quota > 0)
        snprintf(quota, sizeof quota, " (cgroup cpu.max: %.2f)", p->cpu_quota);
    tp_fmt_ns(p->cpu_ns, on, sizeof on);
    int len = snprintf(out, n, "CPUs allowed %llu%s, load average %.2f; threads on a CPU %s",
                       (unsigned long long)p->cpus_allowed, quota, p->load_avg, on);
    if (have_runq(p) && len > 0 && (size_t)len < n) {
        tp_fmt_ns(p->runq_ns, wait, sizeof wait);
        tp_fmt_pct(tp_cpu_wait_share(p), 8, pct, sizeof pct);
        snprintf(out + len, n - (size_t)len, ", waiting for one %s (%s of their runnable time)",
                 wait, pct);
    }
    return 1;
}

size_t tp_cpu_busy_threads(const struct tp_report *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nthreads; i++) {
        const struct tp_thread *t = &r->threads[i];
        n += t->wall_ns &&
             (double)t->cpu_ns + (double)t->runq_ns >= TP_CPU_BUSY_SHARE * (double)t->wall_ns;
    }
    return n;
}

/* In the order the advice names them. */
static const struct {
    const char *name, *setting;
} runtimes[] = {{"openblas", "OPENBLAS_NUM_THREADS"},
                {"openmp", "OMP_NUM_THREADS"},
                {"mkl", "MKL_NUM_THREADS"}};

/* Whether the space-separated list has the word w. */
static int has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; p && (p = strstr(p, w)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
            return 1;
    return 0;
}

/* "fewer threads (OMP_NUM_THREADS)": the settings of the thread pools the process loaded, none
 * named when it loaded none (a setting of a runtime it does not load changes nothing). */
static void fewer_threads(const struct tp_program *p, struct tp_buf *t)
{
    tp_buf_puts(t, "fewer threads");
    int k = 0;
    for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; i++)
        if (has_word(p->thread_runtimes, runtimes[i].name))
            tp_buf_printf(t, "%s%s", k++ ? ", " : " (", runtimes[i].setting);
    if (k)
        tp_buf_putc(t, ')');
}

void tp_cpu_verdict(struct tp_report *r)
{
    struct tp_verdict *v = &r->verdict;
    const struct tp_program *p = &r->program;
    free(v->cpu_text);
    v->cpu_text = NULL;
    v->cpu_wait_share = tp_cpu_wait_share(p);
    if (!tp_cpu_wait_rule(p))
        return;
    char got[32], avail[32];
    double wall = (double)p->wall_ns, n = tp_cpus_available(p);
    size_t busy = tp_cpu_busy_threads(r);
    cpus_str(wall > 0 ? (double)p->cpu_ns / wall : 0, got, sizeof got);
    cpus_str(n, avail, sizeof avail);
    const char *cpus = !strcmp(avail, "1") ? "CPU" : "CPUs";
    struct tp_buf t;
    tp_buf_init(&t);
    int merged = r->merged_processes > 1;
    if (merged) {
        /* Merged processes may have run one after another: their CPU time over the longest
         * one's wall time is no count of CPUs, so only the wait is said. */
        tp_buf_printf(&t, "CPU: the threads of the %llu processes spent",
                      (unsigned long long)r->merged_processes);
    } else {
        tp_buf_printf(&t, "CPU: the process got %s", got);
        if (n > 0)
            tp_buf_printf(&t, " of the %s %s it may use", avail, cpus);
        else
            tp_buf_puts(&t, " CPUs on average");
        tp_buf_puts(&t, ", and its threads spent");
    }
    tp_buf_printf(&t, " %.0f%% of their runnable time waiting for a CPU. ",
                  100 * v->cpu_wait_share);
    if (merged || !(n > 0)) {
        /* processes perhaps on different machines, or CPUs unknown: no count to compare */
        tp_buf_printf(&t,
                      "Other load on these CPUs (load average %.2f) or more busy threads than "
                      "CPUs (busy threads, those runnable at least half their time: %zu) kept "
                      "them waiting, and the op and step times in this report include that wait: ",
                      p->load_avg, busy);
        fewer_threads(p, &t);
        tp_buf_puts(&t, " or a quieter machine give it back.");
    } else if ((double)busy > n) {
        tp_buf_printf(&t,
                      "Its busy threads (those runnable at least half their time: %zu) are more "
                      "than the %s %s it may use: they waited for each other or for other load "
                      "on these CPUs (load average %.2f), and the op and step times in this "
                      "report include that wait: ",
                      busy, avail, cpus, p->load_avg);
        fewer_threads(p, &t);
        tp_buf_puts(&t, " or a quieter machine give it back.");
    } else {
        /* no more busy threads than CPUs: fewer threads give nothing back */
        tp_buf_printf(&t,
                      "Its busy threads (those runnable at least half their time: %zu) are no "
                      "more than the %s %s it may use: other load on these CPUs (load average "
                      "%.2f) kept them waiting, and the op and step times in this report include "
                      "that wait: less other load on these CPUs (an idle machine, or taskset to "
                      "CPUs nothing else runs on) gives it back.",
                      busy, avail, cpus, p->load_avg);
    }
    v->cpu_text = tp_buf_ok(&t) ? strdup(tp_buf_str(&t)) : NULL;
    tp_buf_free(&t);
}
