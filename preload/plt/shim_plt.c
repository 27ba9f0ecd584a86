/* Ops in shared libraries of a program that cannot be rebuilt: the stubs a hooked GOT entry leads
 * to (plt_patch.c finds and patches the entries).
 *
 * Each stub loads its slot number and jumps to one assembly routine that saves every argument
 * register (rdi..r9, rax for variadic calls, xmm0-7), asks tp_plt_enter() whether and how to
 * record the call, restores them, swaps the caller's return address for tp_plt_return, and jumps
 * to the original with the stack exactly as the caller left it — so any signature, stack arguments
 * and varargs included, passes through untouched. tp_plt_return saves the return registers (rax,
 * rdx, xmm0, xmm1), records the end, and returns to the real return address, kept in a per-thread
 * side stack keyed by the address of the return-address slot (which also tells frames left by
 * longjmp from live ones; the malloc shims' stack walk reads it too, track/unwind/unwind.h).
 *
 * Work entries (TPROF_WORK; built in, track/ops/opnames.c: darknet's gemm) give FLOPs, bytes and a
 * shape from the arguments (track/work/argwork.c). A PLT op called inside one of its family (gemm →
 * gemm_cpu → gemm_nn) is an op of its own but adds no work: the outermost call counted it.
 *
 * A slot whose GOT entry ld.so has not bound yet (lazy binding) jumps to where the entry pointed,
 * the PLT's call into ld.so's resolver; when that call returns, the entry holds the function: the
 * stub jumps there from then on, and the entry leads to the stub again (settle).
 *
 * Long because the stubs, their slots and the per-thread side stack of open calls are one
 * mechanism: every path in and out of a hooked call (return, longjmp, exception, exec) edits the
 * same frames. */
#include "preload/plt/shim_plt.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/hook/hook.h"
#include "preload/plt/plt.h"
#include "preload/plt/plt_pool.h"
#include "track/heap/heap.h"
#include "track/work/work.h"
#include "track/ops/ops.h"
#include "common/clock.h"
#include "common/pages.h"
#include "track/runtime.h"
#include "track/sites/sites.h"
#include "track/unwind/unwind.h"

#define NSTUBS     TP_PLT_NSTUBS
#define STUB_SIZE  16
#define FRAMES_MAX TP_PLT_FRAMES_MAX

/* ---- the assembly: stubs, the common entry, the return path ---- */

struct tp_plt_regs {
    unsigned char xmm[8][16];
    uint64_t r10, rax, r9, r8, rcx, rdx, rsi, rdi;
};

struct tp_plt_go {
    uintptr_t target; /* rax: where to jump */
    uintptr_t hooked; /* rdx: 1 to swap the return address for tp_plt_return */
};

__attribute__((visibility("hidden"))) struct tp_plt_go tp_plt_enter(uint32_t slot,
                                                                    uintptr_t *retslot,
                                                                    const struct tp_plt_regs *r);
__attribute__((visibility("hidden"))) uintptr_t tp_plt_leave(uintptr_t sp);
extern const char tp_plt_stubs[] __attribute__((visibility("hidden")));

__asm__("    .text\n"
        "    .p2align 4\n"
        "    .globl tp_plt_stubs\n"
        "    .hidden tp_plt_stubs\n"
        "    .type tp_plt_stubs, @function\n"
        "tp_plt_stubs:\n"
        "    .set tp_plt_i, 0\n"
        "    .rept 4096\n"
        "    movl $tp_plt_i, %r11d\n"
        "    jmp tp_plt_entry\n"
        "    .p2align 4\n"
        "    .set tp_plt_i, tp_plt_i + 1\n"
        "    .endr\n"
        "    .size tp_plt_stubs, . - tp_plt_stubs\n"
        "\n"
        /* r11 = slot. A slot whose op is too short to time (track/ops/demote.c) has its function in
     * tp_plt_ctarget: the call is counted in this thread's own counter (no cache line shared by
     * threads) and in tp_cyg_hooks (the enclosing op's time does not keep the counting's cost),
     * then goes straight there, rax kept. A thread not registered (tp_demote_counting) goes the
     * slow way once. */
        "    .p2align 4\n"
        "    .type tp_plt_entry, @function\n"
        "tp_plt_entry:\n"
        "    .cfi_startproc\n"
        "    pushq %rax\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    movq tp_plt_ctarget(%rip), %rax\n"
        "    cmpq $0, (%rax,%r11,8)\n"
        "    je 1f\n"
        "    movq tp_demote_counting@gottpoff(%rip), %rax\n"
        "    cmpb $0, %fs:(%rax)\n"
        "    jne 2f\n"
        "1:\n"
        "    popq %rax\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    jmp tp_plt_common\n"
        "2:\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    movq tp_plt_cdslot(%rip), %rax\n"
        "    movzbl (%rax,%r11,1), %eax\n"
        "    shlq $3, %rax\n"
        "    addq tp_demote_tcount@gottpoff(%rip), %rax\n"
        "    incq %fs:(%rax)\n"
        "    movq tp_cyg_hooks@gottpoff(%rip), %rax\n"
        "    incq %fs:(%rax)\n"
        "    movq tp_plt_ctarget(%rip), %rax\n"
        "    movq (%rax,%r11,8), %r11\n"
        "    popq %rax\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    jmp *%r11\n"
        "    .cfi_endproc\n"
        "    .size tp_plt_entry, . - tp_plt_entry\n"
        "\n"
        /* r11 = slot; (%rsp) = the caller's return address. Nothing the callee may read is changed:
     * argument registers and rax are restored, the stack is as the caller left it. */
        "    .p2align 4\n"
        "    .type tp_plt_common, @function\n"
        "tp_plt_common:\n"
        "    .cfi_startproc\n"
        "    pushq %rbp\n"
        "    .cfi_def_cfa_offset 16\n"
        "    .cfi_offset %rbp, -16\n"
        "    movq %rsp, %rbp\n"
        "    .cfi_def_cfa_register %rbp\n"
        "    pushq %rdi\n"
        "    pushq %rsi\n"
        "    pushq %rdx\n"
        "    pushq %rcx\n"
        "    pushq %r8\n"
        "    pushq %r9\n"
        "    pushq %rax\n"
        "    pushq %r10\n"
        "    subq $128, %rsp\n"
        "    movdqu %xmm0, 0(%rsp)\n"
        "    movdqu %xmm1, 16(%rsp)\n"
        "    movdqu %xmm2, 32(%rsp)\n"
        "    movdqu %xmm3, 48(%rsp)\n"
        "    movdqu %xmm4, 64(%rsp)\n"
        "    movdqu %xmm5, 80(%rsp)\n"
        "    movdqu %xmm6, 96(%rsp)\n"
        "    movdqu %xmm7, 112(%rsp)\n"
        "    movl %r11d, %edi\n"
        "    leaq 8(%rbp), %rsi\n"
        "    movq %rsp, %rdx\n"
        "    call tp_plt_enter\n"
        "    movq %rax, %r11\n"
        "    testq %rdx, %rdx\n"
        "    jz 1f\n"
        "    leaq tp_plt_return(%rip), %rax\n"
        "    movq %rax, 8(%rbp)\n"
        "1:\n"
        "    movdqu 0(%rsp), %xmm0\n"
        "    movdqu 16(%rsp), %xmm1\n"
        "    movdqu 32(%rsp), %xmm2\n"
        "    movdqu 48(%rsp), %xmm3\n"
        "    movdqu 64(%rsp), %xmm4\n"
        "    movdqu 80(%rsp), %xmm5\n"
        "    movdqu 96(%rsp), %xmm6\n"
        "    movdqu 112(%rsp), %xmm7\n"
        "    addq $128, %rsp\n"
        "    popq %r10\n"
        "    popq %rax\n"
        "    popq %r9\n"
        "    popq %r8\n"
        "    popq %rcx\n"
        "    popq %rdx\n"
        "    popq %rsi\n"
        "    popq %rdi\n"
        "    popq %rbp\n"
        "    .cfi_def_cfa %rsp, 8\n"
        "    jmp *%r11\n"
        "    .cfi_endproc\n"
        "    .size tp_plt_common, . - tp_plt_common\n"
        "\n"
        /* The hooked function returned here: %rsp is one past its return-address slot. */
        "    .p2align 4\n"
        "    .type tp_plt_return, @function\n"
        "tp_plt_return:\n"
        "    subq $8, %rsp\n"
        "    pushq %rax\n"
        "    pushq %rdx\n"
        "    subq $40, %rsp\n"
        "    movdqu %xmm0, 0(%rsp)\n"
        "    movdqu %xmm1, 16(%rsp)\n"
        "    leaq 64(%rsp), %rdi\n"
        "    call tp_plt_leave\n"
        "    movq %rax, 56(%rsp)\n"
        "    movdqu 0(%rsp), %xmm0\n"
        "    movdqu 16(%rsp), %xmm1\n"
        "    addq $40, %rsp\n"
        "    popq %rdx\n"
        "    popq %rax\n"
        "    ret\n"
        "    .size tp_plt_return, . - tp_plt_return\n");

void tp_plt_return(void) __attribute__((visibility("hidden")));

extern const char tp_plt_entry[] __attribute__((visibility("hidden")));

/* ---- slots: one per hooked function ---- */

enum family { FAM_OTHER, FAM_MATMUL, FAM_GEMV };

struct slot {
    _Atomic uintptr_t target; /* the real function; 0 while the slot is free */
    uintptr_t lazy;           /* the GOT entry's value before ld.so bound it, else 0 */
    _Atomic(uintptr_t *) got; /* that GOT entry, while its module is loaded (lazy slots) */
    _Atomic int id;           /* op id; -1 when only the step; ID_PENDING until the first call */
    int step;                 /* TPROF_STEP */
    struct tp_argwork_abi
        work; /* its work entry (track/ops/opnames.c), resolved at its first call */
    /* Whether it has one (its FLOPs come from each call's arguments) and its family: found at
     * its first call with its op (slot_op), not when the slot is made, since a scan makes
     * thousands of slots (a compiler's libraries' calls into their own exports) and few are
     * ever called. Threads that make the first call together write the same values. */
    _Atomic int has_work;
    _Atomic int family;
    _Atomic int ggml; /* a ggml graph node's function: its work is read from the node */
    int watch;        /* one of ggml's buffer functions (tp_ggmlbuf_call), watched untimed */
    char *name;
};

struct frame {
    uintptr_t ra, retslot;
    uint32_t slot;
    int pushed, step, has_shape;
    int watch;   /* ggml_backend_buft_alloc_buffer's call: its return is the buffer */
    uint64_t t0; /* when that call began */
    uint64_t flops, bytes;
    struct tp_shape_key shape;
};

static struct slot *slots; /* TP_PLT_MAX_SLOTS, reserve-only */
static _Atomic int nslots;
static unsigned char *family_of_id; /* op id → family, for ops interned here */
static int family_cap;
static _Atomic uint64_t slots_full, frames_full, stale_calls;

static TP_TLS struct frame frames[FRAMES_MAX];
static TP_TLS int depth;
static TP_TLS volatile int busy; /* a signal handler's hooked call while we work passes through */

/* The work and shape of a call with a work entry, from the registers and stack it was passed. */
static void work_of(struct slot *s, const struct tp_plt_regs *r, const uintptr_t *retslot,
                    struct frame *f)
{
    if (atomic_load_explicit(&s->ggml, memory_order_relaxed)) {
        f->has_shape = tp_ggml_node_work(s->name, r->rdi, r->rsi, &f->flops, &f->bytes, &f->shape);
        return;
    }
    const uint64_t ints[6] = {r->rdi, r->rsi, r->rdx, r->rcx, r->r8, r->r9};
    f->has_shape = tp_argwork_abi(&s->work, s->name, atomic_load(&s->target), ints,
                                  (const unsigned char(*)[16])r->xmm,
                                  (const uint64_t *)(retslot + 1), &f->flops, &f->bytes, &f->shape);
}

static enum family family_of(const char *kind)
{
    return !strcmp(kind, "matmul") ? FAM_MATMUL : !strcmp(kind, "gemv") ? FAM_GEMV : FAM_OTHER;
}

/* Is a call of slot s, made while PLT op `top` is open, the inner loop of that op (gemm → gemm_cpu
 * → gemm_nn, one family with a work entry)? An op with its own row, but its work is the outer
 * call's (FLOPs counted once); net_train_step_rprop inside net_train_step is no such loop. */
static int inner_of_top(const struct slot *s)
{
    int fam = atomic_load_explicit(&s->family, memory_order_relaxed);
    if (fam == FAM_OTHER || !tp_op_top_is(TP_SRC_PLT))
        return 0;
    int top = tp_ops_current();
    if (top < 0 || top == s->id)
        return 0;
    return top < family_cap && family_of_id[top] == fam;
}

/* A hooked export becomes an op on its first call: a library exports many functions matching
 * TPROF_OPS, a program calls few, and each op takes a slot of the op table (TPROF_MAX_OPS). */
#define ID_PENDING (-2)

/* Out of line: every call but the first takes slot_op's one load. */
static __attribute__((noinline)) int slot_first_call(struct slot *s)
{
    /* The demotion line (the hook's cost) is known before the first call of a hooked export
     * is judged, and only in a process that calls one. */
    tp_cyg_calibrate();
    const char *node_kind = tp_ggml_node_kind(s->name), *kind = node_kind;
    if (!kind)
        kind = tp_names_kind(s->name);
    enum family fam = family_of(kind);
    atomic_store_explicit(&s->ggml, node_kind != NULL, memory_order_relaxed);
    atomic_store_explicit(&s->has_work, node_kind || tp_names_work(s->name), memory_order_relaxed);
    atomic_store_explicit(&s->family, (int)fam, memory_order_relaxed);
    int id = tp_op_intern(s->name, kind, TP_SRC_PLT);
    if (id >= 0 && id < family_cap)
        family_of_id[id] = (unsigned char)fam;
    atomic_store_explicit(&s->id, id, memory_order_release);
    return id;
}

static inline int slot_op(struct slot *s)
{
    int id = atomic_load_explicit(&s->id, memory_order_acquire);
    return id != ID_PENDING ? id : slot_first_call(s);
}

uintptr_t tp_plt_stub(uint32_t i)
{
    return i >= NSTUBS ? tp_plt_pool_stub(i - NSTUBS) : (uintptr_t)tp_plt_stubs + i * STUB_SIZE;
}

/* Still waiting for ld.so to bind the slot's GOT entry (see the top of this file)? */
static int unbound(const struct slot *s)
{
    return s->lazy && atomic_load_explicit(&s->target, memory_order_acquire) == s->lazy;
}

/* After a call through an unbound slot: ld.so's resolver bound the GOT entry, writing the
 * function over our stub; the stub now jumps there, and the entry leads to the stub again. */
static void settle(uint32_t i)
{
    struct slot *s = &slots[i];
    uintptr_t *got = atomic_load(&s->got);
    if (!got || !unbound(s))
        return;
    uintptr_t f = __atomic_load_n(got, __ATOMIC_ACQUIRE);
    if (f == s->lazy || tp_plt_is_stub(f))
        return; /* not written (LD_BIND_NOT): every call goes through the resolver */
    uintptr_t want = s->lazy;
    if (!atomic_compare_exchange_strong(&s->target, &want, f))
        return;
    if (tp_addr_is_ours(f)) {
        atomic_store(&s->got, NULL); /* tprof wraps it itself: the entry keeps the wrapper */
        return;
    }
    __atomic_compare_exchange_n(got, &f, tp_plt_stub(i), 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* Slot i's op is too short to time (track/ops/demote.c): its calls go straight to the function from
 * now on, counted on the way (tp_plt_entry). Not while ld.so has yet to bind it, nor for the
 * step, nor for one with a work entry, whose FLOPs come from each call's arguments. */
static void count_from_now(uint32_t i)
{
    struct slot *s = &slots[i];
    int id = atomic_load(&s->id);
    if (s->step || atomic_load_explicit(&s->has_work, memory_order_relaxed) || unbound(s) ||
        atomic_load(&tp_plt_ctarget[i]))
        return;
    tp_plt_cdslot[i] = (uint8_t)tp_demote_slot(id);
    tp_demote_thread();
    atomic_store_explicit(&tp_plt_ctarget[i], atomic_load(&s->target), memory_order_release);
}

static void end_frame(const struct frame *f, int stale)
{
    if (f->pushed) {
        int id = slots[f->slot].id;
        uint64_t t = tp_op_end(id, f->retslot, f->retslot, f->flops, f->bytes,
                               f->has_shape ? &f->shape : NULL);
        /* Never one with a work entry (its FLOPs come from every call's arguments) nor the step. */
        if (!stale && !atomic_load_explicit(&slots[f->slot].has_work, memory_order_relaxed) &&
            !slots[f->slot].step)
            tp_demote_observe(id, t);
    }
    if (f->step)
        tp_step_end();
    if (stale && (f->pushed || f->step))
        atomic_fetch_add_explicit(&stale_calls, 1, memory_order_relaxed);
    settle(f->slot);
    if (f->pushed && tp_demote_slot(slots[f->slot].id))
        count_from_now(f->slot);
}

/* A call of one of ggml's buffer functions: what it says of a buffer is told before it runs;
 * 1 for the allocation, whose buffer is known when it returns (and whose frame keeps when it
 * began). */
static int watch_enter(struct slot *s, const struct tp_plt_regs *r, struct frame *f)
{
    switch (s->watch) {
    case TP_GGMLBUF_USAGE: tp_ggmlbuf_usage(r->rdi, (int)r->rsi); return 0;
    case TP_GGMLBUF_FREE: tp_ggmlbuf_free(r->rdi); return 0;
    case TP_GGMLBUF_ALLOC: f->t0 = tp_now_ns(); return 1;
    default: return 0;
    }
}

struct tp_plt_go tp_plt_enter(uint32_t i, uintptr_t *retslot, const struct tp_plt_regs *r)
{
    struct slot *s = &slots[i];
    struct tp_plt_go go = {atomic_load_explicit(&s->target, memory_order_acquire), 0};
    if (!tp_running() || tp_guard || busy)
        return go;
    /* Reached through another stub already (a GOT entry pointing at the executable's canonical
     * PLT entry, whose own GOT entry is hooked too): that one records the call. */
    if (*retslot == (uintptr_t)tp_plt_return)
        return go;
    int e = errno;
    if (atomic_load_explicit(&tp_plt_ctarget[i], memory_order_acquire)) {
        tp_demote_count_call(tp_plt_cdslot[i]); /* a thread not yet registered */
        errno = e;
        return go;
    }
    busy = 1;
    uintptr_t rs = (uintptr_t)retslot;
    tp_stack_known();
    /* On the thread's own stack, entries at or below our slot were left by longjmp or an
     * exception and end now; calls on another stack (sigaltstack, coroutines) stay. */
    if (tp_on_own_stack(rs))
        while (depth > 0 && frames[depth - 1].retslot <= rs &&
               tp_on_own_stack(frames[depth - 1].retslot))
            end_frame(&frames[--depth], 1);
    if (depth >= FRAMES_MAX) {
        atomic_fetch_add_explicit(&frames_full, 1, memory_order_relaxed);
    } else {
        /* A call through an unbound slot returns through tp_plt_return even when it is not
         * recorded: its GOT entry must be settled once ld.so has bound it. */
        struct frame *f = &frames[depth];
        f->ra = *retslot;
        f->retslot = rs;
        f->slot = i;
        f->pushed = f->step = f->has_shape = f->watch = 0;
        f->flops = f->bytes = 0;
        if (s->watch)
            f->watch = watch_enter(s, r, f);
        int id = slot_op(s);
        if (id >= 0 && atomic_load_explicit(&s->has_work, memory_order_relaxed) && !inner_of_top(s))
            work_of(s, r, retslot, f);
        if (s->step) {
            tp_step_begin(s->name);
            f->step = 1;
        }
        if (id >= 0)
            f->pushed = tp_op_begin(id, rs, rs);
        if (f->pushed || f->step || f->watch || unbound(s)) {
            depth++;
            go.hooked = 1;
        }
    }
    busy = 0;
    errno = e;
    return go;
}

uintptr_t tp_plt_leave(uintptr_t sp)
{
    int e = errno;
    busy = 1;
    uintptr_t rs = sp - sizeof(uintptr_t);
    int i = depth - 1;
    while (i >= 0 && frames[i].retslot != rs)
        i--;
    if (tp_unlikely(i < 0)) {
        /* Only a call that returned on another thread than it was made on (a user-space
         * scheduler moving coroutines) gets here: nowhere to return to. */
        static const char msg[] = "tprof: a call hooked through the PLT returned on another "
                                  "thread; rerun with TPROF_PLT=0\n";
        if (write(2, msg, sizeof msg - 1) < 0) {
        }
        abort();
    }
    /* Above it: calls left by longjmp out of this one (on this stack, below its slot), which end
     * first; calls of other stacks (coroutines) stay. */
    struct frame f = frames[i];
    for (int j = depth - 1; j > i; j--)
        if (frames[j].retslot < rs && tp_on_own_stack(frames[j].retslot) == tp_on_own_stack(rs))
            end_frame(&frames[j], 1);
    int k = i;
    for (int j = i + 1; j < depth; j++)
        if (!(frames[j].retslot < rs && tp_on_own_stack(frames[j].retslot) == tp_on_own_stack(rs)))
            frames[k++] = frames[j];
    depth = k;
    if (f.watch) /* the return value, which tp_plt_return pushed two words below sp */
        tp_ggmlbuf_alloc(*(const uintptr_t *)(sp - 2 * sizeof(uintptr_t)), f.t0);
    end_frame(&f, 0);
    busy = 0;
    errno = e;
    return f.ra;
}

/* ---- exceptions (shim_unwind.c) ---- */

void tp_plt_unhook_frames(uintptr_t below)
{
    int own = tp_on_own_stack(below);
    for (int i = 0; i < depth; i++) {
        uintptr_t *rs = (uintptr_t *)frames[i].retslot;
        /* Entries at or below the caller's slot were left by longjmp: that memory is not theirs
         * any more. */
        if (frames[i].retslot > below && tp_on_own_stack(frames[i].retslot) == own &&
            *rs == (uintptr_t)tp_plt_return)
            *rs = frames[i].ra;
    }
}

void tp_plt_rehook_frames(uintptr_t below)
{
    int e = errno;
    busy = 1;
    int own = tp_on_own_stack(below);
    if (own)
        while (depth > 0 && frames[depth - 1].retslot <= below &&
               tp_on_own_stack(frames[depth - 1].retslot))
            end_frame(&frames[--depth], 1);
    for (int i = 0; i < depth; i++) {
        uintptr_t *rs = (uintptr_t *)frames[i].retslot;
        if (frames[i].retslot > below && tp_on_own_stack(frames[i].retslot) == own &&
            *rs == frames[i].ra)
            *rs = (uintptr_t)tp_plt_return;
    }
    busy = 0;
    errno = e;
}

/* ---- the slots' life ---- */

int tp_plt_is_stub(uintptr_t a)
{
    uintptr_t b = (uintptr_t)tp_plt_stubs;
    return (a >= b && a < b + (uintptr_t)NSTUBS * STUB_SIZE) || tp_plt_pool_has(a);
}

int tp_plt_slot(uintptr_t target, const char *name, int want_op, int step)
{
    int n = atomic_load(&nslots), found = tp_plt_index_find(name, target);
    if (found >= 0)
        return found;
    if (!slots ||
        (n >= NSTUBS && tp_plt_pool_grow((uint32_t)(n - NSTUBS), NSTUBS, sizeof *slots))) {
        atomic_fetch_add(&slots_full, 1);
        return -1;
    }
    struct slot *s = &slots[n];
    s->name = tp_strdup(name);
    if (!s->name)
        return -1;
    tp_plt_index_put(s->name, &s->target, n); /* without memory for it, a later entry gets a slot */
    s->step = step;
    s->watch = tp_ggmlbuf_call(name);
    atomic_store_explicit(&s->has_work, 0, memory_order_relaxed);
    atomic_store_explicit(&s->family, FAM_OTHER, memory_order_relaxed);
    atomic_store_explicit(&s->ggml, 0, memory_order_relaxed);
    atomic_store(&s->id, want_op ? ID_PENDING : -1);
    atomic_store_explicit(&s->target, target, memory_order_release);
    atomic_store(&nslots, n + 1);
    return n;
}

void tp_plt_slot_lazy(int i, uintptr_t lazy, uintptr_t *got)
{
    slots[i].lazy = lazy;
    atomic_store(&slots[i].got, got);
}

void tp_plt_resettle(void)
{
    int n = atomic_load(&nslots);
    for (int i = 0; i < n; i++) {
        struct slot *s = &slots[i];
        uintptr_t *got = atomic_load(&s->got);
        if (!got)
            continue;
        settle((uint32_t)i);
        uintptr_t t = atomic_load(&s->target), cur = __atomic_load_n(got, __ATOMIC_ACQUIRE);
        if (t != s->lazy && cur == t && atomic_load(&s->got))
            __atomic_compare_exchange_n(got, &cur, tp_plt_stub((uint32_t)i), 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED);
    }
}

void tp_plt_drop_gots(int (*present)(uintptr_t got, void *arg), void *arg)
{
    int n = atomic_load(&nslots);
    for (int i = 0; i < n; i++) {
        uintptr_t *got = atomic_load(&slots[i].got);
        if (got && !present((uintptr_t)got, arg))
            atomic_store(&slots[i].got, NULL);
    }
}

/* The real return address of this thread's hooked call whose return-address slot is rs, or 0. */
static uintptr_t real_return(uintptr_t rs)
{
    for (int i = depth - 1; i >= 0; i--)
        if (frames[i].retslot == rs)
            return frames[i].ra;
    return 0;
}

void tp_plt_shim_init(void)
{
    tp_unwind_plt((uintptr_t)tp_plt_return, real_return);
    slots = tp_pages_map((size_t)TP_PLT_MAX_SLOTS * sizeof *slots, 1);
    if (tp_plt_pool_init((uintptr_t)tp_plt_entry) < 0)
        slots = NULL; /* no slot is ever made: no stub is reached */
    family_cap = tp_ops_id_limit();
    family_of_id = tp_pages_map((size_t)family_cap, 1); /* reserve-only: one byte an op id */
    if (!family_of_id)
        family_cap = 0;
}

struct tp_plt_shim_counts tp_plt_shim_counts(void)
{
    struct tp_plt_shim_counts c = {atomic_load(&slots_full), atomic_load(&frames_full),
                                   atomic_load(&stale_calls)};
    return c;
}
