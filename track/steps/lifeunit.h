/* The unit of a heap block's lifetime: what "freed within the step that allocated it" means when
 * the heap peak is split into persistent and transient bytes (heap.h, tp_heap_unit_end()).
 *
 * The unit is a step when there are steps: each call of the TPROF_STEP function, or the span
 * between two tprof_step() markers. Without them it is an outermost op call (an op begun with no
 * op open on its thread), until an op is seen to be the step: an op whose outermost call enclosed
 * another op and is followed by another outermost call of the same op, with none of another op
 * between (ops that enclose none, and allocator or free functions, may run between: a graph's
 * compute, between whose calls its inputs are set and its buffers freed), and is no allocator
 * or free function, is a candidate; the candidate that encloses the most op time is the unit,
 * and the outermost calls of other ops no longer end one, unless the op is later found too short
 * to time (track/ops/demote.h) or another op enclosing one runs between two of its calls (it is a
 * layer): a getter that calls another op, called twice in a row while a config is parsed, is not
 * the step, nor is the buffer-free function called as often as a graph's compute. A step belongs to the process:
 * any thread's step or outermost op call ends the unit. ops.c tells this file where steps and
 * outermost op calls begin and end. */
#ifndef TPROF_LIFEUNIT_H
#define TPROF_LIFEUNIT_H

#include <stdatomic.h>
#include <stdint.h>

#include "track/runtime.h"

/* A step of the TPROF_STEP function ended (the outermost call on its thread). */
void tp_lifeunit_step_end(void);
/* A tprof_step() marker: it ends a unit. */
void tp_lifeunit_mark(void);

/* The calling thread's outermost op call has enclosed another op. */
extern TP_TLS int tp_lifeunit_nested;
/* The last outermost op call to end: its op + 1 (0 for none), negated if it enclosed no op. */
extern _Atomic int tp_lifeunit_last_outer;
/* Op id began with no op open on this thread / an op began inside another. Only a second
 * outermost call in a row of an op that enclosed another can make it the step: the others are
 * told apart here, inline. */
void tp_lifeunit_outer_begin(int id);
static inline void tp_lifeunit_op_begin(int depth_before, int id)
{
    if (depth_before != 0) {
        tp_lifeunit_nested = 1;
    } else {
        tp_lifeunit_nested = 0;
        if (atomic_load_explicit(&tp_lifeunit_last_outer, memory_order_relaxed) == id + 1)
            tp_lifeunit_outer_begin(id);
    }
}
/* The outermost op call on this thread, of op id, ended, `ticks` long; never: the op is an
 * allocator or free function (tp_lifeunit_never_step of its name; only asked when it enclosed
 * another op). */
void tp_lifeunit_outer_end(int id, uint64_t ticks, int never);
/* A name with "alloc" or "free" in it (any case): a buffer's allocator or free function, which
 * encloses other ops and repeats but is never the step. */
int tp_lifeunit_never_step(const char *name);
/* The share of all outermost op time that the detected step's calls enclosed (0 without one). */
double tp_lifeunit_detected_share(void);
/* With no step detected: the candidate turned down only for enclosing under 10% of the outermost
 * op time, the one enclosing the most (its op id, its share in *share), or -1. */
int tp_lifeunit_turned_down(double *share);

/* Op id was demoted to a count: if it was the detected step, it is not any more. */
void tp_lifeunit_demoted(int id);

/* What the unit was, for the report. */
enum tp_unit_kind {
    TP_UNIT_NONE,     /* no unit ended: no split */
    TP_UNIT_OP_CALL,  /* an outermost op call */
    TP_UNIT_DETECTED, /* the calls of one op, found to be the step (*op) */
    TP_UNIT_STEP,     /* the TPROF_STEP function */
    TP_UNIT_MARK,     /* tprof_step() markers */
};
/* The kind, and for TP_UNIT_DETECTED the op's id in *op (-1 otherwise). */
enum tp_unit_kind tp_lifeunit_kind(int *op);

/* A forked child counts its own units. */
void tp_lifeunit_fork_child(void);

#endif
