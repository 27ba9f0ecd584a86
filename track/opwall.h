/* Wall-clock time of an op across threads: the time during which at least one thread was inside
 * it, which is what the program would get back if the op took no time (thread time, the sum
 * over threads, counts the same second once per thread that ran it).
 *
 * One 64-bit word per op and measure (total: the op anywhere on a thread's stack, counted at its
 * outermost frame; self: the op on top of a thread's stack) holds the number of threads inside
 * and the tick the busy period began, so that a thread going in or out changes both at once with
 * one compare-and-swap; the thread that leaves last adds the period to the op's sum. A word of
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

#include "track/ops_table.h"

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

/* A counted thread goes out at tick t; the last one out adds the busy period to *sum. */
static inline void tp_wall_leave(_Atomic uint64_t *w, _Atomic uint64_t *sum, uint64_t t)
{
    uint64_t s = atomic_load_explicit(w, memory_order_relaxed), n, now = t & TP_WALL_TIME_MASK;
    do {
        uint64_t cnt = s & TP_WALL_CNT_MASK;
        if (!cnt)
            return; /* not counted in (a child after fork restarted the words) */
        if (cnt > 1) {
            n = s - 1;
        } else {
            uint64_t start = s >> TP_WALL_CNT_BITS;
            n = (tp_wall_since(now, start) ? now : start) << TP_WALL_CNT_BITS;
        }
    } while (!atomic_compare_exchange_weak_explicit(w, &s, n, memory_order_relaxed,
                                                    memory_order_relaxed));
    if ((s & TP_WALL_CNT_MASK) == 1)
        atomic_fetch_add_explicit(sum, tp_wall_since(now, s >> TP_WALL_CNT_BITS),
                                  memory_order_relaxed);
}

/* How one frame of the op stack counts: in the op's total word (its outermost frame on this
 * thread), in its self word (while it runs its own code). */
struct tp_wall_mark {
    int in_total, in_self;
};

/* Frame m of op id has just been pushed at tick t, over a frame of op below_id (marked bm;
 * NULL when none): it enters its op's words, and the frame below stops running its own code. A
 * frame over one of the same op takes its place in the self word (the op keeps running), as it
 * does not enter the total word again (recursive). */
static inline void tp_wall_push(int id, int recursive, struct tp_wall_mark *m, int below_id,
                                struct tp_wall_mark *bm, uint64_t t)
{
    struct tp_op_rec *r = &tp_op_recs[id];
    m->in_total = !recursive && tp_wall_enter(&r->in_total, t);
    if (bm && below_id == id) {
        m->in_self = bm->in_self;
        bm->in_self = 0;
        return;
    }
    if (bm && bm->in_self)
        tp_wall_leave(&tp_op_recs[below_id].in_self, &tp_op_recs[below_id].self_wall, t);
    if (bm)
        bm->in_self = 0;
    m->in_self = tp_wall_enter(&r->in_self, t);
}

/* The reverse, when frame m of op id has just been popped at tick t. */
static inline void tp_wall_pop(int id, struct tp_wall_mark *m, int below_id,
                               struct tp_wall_mark *bm, uint64_t t)
{
    struct tp_op_rec *r = &tp_op_recs[id];
    if (bm && below_id == id) {
        bm->in_self = m->in_self;
    } else {
        if (m->in_self)
            tp_wall_leave(&r->in_self, &r->self_wall, t);
        if (bm)
            bm->in_self = tp_wall_enter(&tp_op_recs[below_id].in_self, t);
    }
    if (m->in_total)
        tp_wall_leave(&r->in_total, &r->wall, t);
}

#endif
