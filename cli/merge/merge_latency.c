/* `tprof merge` of latency distributions (ops' and steps'): the histograms are not in the
 * report, so counts add up, minimum and maximum are exact, the mean is the count-weighted mean
 * and the standard deviation the exact pooled one; percentiles become count-weighted means of
 * the inputs' (an approximation the merged report's note names) and the median's confidence
 * interval the union of theirs. */
#include "cli/merge/merge.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define BIG (UINT64_MAX - 1)

void tp_lat_add(struct tp_lat_acc *a, const struct tp_latency *l)
{
    if (l->n == 0)
        return;
    double w = (double)l->n;
    if (!a->any || l->min < a->min)
        a->min = l->min;
    if (!a->any || l->max > a->max)
        a->max = l->max;
    if (!a->any || l->p50_ci_lo < a->ci_lo)
        a->ci_lo = l->p50_ci_lo;
    if (!a->any || l->p50_ci_hi > a->ci_hi)
        a->ci_hi = l->p50_ci_hi;
    a->any = 1;
    a->n += l->n;
    a->sum_mean += w * l->mean;
    a->p50 += w * (double)l->p50;
    a->p95 += w * (double)l->p95;
    a->p99 += w * (double)l->p99;
}

static uint64_t round_u64(double x)
{
    return x <= 0 ? 0 : x >= (double)BIG ? BIG : (uint64_t)(x + 0.5);
}

void tp_lat_finish(const struct tp_lat_acc *a, const struct tp_latency *const *parts, size_t np,
                   struct tp_latency *out)
{
    memset(out, 0, sizeof *out);
    if (!a->any)
        return;
    double N = (double)a->n;
    out->n = a->n;
    out->min = a->min;
    out->max = a->max;
    out->mean = a->sum_mean / N;
    out->p50 = round_u64(a->p50 / N);
    out->p95 = round_u64(a->p95 / N);
    out->p99 = round_u64(a->p99 / N);
    out->p50_ci_lo = a->ci_lo;
    out->p50_ci_hi = a->ci_hi;
    /* (N-1) s^2 = sum (n_i - 1) s_i^2 + sum n_i (mean_i - mean)^2 */
    double ss = 0;
    for (size_t i = 0; i < np; i++) {
        const struct tp_latency *l = parts[i];
        if (l->n == 0)
            continue;
        double d = l->mean - out->mean;
        ss += (double)(l->n - 1) * l->stddev * l->stddev + (double)l->n * d * d;
    }
    out->stddev = a->n > 1 && ss > 0 ? sqrt(ss / (N - 1)) : 0;
}
