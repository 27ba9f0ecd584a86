/* The sampled heap's part of the report model: what a site's estimates are made of and how far
 * they may be off, and how the samples were drawn. tprof no longer records the heap that way
 * (TPROF_SAMPLE is ignored), but the reports it wrote then still read, render and merge. */
#ifndef TPROF_ESTIMATE_H
#define TPROF_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

/* A site's figures are estimates from its sampled allocations. */
struct tp_estimate {
    uint64_t samples;      /* sampled allocations, 0: the figures are exact */
    double error_pct;      /* allocs and bytes: +- this % at 95% */
    double live_error_pct; /* live_at_exit_bytes: +- this % at 95% */
};

struct tp_sampling {
    uint64_t mean_bytes; /* 0: every block recorded */
    uint64_t seed, samples;
};

/* d, an estimate of dbytes allocated and dlive live at exit, takes in s (sbytes, slive): the
 * same site in another process. The variances add, the errors do not. */
static inline double tp_estimate_var(double pct, uint64_t est)
{
    double sd = pct / 100 / 1.96 * (double)est;
    return sd * sd;
}
static inline void tp_estimate_add(struct tp_estimate *d, uint64_t dbytes, uint64_t dlive,
                                   const struct tp_estimate *s, uint64_t sbytes, uint64_t slive)
{
    double v = tp_estimate_var(d->error_pct, dbytes) + tp_estimate_var(s->error_pct, sbytes);
    double lv =
        tp_estimate_var(d->live_error_pct, dlive) + tp_estimate_var(s->live_error_pct, slive);
    double b = (double)dbytes + (double)sbytes, l = (double)dlive + (double)slive;
    d->samples += s->samples;
    d->error_pct = b > 0 ? 100 * 1.96 * __builtin_sqrt(v) / b : 0;
    d->live_error_pct = l > 0 ? 100 * 1.96 * __builtin_sqrt(lv) / l : 0;
}

#endif
