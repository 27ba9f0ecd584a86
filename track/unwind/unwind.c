/* The malloc shims' stack walk (see unwind.h): from a frame, step by step by each return
 * address's CFA rule (cfarules.c), reading only the thread's own stack.
 *
 * The frames a simple rule does not describe are stepped here too:
 *   - the kernel's signal trampoline: the interrupted registers are in the ucontext the kernel
 *     put at the handler's CFA, and the interrupted pc is an instruction of its own, not a return
 *     address (its rule is read at pc, not pc - 1);
 *   - a CFA given by a DWARF expression (PLT stubs), evaluated on rsp, rbp and rip (cfaexpr.c).
 * Anything else stops the walk where it is: code without CFI, a rule on another register, a
 * frame outside the thread's stack. The frames found so far are kept: a shorter stack is never a
 * wrong one. */
#include "track/unwind/unwind.h"

#include <stddef.h>
#include <ucontext.h>

#include "track/unwind/cfarules.h"
#include "track/runtime.h"

/* Where a frame's CFA may be: above the frame's stack pointer, not absurdly far (a frame of
 * 16 MiB is no frame), and below the top of the thread's stack. The walk stops rather than read
 * anything else: rules read from a file that was replaced on disk, a stack the program switched
 * to (sigaltstack, ucontext, a green-thread library). */
#define FRAME_MAX (16u << 20)

struct frame {
    uintptr_t pc, sp, rbp;
    int rbp_known;
};

/* The step from a frame whose CFA is cfa, by rule r: the CFA must be above sp by at least the
 * rule's need and at most FRAME_MAX, 8-aligned, and not above the stack's top, so that the two
 * reads (CFA + ra_off, CFA + rbp_off, both in [CFA - need, CFA - 8]) stay inside the stack. */
/* The PLT hooks' return path and how to find the return address it stands for (tp_unwind_plt). */
static uintptr_t plt_ret, (*plt_real)(uintptr_t slot);

void tp_unwind_plt(uintptr_t ret, uintptr_t (*real)(uintptr_t slot))
{
    plt_real = real;
    plt_ret = ret;
}

static inline __attribute__((always_inline)) int step_to(const struct tp_cfa_rule *r, uintptr_t cfa,
                                                         struct frame *f, uintptr_t top)
{
    uintptr_t d = cfa - f->sp;
    if (d - r->need > FRAME_MAX - r->need || cfa > top || (cfa & 7))
        return 0;
    if (r->flags & TP_CFA_RBP_SAVED)
        f->rbp = *(const uintptr_t *)(cfa + (uintptr_t)(intptr_t)r->rbp_off);
    else if (r->flags & TP_CFA_RBP_LOST)
        f->rbp_known = 0;
    f->pc = *(const uintptr_t *)(cfa + (uintptr_t)(intptr_t)r->ra_off);
    if (tp_unlikely(f->pc == plt_ret) && plt_ret)
        f->pc = plt_real(cfa + (uintptr_t)(intptr_t)r->ra_off);
    f->sp = cfa;
    return 1;
}

/* A frame that is not "CFA = register + offset": the signal trampoline, and then the frame it
 * interrupted (its rule read at its pc), or a CFA expression. Adds the frames it steps to out;
 * 0 when the walk ends here. */
static __attribute__((noinline)) int step_unusual(const struct tp_cfa_rule *r, struct frame *f,
                                                  uintptr_t top, void **out, int *n, int max)
{
    uint32_t fl = r->flags;
    if (fl & TP_CFA_SIGNAL) {
        /* sp is the handler's CFA, where the kernel put the ucontext */
        const size_t end = offsetof(ucontext_t, uc_mcontext.gregs) + sizeof(greg_t) * NGREG;
        if (f->sp + end > top)
            return 0;
        const ucontext_t *uc = (const ucontext_t *)f->sp;
        uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
        if (sp <= f->sp || sp >= top)
            return 0; /* the handler ran on another stack than the code it interrupted */
        f->pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
        f->rbp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
        f->rbp_known = 1;
        f->sp = sp;
        if (f->pc < 4096)
            return 0;
        out[(*n)++] = (void *)f->pc;
        if (*n == max)
            return 0;
        r = tp_cfa_rule_of(f->pc | TP_CFA_KEY_EXACT, (uintptr_t)out[0]);
        if (!r)
            return 0;
        fl = r->flags;
    }
    if (fl & (TP_CFA_NO | TP_CFA_LAST | TP_CFA_SIGNAL))
        return 0;
    uintptr_t cfa;
    if (fl & TP_CFA_EXPR) {
        cfa = tp_cfa_expr_eval(r->cfa_off, f->sp, f->rbp, f->rbp_known, f->pc);
    } else if (fl & TP_CFA_ON_RBP) {
        if (!f->rbp_known)
            return 0;
        cfa = f->rbp + (uintptr_t)(intptr_t)r->cfa_off;
    } else {
        cfa = f->sp + (uintptr_t)(intptr_t)r->cfa_off;
    }
    if (!step_to(r, cfa, f, top) || f->pc < 4096)
        return 0;
    out[(*n)++] = (void *)f->pc;
    return *n < max;
}

int tp_unwind(void **out, int max, void *ra, void *fp)
{
    if (max <= 0 || !tp_cfa_ready())
        return 0;
    /* fp is the calling frame's own: its saved rbp at fp, its return address above, and its
     * caller's stack pointer just past that. */
    tp_stack_known();
    uintptr_t top = tp_stack_hi;
    struct frame f = {(uintptr_t)ra, (uintptr_t)fp + 16, 0, 1};
    int n = 0;
    out[n++] = ra;
    if (n == max || !tp_on_own_stack(f.sp))
        return n; /* another stack (sigaltstack, makecontext), or the bounds are unknown */
    f.rbp = *(const uintptr_t *)fp;
    for (;;) {
        const struct tp_cfa_rule *r = tp_cfa_rule_of(f.pc, (uintptr_t)ra);
        if (!r)
            break;
        uint32_t fl = r->flags;
        if (tp_unlikely(fl & (TP_CFA_NO | TP_CFA_LAST | TP_CFA_SIGNAL | TP_CFA_EXPR))) {
            if (fl & (TP_CFA_NO | TP_CFA_LAST))
                break; /* the usual end: a thread's first frame */
            /* a copy: f itself stays in registers */
            struct frame g = f;
            if (!step_unusual(r, &g, top, out, &n, max))
                break;
            f = g;
            continue;
        }
        uintptr_t base = f.sp;
        if (fl & TP_CFA_ON_RBP) {
            if (!f.rbp_known)
                break;
            base = f.rbp;
        }
        if (!step_to(r, base + (uintptr_t)(intptr_t)r->cfa_off, &f, top) || f.pc < 4096)
            break;
        out[n++] = (void *)f.pc;
        if (n == max)
            break;
    }
    return n;
}
