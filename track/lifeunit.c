/* The unit of a heap block's lifetime (lifeunit.h): which steps or op calls end one. */
#include "track/lifeunit.h"

#include <stdatomic.h>

#include "track/heap.h"
#include "track/series.h"

static _Atomic int mode = TP_UNIT_NONE; /* what ends a unit: none yet, or a tp_unit_kind */
static _Atomic int detected = -1;       /* the op found to be the step */
static _Atomic int ended; /* a unit ended: a flag, not a count (no locked add per op call) */
/* The last outermost op call to end: its op + 1 (0 for none), negated if it enclosed no op. */
static _Atomic int last_outer;
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

void tp_lifeunit_step_end(int op, uint64_t t)
{
    unit_end(TP_UNIT_STEP);
    tp_series_heap(op, t);
}

void tp_lifeunit_mark(int op, uint64_t t)
{
    /* Every marker ends a unit, the first too: a marker at the end of each iteration ends the
     * first, one at the start ends what came before the loop (its blocks outlive it or not,
     * either way). Before the first marker, op calls ended units: nothing says markers will
     * come. */
    if (!tp_cfg.step)
        unit_end(TP_UNIT_MARK);
    tp_series_heap(op, t);
}

void tp_lifeunit_outer_begin(int id)
{
    tp_lifeunit_nested = 0;
    if (steps_rule() || atomic_load_explicit(&detected, memory_order_relaxed) >= 0)
        return;
    /* Two outermost calls of one op in a row, the first enclosing another op: nothing else runs
     * between its calls, it is the step. (The first op to enclose another is not enough: that
     * is a layer, between whose calls other layers run.) */
    if (id >= 0 && atomic_load_explicit(&last_outer, memory_order_relaxed) == id + 1) {
        int none = -1;
        if (atomic_compare_exchange_strong(&detected, &none, id))
            atomic_store(&mode, TP_UNIT_DETECTED);
    }
}

static void outer_end(int id)
{
    int last = tp_lifeunit_nested ? id + 1 : -(id + 1);
    if (atomic_load_explicit(&last_outer, memory_order_relaxed) != last)
        atomic_store_explicit(&last_outer, last, memory_order_relaxed);
    int d = atomic_load_explicit(&detected, memory_order_relaxed);
    if (d < 0)
        unit_end(TP_UNIT_OP_CALL);
    else if (id == d)
        unit_end(TP_UNIT_DETECTED);
}

void tp_lifeunit_outer_end(int id, uint64_t t)
{
    if (!steps_rule())
        outer_end(id);
    tp_series_heap(id, t); /* after the unit's end: the point's persistent floor counts it */
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
