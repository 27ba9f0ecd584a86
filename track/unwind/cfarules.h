/* The CFA rules of return addresses, for the malloc shims' stack walk (unwind.c): each return
 * address's rule read once from its module's .eh_frame (track/unwind/ehframe.h; libdw, track/sym/dwlib.c,
 * for what that reader leaves) and cached in a table that all threads read without a lock. Also the walker's life cycle: off for good, after a
 * dlclose, across fork. */
#ifndef TPROF_CFARULES_H
#define TPROF_CFARULES_H

#include <stdatomic.h>
#include <stdint.h>

#include "track/unwind/cfatable.h"
#include "track/runtime.h"

/* Added to an interrupted pc (the frame under a signal trampoline) to ask for the rule at pc
 * itself, not at the call before it. No user-space address has the bit. */
#define TP_CFA_KEY_EXACT ((uintptr_t)1 << 63)

/* A rule not in the table yet, read and kept (see tp_cfa_rule_of). */
const struct tp_cfa_rule *tp_cfa_rule_read(uintptr_t key, uintptr_t origin);

/* The rule for a return address (or pc | TP_CFA_KEY_EXACT), or NULL where there is none now (the
 * table's lock could not be had). Lock-free when cached. origin is the walk's first return
 * address (the allocating call's): libdw, when a rule needs it, is loaded only where that is
 * safe (tp_dw_load_early). The table must be set up (tp_cfa_ready). */
static inline const struct tp_cfa_rule *tp_cfa_rule_of(uintptr_t key, uintptr_t origin)
{
    const struct tp_cfa_rule *r = tp_cfa_cached(key);
    return tp_likely(r != NULL) ? r : tp_cfa_rule_read(key, origin);
}

/* 0 not set up, 1 on, -1 off. */
extern _Atomic int tp_cfa_state;
int tp_cfa_set_up(void);
/* 1 when rules can be looked up: the table is set up on first use. Inline: every walk asks. */
static inline int tp_cfa_ready(void)
{
    int s = atomic_load_explicit(&tp_cfa_state, memory_order_acquire);
    if (tp_likely(s != 0))
        return s > 0;
    return tp_cfa_set_up();
}

/* Off for good (the walk finds 0 frames from then on). */
void tp_unwind_disable(void);
/* Before a dlclose (no rule is read until tp_unwind_dlclosed), and after it: the cached rules
 * of code no longer loaded are dropped (its addresses may hold other code next). The latter
 * takes the loader's lock: not under a tprof lock. */
void tp_unwind_dlclose_begin(void);
void tp_unwind_dlclosed(void);
/* Across fork: the table's lock is held so that no thread is inside libdw when the process is
 * copied (a lock of libdw's own libc would stay held in the child). */
void tp_unwind_fork_prepare(void);
void tp_unwind_fork_parent(void);
void tp_unwind_fork_child(void);

#endif
