/* The heap accounting's shared state, for its two halves only: track/heap.c (the exact mode,
 * every block in the live-block table) and track/heap_sampled.c (TPROF_SAMPLE). Nothing else
 * includes it but track/heap_fast.h, the sampled mode's inline path for the shims; the rest of
 * tprof goes through track/heap.h. */
#ifndef TPROF_HEAP_STATE_H
#define TPROF_HEAP_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common/clock.h"
#include "track/livetable.h"
#include "track/runtime.h"
#include "track/sites.h"

/* Every variable here is read on the allocation path: hidden, so that the compiler addresses it
 * directly instead of through the GOT (-fvisibility=hidden covers definitions, not declarations). */

/* 0: off; which mode is on (TPROF_SAMPLE, heapsample.h). */
enum { TRACK_OFF, TRACK_EXACT, TRACK_SAMPLED };
extern __attribute__((visibility("hidden"))) _Atomic int tp_heap_mode;
/* Set once at init, before any allocation is recorded. */
extern __attribute__((visibility("hidden"))) int (*tp_heap_op_now)(void);

/* Written on every allocation and free, by every thread: on a line of their own (the type's
 * alignment pads it to the whole line, so no other variable is placed after it), so a call moves
 * one line between cores for them, not three.
 *
 * Persistent and transient, of the peak, by lifetime: a block live at the peak is transient if it
 * is freed before the unit it belongs to ends (tp_heap_unit_end(); the unit running when it was
 * allocated, or the next one). Whether it will be is not known at the peak, so every block
 * carries a tag (livetable.h: 16 bits), and the tags of the peak's unit up to the peak are a
 * range [peak_lo, peak_hi]: `tag` moves on when a unit that used it ends, and when a block is
 * allocated after a peak that was made with it. Frees of blocks in the range while the peak's
 * unit lasts add up to the transient part; a new peak starts again. Exact while the tags of one
 * unit do not wrap (65,536 units, or peaks each followed by a smaller allocation, between a block
 * being allocated and its free in the peak's unit) and for one thread; with several, a free on
 * one thread racing a unit's end on another may fall on either side. */
struct __attribute__((aligned(64))) tp_heap_hot {
    _Atomic uint64_t live, peak, pseq;
    _Atomic uint64_t tag;              /* the tag new blocks get */
    _Atomic uint64_t peak_lo, peak_hi; /* the tags of the peak's unit up to the peak */
    _Atomic uint64_t freed;            /* of the peak, freed in its unit so far */
    _Atomic int open;                  /* the peak's unit has not ended: its frees count */
    _Atomic int tag_state;             /* who got `tag`: TAG_NONE, TAG_PEAK, TAG_USED */
};
extern __attribute__((visibility("hidden"))) struct tp_heap_hot tp_hg;

/* No block got the tag yet; the last block that got it made a peak; blocks got it, the last one
 * not making a peak. One load on an allocation (TAG_USED, mostly) says whether to do more. */
enum { TAG_NONE, TAG_PEAK, TAG_USED };

/* Written at a new peak and at a unit's end only. */
struct __attribute__((aligned(64))) tp_heap_peakinfo {
    _Atomic uint64_t peak_ns;
    _Atomic uint64_t unit_lo; /* the first tag of the unit running (or next to run) */
    _Atomic int peak_op;
    _Atomic int ended; /* the peak's unit has ended: `freed` is final */
};
extern __attribute__((visibility("hidden"))) struct tp_heap_peakinfo tp_hgp;

#define TAG_MASK ((1u << TP_LIVE_TAG_BITS) - 1)

extern __attribute__((visibility(
    "hidden"))) _Atomic uint64_t tp_heap_dropped; /* blocks the live-block table had no room for */
extern __attribute__((visibility("hidden"))) TP_TLS int tp_heap_thread_seen;

static inline void tp_heap_max_store(_Atomic uint64_t *a, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

/* Bring a site's at-peak figure up to date: `before` is its live bytes before the change just
 * made. The change comes first and this after, and the global line is likewise written before it
 * is read: a line that other cores write is then fetched once, for writing, instead of once to
 * read and again to write. */
static inline void tp_heap_site_sync(struct tp_site_rec *s, uint64_t pseq, uint64_t before)
{
    if (atomic_load_explicit(&s->seen_pseq, memory_order_relaxed) != pseq) {
        atomic_store_explicit(&s->at_peak, before, memory_order_relaxed);
        atomic_store_explicit(&s->seen_pseq, pseq, memory_order_relaxed);
    }
}

/* A new global peak, made by a block tagged `tag`: its sequence number, time, op, and the range
 * of tags whose frees make its transient part. */
static inline uint64_t tp_heap_new_peak(uint64_t tag)
{
    uint64_t pseq = atomic_fetch_add_explicit(&tp_hg.pseq, 1, memory_order_relaxed) + 1;
    atomic_store_explicit(&tp_hgp.peak_ns, tp_now_ns(), memory_order_relaxed);
    atomic_store_explicit(&tp_hgp.peak_op, tp_heap_op_now ? tp_heap_op_now() : -1,
                          memory_order_relaxed);
    atomic_store_explicit(&tp_hg.peak_lo,
                          atomic_load_explicit(&tp_hgp.unit_lo, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&tp_hg.peak_hi, tag, memory_order_relaxed);
    atomic_store_explicit(&tp_hg.freed, 0, memory_order_relaxed);
    atomic_store_explicit(&tp_hg.open, 1, memory_order_relaxed);
    atomic_store_explicit(&tp_hgp.ended, 0, memory_order_relaxed);
    atomic_store_explicit(&tp_hg.tag_state, TAG_PEAK, memory_order_relaxed);
    return pseq;
}

/* Is a block tagged t, freed now, part of the peak that its unit frees? */
static inline int tp_heap_in_peak_unit(uint32_t t)
{
    uint64_t lo = atomic_load_explicit(&tp_hg.peak_lo, memory_order_relaxed);
    uint64_t hi = atomic_load_explicit(&tp_hg.peak_hi, memory_order_relaxed);
    return ((t - lo) & TAG_MASK) <= ((hi - lo) & TAG_MASK);
}

/* Threads that ever recorded an allocation; the key whose destructor flushes what an exiting
 * thread kept to itself (made by tp_heap_init when it can be). */
extern __attribute__((visibility("hidden"))) _Atomic uint64_t tp_heap_threads_n;
extern __attribute__((visibility("hidden"))) pthread_key_t tp_heap_exit_key;
extern __attribute__((visibility("hidden"))) int tp_heap_have_exit_key;

/* A thread's first recorded allocation (heap_state.c). */
void tp_heap_thread_first(void);
/* The tag for a block that makes no peak when the tag's state is not TAG_USED (heap_state.c). */
uint64_t tp_heap_tag_first_use(uint64_t tag, int state);
/* The sampled mode's halves of a free (heap_sampled.c): any block, and a sampled block already
 * taken out of the table. */
void tp_heap_hs_free(void *p);
void tp_heap_hs_account_free(const struct tp_blk *b);
/* The sampled mode is on: find how to read a block's size, and open the shims' path for blocks
 * not sampled (heap_fast.h). */
void tp_heap_hs_setup(void);

#endif
