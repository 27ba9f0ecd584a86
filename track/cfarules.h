/* The CFA rules of return addresses, for the malloc shims' stack walk (unwind.c): each return
 * address's rule read once from its module's .eh_frame (track/ehframe.h; libdw, track/dwlib.h,
 * for what that reader leaves) and cached in a table that all threads read without a lock. Also the walker's life cycle: off for good, after a
 * dlclose, across fork. */
#ifndef TPROF_CFARULES_H
#define TPROF_CFARULES_H

#include <stdatomic.h>
#include <stdint.h>

#include "track/runtime.h"

/* A return address's rule: where its frame's CFA is (rsp or rbp + cfa_off), where the return
 * address and the caller's rbp are (CFA + offset, both at least 8 below it), how many bytes below
 * the CFA the frame must have for those reads to stay in it (need), and what kind of frame it
 * is. Written once, before the rule is published in the table; never changed after. */
enum {
    TP_CFA_ON_RBP = 1,    /* CFA = rbp + off, else rsp + off */
    TP_CFA_RBP_SAVED = 2, /* the caller's rbp is at CFA + rbp_off */
    TP_CFA_RBP_LOST = 4,  /* the caller's rbp cannot be known */
    TP_CFA_LAST = 8,      /* the outermost frame: no return address */
    TP_CFA_NO = 16,       /* no rule the walk can follow: it stops here */
    TP_CFA_SIGNAL = 32,   /* the signal trampoline: registers from the ucontext at the CFA */
    TP_CFA_EXPR = 64,     /* CFA = CFA expression number cfa_off (cfaexpr.h) evaluated */
};

struct tp_cfa_rule {
    int32_t cfa_off;
    int16_t ra_off, rbp_off;
    uint16_t flags, need;
};

/* Added to an interrupted pc (the frame under a signal trampoline) to ask for the rule at pc
 * itself, not at the call before it. No user-space address has the bit. */
#define TP_CFA_KEY_EXACT ((uintptr_t)1 << 63)

/* The table of rules, open addressing by key, published whole (cfarules.c grows it): read here,
 * inline, since every step of every walk looks a rule up. A key seen (acquire) has its rule
 * written before it. */
struct tp_cfa_slot {
    _Atomic uintptr_t key;
    struct tp_cfa_rule r;
};
struct tp_cfa_table {
    uint32_t bits;
    struct tp_cfa_slot *slots;
};
extern _Atomic(struct tp_cfa_table *) tp_cfa_rules;

static inline uint32_t tp_cfa_home(uintptr_t key, uint32_t bits)
{
    return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

static inline const struct tp_cfa_rule *tp_cfa_cached(uintptr_t key)
{
    const struct tp_cfa_table *t = atomic_load_explicit(&tp_cfa_rules, memory_order_acquire);
    uint32_t mask = (1u << t->bits) - 1;
    for (uint32_t i = tp_cfa_home(key, t->bits), n = 0; n <= mask; n++, i = (i + 1) & mask) {
        uintptr_t k = atomic_load_explicit(&t->slots[i].key, memory_order_acquire);
        if (k == key)
            return &t->slots[i].r;
        if (k == 0)
            return NULL;
    }
    return NULL;
}

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
/* After a dlclose: the cached rules of code no longer loaded are dropped (its addresses may
 * hold other code next). Takes the loader's lock: not under a tprof lock. */
void tp_unwind_dlclosed(void);
/* Across fork: the table's lock is held so that no thread is inside libdw when the process is
 * copied (a lock of libdw's own libc would stay held in the child). */
void tp_unwind_fork_prepare(void);
void tp_unwind_fork_parent(void);
void tp_unwind_fork_child(void);

#endif
