/* Ops too short to time: after its first calls, an op whose calls are too short for the cost of
 * timing them (a few hundred instructions per call, which land in its callers) to stay small is
 * demoted to a count. Its later calls are counted, not timed; their time is its caller's (the
 * enclosing op's self time), the cheap hook that counts them is taken out like any non-op hook
 * (tp_cyg_hooks), and the report lists each demoted op (ops[].demoted) with its exact calls.
 *
 * The rule: of an op's first TP_DEMOTE_CALLS + 1 calls, the first is left out (cold caches, lazy
 * binding), and if more than half of the other TP_DEMOTE_CALLS (their median) took less than
 * TPROF_DEMOTE times the cost of one hook, the op is demoted; the median of those calls is the
 * note's time per call. That cost is TPROF_HOOK_NS, else the lowest measured on this host
 * (report/hookcache.h) when it is lower than this run's measurement, else this run's: one run's
 * measurement moves with the load, and the line with it, across the ops near it; the host's
 * lowest does not. Only the line uses the host's figure: the hooks taken out of the ops' times
 * are this run's (tp_cyg_hook_cost_fp), the cost the program paid.
 * TPROF_DEMOTE=0, or TPROF_HOOK_NS=0, turns it off. */
#ifndef TPROF_DEMOTE_H
#define TPROF_DEMOTE_H

#include <stdatomic.h>
#include <stdint.h>

#include "track/runtime.h"

struct tp_report;

#define TP_DEMOTE_CALLS 64
/* Ops that can be demoted; slot 0 is a sink that non-op hooks may count into. */
#define TP_DEMOTE_SLOTS 256

/* Per thread, calls counted per demote slot: the -finstrument-functions hooks and the PLT's
 * counting path add to it directly (one increment, no atomic, no cache line shared between
 * threads). Read for the report once the thread registered (tp_demote_thread), which sets
 * tp_demote_counting (cleared when the thread ends). */
extern TP_TLS uint64_t tp_demote_tcount[TP_DEMOTE_SLOTS];
extern TP_TLS uint8_t tp_demote_counting;
/* Op id → its demote slot, 0 while timed (tp_ops_id_limit() entries; NULL when off). */
extern _Atomic uint8_t *tp_demote_slot_of;

/* After tp_ops_init(). */
void tp_demote_init(void);
/* The cost of one hook is known (ns; given: TPROF_HOOK_NS, else measured, after
 * tp_cyg_hook_cost_fp is set): the line is drawn, from the host's cache when that is lower. Once,
 * before any call is judged. */
void tp_demote_hook_known(double ns, int given);
/* At the process's end: this run's measurement into the host's cache, when it is lower than what
 * the cache holds (or the cache has none for this CPU). */
void tp_demote_keep_best(void);
/* One call of op id ended, `ticks` long (tp_op_end's result: TP_OP_NO_TIME is ignored). Called
 * by the hooks that can demote (-finstrument-functions, PLT). */
void tp_demote_observe(int id, uint64_t ticks);
/* The demote slot of op id, 0 while it is timed. */
static inline int tp_demote_slot(int id)
{
    _Atomic uint8_t *v = tp_demote_slot_of;
    return v && id >= 0 ? atomic_load_explicit(&v[id], memory_order_relaxed) : 0;
}
/* This thread's tp_demote_tcount is read for the report from now on (and added to the totals
 * when the thread ends). Before a thread counts its first call. */
void tp_demote_thread(void);
/* One call counted in demote slot `slot` by this thread, registered first if need be, and taken
 * out of the enclosing op like a hook (the PLT's slow way to count). */
void tp_demote_count_call(int slot);
/* Calls of op id counted, not timed, so far. */
uint64_t tp_demote_counted(int id);
/* The ticks of op id's counted calls, estimated (0 while it is timed): their number times the
 * median of its judged calls under the line, and no more than the self time of the ops they ran
 * in when every one of them ran in an op (*bounded: 1 when that bound was taken). */
uint64_t tp_demote_est_ticks(int id, int *bounded);
/* Op boundaries say which op the counted calls ran in (tp_ops_boundary_hook, set once an op is
 * demoted): the calls counted on this thread since its last boundary ran in op top (-1: none). */
void tp_demote_boundary(int top);
/* A note per demoted op, and the cost of one hook (program.hook_ns) that the advice on them
 * counts. */
void tp_demote_collect(struct tp_report *r);

#endif
