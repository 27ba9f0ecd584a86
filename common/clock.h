/* Clocks. Durations come from CLOCK_MONOTONIC (never REALTIME, which jumps when the clock is set), or, on
 * the hot paths, from the TSC when the CPU says it is invariant (constant_tsc and nonstop_tsc):
 * rdtsc costs a few ns where clock_gettime costs 25-50 ns, and the malloc shims read the clock
 * twice per call. Ticks become nanoseconds through a ratio measured against CLOCK_MONOTONIC over
 * the whole run. */
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

extern int tp_clock_use_tsc;

/* Decide whether the TSC can be used, and take the first calibration point. Idempotent. */
void tp_clock_init(void);
/* Ticks to nanoseconds (ticks are nanoseconds when the TSC is not used). */
uint64_t tp_ticks_to_ns(uint64_t ticks);
/* A monotonic tick count for measuring short durations cheaply. */
static inline uint64_t tp_ticks(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(tp_clock_use_tsc, 1)) {
        uint32_t lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        return ((uint64_t)hi << 32) | lo;
    }
#endif
    return tp_now_ns();
}

#endif
