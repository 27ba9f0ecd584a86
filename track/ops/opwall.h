/* Wall-clock time of an op across threads: the time during which at least one thread was inside
 * it (anywhere on its op stack, counted at its outermost frame), which is what the program would
 * get back if the op took no time (thread time, the sum over threads, counts the same second
 * once per thread that ran it).
 *
 * One 64-bit word per op holds the number of threads inside and the tick the busy period began,
 * so that a thread going in or out changes both at once with one compare-and-swap; the thread
 * that leaves last adds the period to the op's sum (its owner's or the other threads', track/ops/ops_table.c). The op's self wall-clock time is derived
 * from it in the report (track/ops/ops_collect.c): following when the op is on top of each thread's
 * stack would cost two more compare-and-swaps at every nested call. A word of
 * its own keeps the count and the time consistent without a lock: with two words, a thread
 * starting a period between another's last exit and its reading of the start would make that
 * reading wrong.
 *
 * Layout: the low TP_WALL_CNT_BITS bits count threads inside, the rest are the low bits of the
 * tick (the start of the busy period while the count is above 0, the end of the last one while
 * it is 0). Durations are taken modulo 2^52 ticks: exact for any busy period shorter than that
 * (about 10 days at 5 GHz). A period never starts before the last one ended (a thread may read
 * the clock before another's exit that it then follows), so periods never overlap and their sum
 * is never more than the program's time. A 4096th thread inside one op at once is not counted
 * (tp_wall_enter returns 0 and its frame is left out). */
#ifndef TPROF_OPWALL_H
#define TPROF_OPWALL_H

#include <stdatomic.h>
#include <stdint.h>

#include "track/ops/ops.h"

#define TP_WALL_CNT_BITS  12
#define TP_WALL_CNT_MASK  ((1ull << TP_WALL_CNT_BITS) - 1)
#define TP_WALL_TIME_MASK ((1ull << (64 - TP_WALL_CNT_BITS)) - 1)

/* (a - b) in the word's time bits, or 0 when a is before b. */
static inline uint64_t tp_wall_since(uint64_t a, uint64_t b)
{
    uint64_t d = (a - b) & TP_WALL_TIME_MASK;
    return d >> (63 - TP_WALL_CNT_BITS) ? 0 : d; /* half the range or more: a is before b */
}

/* A thread goes in at tick t. 1 when counted, 0 when the word is full. */
static inline int tp_wall_enter(_Atomic uint64_t *w, uint64_t t)
{
    uint64_t s = atomic_load_explicit(w, memory_order_relaxed), n;
    do {
        uint64_t cnt = s & TP_WALL_CNT_MASK;
        if (cnt == TP_WALL_CNT_MASK)
            return 0;
        if (cnt) {
            n = s + 1;
        } else {
            uint64_t last = s >> TP_WALL_CNT_BITS, now = t & TP_WALL_TIME_MASK;
            if (last && !tp_wall_since(now, last))
                now = last; /* read before the last period's end: start where it ended */
            n = (now << TP_WALL_CNT_BITS) | 1;
        }
    } while (!atomic_compare_exchange_weak_explicit(w, &s, n, memory_order_relaxed,
                                                    memory_order_relaxed));
    return 1;
}

/* A counted thread goes out at tick t. Returns the busy period when it was the last one out (the
 * caller adds it to the op's sum), else 0. */
static inline uint64_t tp_wall_leave(_Atomic uint64_t *w, uint64_t t)
{
    uint64_t s = atomic_load_explicit(w, memory_order_relaxed), n, d = 0;
    do {
        uint64_t cnt = s & TP_WALL_CNT_MASK;
        if (!cnt)
            return 0; /* not counted in (a child after fork restarted the words) */
        if (cnt > 1) {
            n = s - 1;
        } else {
            uint64_t start = s >> TP_WALL_CNT_BITS;
            d = tp_wall_since(t & TP_WALL_TIME_MASK, start);
            n = (start + d) << TP_WALL_CNT_BITS; /* where it ended: now, or its start */
        }
    } while (!atomic_compare_exchange_weak_explicit(w, &s, n, memory_order_relaxed,
                                                    memory_order_relaxed));
    return (s & TP_WALL_CNT_MASK) == 1 ? d : 0;
}

#endif
