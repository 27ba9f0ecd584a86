/* The stack walk: .eh_frame rules, CFA expressions, thread stacks: the one header of track/unwind/ for code outside it. */
#ifndef TPROF_TRACK_UNWIND_UNWIND
#define TPROF_TRACK_UNWIND_UNWIND

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "track/runtime.h"

/* The malloc shims' stack walk: return addresses by the CFA rules of .eh_frame (cfarules.h, which
 * also has the walker's life cycle: disable, dlclose, fork). Signal frames, CFA expressions (PLT
 * stubs) and the vDSO are stepped too; where no rule can be followed (code without CFI, a frame
 * off the thread's stack, elfutils not loaded yet) the walk stops with what it has. */
#include "track/unwind/cfarules.h"

/* Walk from a frame that has a frame pointer: fp is its __builtin_frame_address(0), ra its
 * __builtin_return_address(0). Fills out[] with up to max return addresses, ra first (as
 * unw_backtrace does, less the frame of the function that calls this; under a signal frame the
 * interrupted pc itself). Returns how many: at least 1 when max > 0, 0 when the walker is off.
 * Never faults: every read is of the thread's stack, checked against the bounds the rules imply,
 * or of a module's code inside its executable segment. */
int tp_unwind(void **out, int max, void *ra, void *fp);
/* A call hooked at the PLT returns through ret, its real return address kept aside: real(slot)
 * gives it from the address of the stack slot ret was read at (0 if none), so that the walk goes
 * on into the caller instead of stopping (preload/plt/shim_plt.c). */
void tp_unwind_plt(uintptr_t ret, uintptr_t (*real)(uintptr_t slot));

/* CFA expressions: the small subset of DWARF expressions a CFA rule may use that the stack walk
 * can evaluate on registers alone (constants, register + offset, arithmetic, comparisons and
 * shifts). The linker writes such a rule for PLT stubs. Anything else, a memory read above all,
 * is refused: the walk then stops at that frame. */
/* DWARF register numbers on x86-64. */
#define TP_DWREG_RBP 6
#define TP_DWREG_RSP 7
#define TP_DWREG_RA  16 /* the return address column, and rip in expressions */

/* Keep the expression ops[0..n) (as libdw gives a CFA): its number, the same for the same
 * expression, or -1 when the walk could not evaluate it or the table is full. Under the rule
 * table's lock (cfarules.c): an expression is written before the rule naming it is published. */
int tp_cfa_expr_intern(const Dwarf_Op *ops, size_t n);

/* The CFA by expression x, from the frame's rsp, rbp (when known) and rip. 0 when rbp is
 * needed and not known. */
uintptr_t tp_cfa_expr_eval(int x, uintptr_t rsp, uintptr_t rbp, int rbp_known, uintptr_t rip);

/* This thread's own stack: where it begins and ends, learnt once per thread. The PLT hooks use it
 * to tell a call on the thread's stack from one on another (sigaltstack, coroutines); the malloc
 * shims' stack walk stays inside it. */
extern TP_TLS uintptr_t tp_stack_lo, tp_stack_hi; /* 0 until known; hi 1 when it cannot be */

/* Learn this thread's bounds. For the main thread glibc reads /proc/self/maps with stdio: call
 * it for that thread at start-up (tp_plt_init does), not first from a hooked call that may run in
 * a signal handler. */
void tp_stack_learn(void);

static inline void tp_stack_known(void)
{
    if (tp_unlikely(!tp_stack_hi))
        tp_stack_learn();
}

static inline int tp_on_own_stack(uintptr_t a)
{
    return a >= tp_stack_lo && a < tp_stack_hi;
}

#endif
