/* The unit of a heap block's lifetime (lifeunit.h): which steps or op calls end one. */
#include "track/lifeunit.h"

#include <stdatomic.h>

#include "track/heap.h"

static _Atomic int mode = TP_UNIT_NONE; /* what ends a unit: none yet, or a tp_unit_kind */
static _Atomic int detected = -1;       /* the op found to be the step */
static _Atomic int ended; /* a unit ended: a flag, not a count (no locked add per op call) */
_Atomic int tp_lifeunit_last_outer; /* lifeunit.h */
/* How long the last outermost op call took (tp_lifeunit_last_outer is which); the longest call
 * of the detected step that enclosed another op. */
static _Atomic uint64_t last_ticks, detected_ticks;
TP_TLS int tp_lifeunit_nested;

static void unit_end(int kind)
{
    int m = atomic_load_explicit(&mode, memory_order_relaxed);
    if (m != kind)
        atomic_store_explicit(&mode, kind, memory_order_relaxed);
    if (!atomic_load_explicit(&ended, memory_order_relaxed))
        atomic_store_explicit(&ended, 1, memory_order_relaxed);
    tp_heap_unit_end();
}

/* With a step function or markers, op calls end nothing. */
static int steps_rule(void)
{
    return tp_cfg.step || atomic_load_explicit(&mode, memory_order_relaxed) == TP_UNIT_MARK;
}

void tp_lifeunit_step_end(void)
{
    unit_end(TP_UNIT_STEP);
}

void tp_lifeunit_mark(void)
{
    /* Every marker ends a unit, the first too: a marker at the end of each iteration ends the
     * first, one at the start ends what came before the loop (its blocks outlive it or not,
     * either way). Before the first marker, op calls ended units: nothing says markers will
     * come. */
    if (!tp_cfg.step)
        unit_end(TP_UNIT_MARK);
}

void tp_lifeunit_outer_begin(int id)
{
    tp_lifeunit_nested = 0;
    if (steps_rule() || id < 0 ||
        atomic_load_explicit(&tp_lifeunit_last_outer, memory_order_relaxed) != id + 1)
        return;
    /* Two outermost calls of one op in a row, the first enclosing another op: nothing else runs
     * between its calls, it is the step. (The first op to enclose another is not enough: that
     * is a layer, between whose calls other layers run.) A later such op whose call took longer
     * than any of the step's replaces it: a getter that calls another op, called twice in a row
     * while a config is parsed, is seen first, and the loop that does the work after it. */
    uint64_t took = atomic_load_explicit(&last_ticks, memory_order_relaxed);
    int d = atomic_load_explicit(&detected, memory_order_relaxed);
    if (d == id || (d >= 0 && took <= atomic_load_explicit(&detected_ticks, memory_order_relaxed)))
        return;
    if (atomic_compare_exchange_strong(&detected, &d, id)) {
        atomic_store_explicit(&detected_ticks, took, memory_order_relaxed);
        atomic_store(&mode, TP_UNIT_DETECTED);
    }
}

void tp_lifeunit_outer_end(int id, uint64_t ticks)
{
    if (steps_rule())
        return;
    int last = tp_lifeunit_nested ? id + 1 : -(id + 1);
    if (tp_lifeunit_nested)
        atomic_store_explicit(&last_ticks, ticks, memory_order_relaxed);
    if (atomic_load_explicit(&tp_lifeunit_last_outer, memory_order_relaxed) != last)
        atomic_store_explicit(&tp_lifeunit_last_outer, last, memory_order_relaxed);
    int d = atomic_load_explicit(&detected, memory_order_relaxed);
    if (d == id && tp_lifeunit_nested &&
        ticks > atomic_load_explicit(&detected_ticks, memory_order_relaxed))
        atomic_store_explicit(&detected_ticks, ticks, memory_order_relaxed);
    if (d < 0)
        unit_end(TP_UNIT_OP_CALL);
    else if (id == d)
        unit_end(TP_UNIT_DETECTED);
}

void tp_lifeunit_demoted(int id)
{
    int d = id;
    if (id < 0 || !atomic_compare_exchange_strong(&detected, &d, -1))
        return;
    /* Outermost op calls end units again until another op is seen to be the step. */
    atomic_store(&mode, TP_UNIT_OP_CALL);
    atomic_store_explicit(&detected_ticks, 0, memory_order_relaxed);
    atomic_store_explicit(&tp_lifeunit_last_outer, 0, memory_order_relaxed);
}

enum tp_unit_kind tp_lifeunit_kind(int *op)
{
    int m = atomic_load(&mode);
    *op = m == TP_UNIT_DETECTED ? atomic_load(&detected) : -1;
    if (atomic_load(&ended) == 0)
        return TP_UNIT_NONE;
    return (enum tp_unit_kind)m;
}

void tp_lifeunit_fork_child(void)
{
    atomic_store(&ended, 0);
}
