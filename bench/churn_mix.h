/* The random sequence and the size mix of bench/churn, shared with bench/costs so that the two
 * measure the same allocations. */
#ifndef TPROF_BENCH_CHURN_MIX_H
#define TPROF_BENCH_CHURN_MIX_H

#include <stddef.h>
#include <stdint.h>

/* xorshift64: fixed, so every run does the same work. */
static inline uint64_t churn_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Log-uniform in [2^lg_min, 2^lg_max): a power of two picked uniformly, then a uniform offset
 * inside that octave. */
static inline size_t churn_size(uint64_t r, unsigned lg_min, unsigned lg_max)
{
    unsigned e = lg_min + (unsigned)((r >> 8) % (lg_max - lg_min));
    size_t base = (size_t)1 << e;
    return base + (size_t)((r >> 32) & (base - 1));
}

#endif
