/* How the malloc shims (preload/hook/hook_malloc.c) time the allocator: which calls are timed and
 * how much of the estimate each timed call stands for. Included by hook_malloc.c only. */
#ifndef TPROF_ALLOC_TIME_H
#define TPROF_ALLOC_TIME_H

#include <stdint.h>

#include "common/clock.h"
#include "track/heap/heap.h"
#include "track/runtime.h"

/* The allocator's own time is an estimate (memory.alloc_ns_method in the report says how):
 *  - a call for TP_ALLOC_BIG bytes or more (glibc maps it, or copies that much in realloc) is
 *    timed every time and counts once: rare and slow, so one in 16 of them would be all noise;
 *  - of the other calls, one in CLOCK_EVERY per thread is timed and counts CLOCK_EVERY times:
 *    reading the TSC twice on every call cost 10-15 ns per malloc/free pair;
 *  - a timed small call that took TP_ALLOC_LONG_TICKS or more counts once. The allocator's own
 *    work on a small block is well under a microsecond, so such a call was preempted, or blocked
 *    (a lock another thread held, a page fault). Counted 16 times, each time slice of 3 ms that a
 *    busy CPU took in a timed call made 48 ms; with an OpenMP worker spinning on the main
 *    thread's CPU that read as seconds "inside the allocator" where its CPU time was
 *    milliseconds. Counted once, the call adds the wall time it really spent inside and no more;
 *    the untimed calls' waits are not counted (the figure leans towards the allocator's CPU). */
#define CLOCK_EVERY 16
static TP_TLS unsigned clock_tick;
static inline int clock_this_call(void)
{
    return (++clock_tick & (CLOCK_EVERY - 1)) == 0;
}

/* A timed call's ticks as the estimate's share (above). */
static inline uint64_t weigh_small(uint64_t ticks)
{
    return tp_likely(ticks < TP_ALLOC_LONG_TICKS) ? ticks * CLOCK_EVERY : ticks;
}

/* The shared tail of every allocating shim: time the real call (sampled unless n is big),
 * record, keep errno. */
#define TIMED(call, result, n)                                                                     \
    do {                                                                                           \
        if (tp_likely((n) < TP_ALLOC_BIG)) {                                                       \
            if (!clock_this_call()) {                                                              \
                result = call;                                                                     \
                elapsed = 0;                                                                       \
                break;                                                                             \
            }                                                                                      \
            uint64_t t0_ = tp_ticks();                                                             \
            result = call;                                                                         \
            elapsed = weigh_small(tp_ticks() - t0_);                                               \
            break;                                                                                 \
        }                                                                                          \
        uint64_t t0_ = tp_ticks();                                                                 \
        result = call;                                                                             \
        elapsed = tp_ticks() - t0_;                                                                \
    } while (0)

#endif
