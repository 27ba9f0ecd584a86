/* The CPU verdict: when a program's threads spend a large part of the time they could run
 * waiting for a CPU, every op's time is stretched by the wait, and advice about the op (its
 * efficiency, its bound) misleads: the first thing to say is that the CPUs were missing. The
 * figures are the kernel's (schedstat: time on a CPU, time runnable in the run queue), summed
 * over the program's threads; reports without them get no line. */
#include "report/cpuverdict.h"

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

void tp_threads_free(struct tp_report *r)
{
    for (size_t i = 0; i < r->nthreads; i++) {
        struct tp_thread *s = &r->threads[i];
        TP_THREAD_FIELDS(FREE)
    }
    free(r->threads);
    r->threads = NULL;
    r->nthreads = 0;
}

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
    cpus_str(wall > 0 ? (double)p->cpu_ns / wall : 0, got, sizeof got);
    struct tp_buf t;
    tp_buf_init(&t);
    if (r->merged_processes > 1) {
        /* Merged processes may have run one after another: their CPU time over the longest
         * one's wall time is no count of CPUs, so only the wait is said. */
        tp_buf_printf(&t, "CPU: the threads of the %llu processes spent",
                      (unsigned long long)r->merged_processes);
    } else {
        tp_buf_printf(&t, "CPU: the process got %s", got);
        if (n > 0) {
            cpus_str(n, avail, sizeof avail);
            tp_buf_printf(&t, " of the %s CPU%s it may use", avail, !strcmp(avail, "1") ? "" : "s");
        } else {
            tp_buf_puts(&t, " CPUs on average");
        }
        tp_buf_puts(&t, ", and its threads spent");
    }
    tp_buf_printf(&t,
                  " %.0f%% of their runnable time waiting for a CPU. "
                  "Other load on these CPUs (load average %.2f) or more busy threads than CPUs "
                  "(%zu thread%s) kept them waiting, and the op and step times in this report "
                  "include that wait: fewer threads (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS) or a "
                  "quieter machine give it back.",
                  100 * v->cpu_wait_share, p->load_avg, r->nthreads, r->nthreads == 1 ? "" : "s");
    v->cpu_text = tp_buf_ok(&t) ? strdup(tp_buf_str(&t)) : NULL;
    tp_buf_free(&t);
}
