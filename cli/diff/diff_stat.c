/* Whether a change between two runs is more than noise (cli/diff/diff.h), from what each report
 * keeps of a distribution: its count, mean and standard deviation, its median with a 95%
 * confidence interval.
 *
 * An op's time per call: Welch's interval of the difference of the two means (each run's calls
 * after warm-up, n >= 2 on both sides), with the Welch-Satterthwaite degrees of freedom, relative
 * to the mean before; the change is significant when the interval excludes 0. The calls of one
 * run are not independent draws (a cache warms, the machine's load moves), so the interval is a
 * floor on the uncertainty, not a bound: `--max-regress` asks for a change both significant and
 * past its threshold. The step's median: significant when the two medians' 95% intervals (exact
 * order statistics, computed by the run) do not overlap. And the regressions `--max-regress`
 * gates on. */
#include <math.h>
#include <stdio.h>

#include "cli/diff/diff.h"

/* Student's t at 0.975 for df degrees of freedom, from a table (the next lower df's value: a
 * slightly wider interval). */
static double t975(double df)
{
    static const struct {
        double df, t;
    } tab[] = {{1, 12.706}, {2, 4.303},  {3, 3.182},  {4, 2.776},  {5, 2.571},
               {6, 2.447},  {7, 2.365},  {8, 2.306},  {9, 2.262},  {10, 2.228},
               {15, 2.131}, {20, 2.086}, {30, 2.042}, {60, 2.000}, {120, 1.980}};
    double t = 1.960;
    for (int i = (int)(sizeof tab / sizeof tab[0]) - 1; i >= 0; i--)
        if (df < tab[i].df)
            t = tab[i].t;
        else
            break;
    return df < 1 ? tab[0].t : t;
}

void tp_diff_sig_mean(const struct tp_latency *a, const struct tp_latency *b, struct tp_dsig *s)
{
    *s = (struct tp_dsig){0};
    if (!a || !b || a->n < 2 || b->n < 2 || !(a->mean > 0) || !isfinite(b->mean) ||
        !isfinite(a->stddev) || !isfinite(b->stddev))
        return;
    double va = a->stddev * a->stddev / (double)a->n, vb = b->stddev * b->stddev / (double)b->n;
    double se = sqrt(va + vb), d = b->mean - a->mean;
    double df = se > 0 ? (va + vb) * (va + vb) /
                             (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1))
                       : 1e9;
    double h = t975(df) * se;
    s->known = 1;
    s->change = d / a->mean;
    s->lo = (d - h) / a->mean;
    s->hi = (d + h) / a->mean;
    s->significant = s->lo > 0 || s->hi < 0;
}

void tp_diff_sig_median(const struct tp_latency *a, const struct tp_latency *b, struct tp_dsig *s)
{
    *s = (struct tp_dsig){0};
    if (!a || !b || !a->n || !b->n || !a->p50)
        return;
    s->known = 1;
    s->change = ((double)b->p50 - (double)a->p50) / (double)a->p50;
    s->lo = (b->p50_ci_lo - a->p50_ci_hi) / (double)a->p50;
    s->hi = (b->p50_ci_hi - a->p50_ci_lo) / (double)a->p50;
    s->significant = b->p50_ci_lo > a->p50_ci_hi || b->p50_ci_hi < a->p50_ci_lo;
}

size_t tp_diff_regressions(const struct tp_diff *d, const struct tp_report *A,
                           const struct tp_report *B, double pct, struct tp_buf *lines)
{
    size_t n = 0;
    double t = pct / 100;
    for (size_t i = 0; i < d->nops; i++) {
        const struct oprow *r = &d->ops[i];
        /* the self time past the threshold, and the time per call changed significantly: a
         * change in calls alone is the program doing other work, not an op getting slower */
        if (!r->has_a || !r->has_b || !r->self[0] || !r->per_call.significant ||
            r->per_call.change <= 0)
            continue;
        double c = ((double)r->self[1] - (double)r->self[0]) / (double)r->self[0];
        if (c > t) {
            n++;
            if (lines)
                tp_buf_printf(lines,
                              "op %s: self time %+.1f%%, time per call %+.1f%% (95%% "
                              "interval %+.1f%% to %+.1f%%)\n",
                              r->name, 100 * c, 100 * r->per_call.change, 100 * r->per_call.lo,
                              100 * r->per_call.hi);
        }
    }
    if (d->step.significant && d->step.change > t) {
        n++;
        if (lines)
            tp_buf_printf(lines, "step median %+.1f%% (95%% intervals apart)\n",
                          100 * d->step.change);
    }
    uint64_t pa = A->memory.peak_bytes, pb = B->memory.peak_bytes;
    /* the heap's peak is counted exactly: any growth past the threshold is one */
    if (pa && pb > pa && ((double)pb - (double)pa) / (double)pa > t) {
        n++;
        if (lines)
            tp_buf_printf(lines, "heap peak %+.1f%% (%llu -> %llu bytes)\n",
                          100 * ((double)pb - (double)pa) / (double)pa, (unsigned long long)pa,
                          (unsigned long long)pb);
    }
    return n;
}
