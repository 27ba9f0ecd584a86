/* The sampled heap mode's part of the report model (TPROF_SAMPLE, track/heapsample.h): what a
 * site's estimates are made of and how far they may be off, and how the samples were drawn. */
#ifndef TPROF_ESTIMATE_H
#define TPROF_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

/* TPROF_SAMPLE: a site's figures are estimates from its sampled allocations. */
struct tp_estimate {
    uint64_t samples;      /* sampled allocations, 0: the figures are exact */
    double error_pct;      /* allocs and bytes: +- this % at 95% */
    double live_error_pct; /* live_at_exit_bytes: +- this % at 95% */
};

struct tp_sampling {
    uint64_t mean_bytes; /* TPROF_SAMPLE, 0: every block recorded */
    uint64_t seed, samples;
};

#endif
