/* The PLT stubs past the TP_PLT_NSTUBS built into libtprof.so's text (shim_plt.c): made in
 * mapped pages as slots are needed, within TPROF_MEMORY_BUDGET, and an index from a hooked
 * function to its slot. Used under plt_patch.c's lock, as slots are made. */
#ifndef TPROF_PLT_POOL_H
#define TPROF_PLT_POOL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The most slots there can be, built-in stubs included (what the slot tables are sized for). */
#define TP_PLT_MAX_SLOTS (1u << 18)

/* Per slot: the function, once its op is too short to time, and its op's demote slot (whose
 * per-thread counter, tp_demote_tcount, counts its calls): read by the stubs' common entry.
 * Mapped for TP_PLT_MAX_SLOTS, touched as slots are used. */
extern __attribute__((visibility("hidden"))) _Atomic uintptr_t *tp_plt_ctarget;
extern __attribute__((visibility("hidden"))) uint8_t *tp_plt_cdslot;

/* Once: map the tables above, and reserve the address space for more stubs, each to load its
 * slot number and jump to entry (tp_plt_entry). 0, or -1 when the tables cannot be mapped (then
 * no slot may be made); without the reservation, no stub is made past the built-in ones. */
int tp_plt_pool_init(uintptr_t entry);
/* The address of the stub of slot first + j, j counted from the first stub of the pool. */
uintptr_t tp_plt_pool_stub(uint32_t j);
/* 1 when a is a stub of the pool. */
int tp_plt_pool_has(uintptr_t a);
/* Make the stubs for pool slots up to j, for slots numbered from first (the first slot after the
 * built-in stubs); each slot also costs slot_bytes elsewhere, besides the tables above. 0, or -1
 * when the budget (with the call-site and op tables) or the kernel refuses: the limit is kept
 * for the report. */
int tp_plt_pool_grow(uint32_t j, uint32_t first, size_t slot_bytes);

enum tp_plt_pool_limit {
    TP_PLT_POOL_NONE,    /* never refused */
    TP_PLT_POOL_BUDGET,  /* TPROF_MEMORY_BUDGET */
    TP_PLT_POOL_MAX,     /* TP_PLT_MAX_SLOTS */
    TP_PLT_POOL_NO_EXEC, /* no memory, or none that may be made executable */
};
struct tp_plt_pool_state {
    enum tp_plt_pool_limit limit;
    uint64_t stubs;  /* stubs made in the pool */
    uint64_t budget; /* the budget when it refused */
};
void tp_plt_pool_state(struct tp_plt_pool_state *st);

/* The slot whose function is now target, made under name (a lazy slot's function changes when
 * ld.so binds it: a module loaded again where the last one was has the same PLT addresses), or
 * -1. */
int tp_plt_index_find(const char *name, uintptr_t target);
/* Slot made under name, which must outlive the index (the slot's own copy), its function kept
 * at *target; under the same lock as the finds. Without memory for the index, the slot is not
 * found again. */
void tp_plt_index_put(const char *name, const _Atomic uintptr_t *target, int slot);

#endif
