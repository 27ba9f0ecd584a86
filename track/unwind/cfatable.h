/* The CFA rules of return addresses and their table (track/unwind/cfarules.h), as every walk reads it:
 * inline, since every step of every walk looks a rule up. Grown and written by cfarules.c. */
#ifndef TPROF_CFATABLE_H
#define TPROF_CFATABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

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
    TP_CFA_EXPR = 64, /* CFA = CFA expression number cfa_off (track/unwind/cfaexpr.c) evaluated */
};

struct tp_cfa_rule {
    int32_t cfa_off;
    int16_t ra_off, rbp_off;
    uint16_t flags, need;
};

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

#endif
