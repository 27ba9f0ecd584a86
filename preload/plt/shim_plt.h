/* The PLT stubs and their slots, one per hooked function (shim_plt.c), as plt_patch.c uses them:
 * made when one of its GOT entries is first patched, the entry then pointed at the slot's stub. */
#ifndef TPROF_SHIM_PLT_H
#define TPROF_SHIM_PLT_H

#include <stdint.h>

#define TP_PLT_NSTUBS 4096

/* The slot for a target function (its name: whether it is an op, TPROF_STEP, its known
 * signature), made on first use; -1 when the stubs are all taken. */
int tp_plt_slot(uintptr_t target, const char *name, int want_op, int step);
/* Slot i's GOT entry got is not bound yet: lazy is its value (the PLT's call into ld.so). */
void tp_plt_slot_lazy(int i, uintptr_t lazy, uintptr_t *got);
/* The address of slot i's stub, what its GOT entries hold. */
uintptr_t tp_plt_stub(uint32_t i);
/* 1 when a is one of the stubs. */
int tp_plt_is_stub(uintptr_t a);
/* Put back the stubs of lazy entries a call did not get to put back (made while tprof was not
 * recording, left by longjmp, or bound by two threads at once, the later over the stub). */
void tp_plt_resettle(void);
/* Forget the lazy GOT entries for which present(entry, arg) is 0: their module is gone. */
void tp_plt_drop_gots(int (*present)(uintptr_t got, void *arg), void *arg);
/* Before an exception unwinds this thread's stack (shim_unwind.c): the hooked calls above the
 * return-address slot `below` (the caller's own) get their real return addresses back. */
void tp_plt_unhook_frames(uintptr_t below);
/* When a handler catches it: the hooked calls at or below the slot `below` were unwound and end
 * now; the ones above, still running, return through the stub's return path again. */
void tp_plt_rehook_frames(uintptr_t below);
/* Once, before the first slot is made. */
void tp_plt_shim_init(void);
/* For the report. */
struct tp_plt_shim_counts {
    uint64_t slots_full;  /* functions not hooked: no stub left */
    uint64_t frames_full; /* calls nested too deep to be timed */
    uint64_t stale;       /* calls left by longjmp or an exception */
};
struct tp_plt_shim_counts tp_plt_shim_counts(void);
#define TP_PLT_FRAMES_MAX 128

#endif
