/* The one clock for durations: CLOCK_MONOTONIC (never REALTIME, which jumps; PITFALLS P15).
 * Through the vDSO it costs about 25 ns, negligible next to any op worth timing. */
#ifndef TPROF_CLOCK_H
#define TPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t tp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
