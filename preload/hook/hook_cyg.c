/* Ops in programs built with -finstrument-functions.
 *
 * glibc exports no-op __cyg_profile_func_enter/exit; ours take precedence when preloaded. Every
 * instrumented function calls both, so the common case, a function that is not an op, must cost
 * next to nothing: the decision (op, step, or neither) is made once per function address and
 * cached, process-wide in a lock-free open-addressing table and per thread in a direct-mapped
 * initial-exec TLS cache that answers almost every call with one compare. Names come from the
 * symbol table (symtab.c), so static functions count; ops are the names matching TPROF_OPS, the
 * step function is TPROF_STEP (opnames.c).
 *
 * Hooks on tiny hot functions still cost a few ns each, and an op that calls 10^6 of them would
 * look slower than it is. The cost of one non-op hook is measured at the first instrumented call
 * (tp_cyg_hook_cost_fp); each thread counts the non-op hooks it runs (tp_cyg_hooks), and ops.c
 * takes (hooks run while an op was open) x (cost of one) out of the op's time.
 *
 * Long because the hook, its two caches and the measurement of its own cost (which runs the
 * hook on a function of its own, through the same caches) share the caches' layout. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/pages.h"
#include "preload/hook/hook.h"
#include "preload/shim.h"
#include "report/report.h"
#include "track/work/work.h"
#include "track/ops/ops.h"
#include "track/runtime.h"
#include "track/sym/sym.h"

/* A decision: NOT_OP, or the op id + 1 in the low bits, plus IS_STEP, plus HAS_WORK when a
 * TPROF_WORK entry names the function (so that the ops without one never look for it); or, for
 * an op too short to time (track/ops/demote.c), IS_COUNT plus its demote slot. NOT_OP and IS_COUNT decisions are
 * the ones the fast path answers: as signed numbers, those <= 0. */
#define NOT_OP     0u
#define IS_STEP    (1u << 30)
#define HAS_WORK   (1u << 29)
#define ID_MASK    (HAS_WORK - 1)
#define IS_COUNT   (1u << 31)
#define COUNT_MASK (TP_DEMOTE_SLOTS - 1)
#define SKIP       0xffffffffu /* not decided (before init, or tprof's own code runs): do nothing */

#define GLOBAL_BITS 17
#define LOCAL_BITS  9
#define SIDE_MAX    128

/* Process-wide: the key is claimed once (CAS from 0); the decision word, (generation << 32) |
 * decision, is written after the claim and is valid only for the current generation. */
struct entry {
    _Atomic uintptr_t fn;
    _Atomic uint64_t word;
};

struct local {
    uintptr_t fn;
    uint32_t decision, gen;
};

/* An instrumented call that is an op or the step: to match its exit and repair skipped exits. */
struct side {
    uintptr_t fn, sp;
    uint32_t decision;
    int pushed;   /* tp_op_begin accepted it */
    int has_work; /* its work and shape came from its arguments (TPROF_WORK, track/work/argwork.c) */
    uint64_t flops, bytes;
    struct tp_shape_key shape;
};

static struct entry *global;     /* mmap'ed at init: the hook never calls malloc */
static _Atomic uint32_t gen = 1; /* bumped by dlclose: every cached decision is void */
static _Atomic uint64_t global_full, no_name, stale_calls, side_full;
/* a ggml graph-node function (ggml_compute_forward_<op>) was built with -finstrument-functions */
static _Atomic int ggml_nodes;
static uint64_t cost_ps; /* the same in picoseconds, for the report */
static _Atomic int calibrated, instr_ops_seen;
static _Atomic int line_only; /* the demotion line taken from the host's cache, nothing measured */
static double hook_ns;        /* TPROF_HOOK_NS */
static int hook_ns_set;

static TP_TLS struct local local_cache[1u << LOCAL_BITS];
static TP_TLS struct side side[SIDE_MAX];
static TP_TLS int side_depth;
static TP_TLS int side_over; /* calls past SIDE_MAX still open: their exits are not ours */

/* This thread's errno, whose address never changes: found once, not with a call per hook. */
static TP_TLS int *errno_at;

static inline int *errno_p(void)
{
    int *p = errno_at;
    if (tp_unlikely(!p))
        errno_at = p = &errno;
    return p;
}

static inline uint32_t hash_bits(uintptr_t fn, int bits)
{
    return (uint32_t)(((uint64_t)fn * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

static uint32_t decide_slow(uintptr_t fn)
{
    char raw[512], name[512];
    uintptr_t start = 0;
    /* An instrumented function passes its own first address: a symbol that merely encloses it
     * is some other function (a stripped binary's nearest export). */
    if (tp_symtab_lookup(fn, raw, sizeof raw, &start) < 0 || start != fn) {
        atomic_fetch_add_explicit(&no_name, 1, memory_order_relaxed);
        return NOT_OP;
    }
    tp_symtab_demangle(raw, name, sizeof name);
    tp_seen_add(name, 1); /* a setting that names no called function is told the closest */
    uint32_t d = NOT_OP;
    if (tp_names_is_step(raw) || tp_names_is_step(name))
        d |= IS_STEP;
    const char *node_kind = tp_ggml_node_kind(name);
    if (node_kind && !atomic_load_explicit(&ggml_nodes, memory_order_relaxed))
        atomic_store_explicit(&ggml_nodes, 1, memory_order_relaxed);
    if (tp_names_is_op(name) || (strcmp(raw, name) && tp_names_is_op(raw))) {
        int id = tp_op_intern(name, node_kind ? node_kind : tp_names_kind(name), TP_SRC_INSTR);
        if (id >= 0 && (uint32_t)id < ID_MASK - 1)
            d |= (uint32_t)id + 1;
        if (id >= 0 && (tp_names_work(name) || tp_names_work(raw)))
            d |= HAS_WORK;
    }
    return d;
}

/* The decision for fn from the process-wide table, made here if nobody made it yet. */
static uint32_t decide_global(uintptr_t fn, uint32_t g)
{
    uint64_t mask = (1ull << GLOBAL_BITS) - 1, h = hash_bits(fn, GLOBAL_BITS);
    for (uint64_t i = 0; i <= mask && i < 4096; i++) {
        struct entry *e = &global[(h + i) & mask];
        uintptr_t k = atomic_load_explicit(&e->fn, memory_order_acquire);
        if (k == 0) {
            uintptr_t expect = 0;
            if (!atomic_compare_exchange_strong(&e->fn, &expect, fn) && expect != fn)
                continue; /* another function took this slot: probe on */
            k = fn;
        }
        if (k != fn)
            continue;
        uint64_t w = atomic_load_explicit(&e->word, memory_order_acquire);
        if ((uint32_t)(w >> 32) == g)
            return (uint32_t)w;
        /* claimed but not decided yet, or decided before a dlclose: decide (again); two threads
         * deciding the same function at once reach the same decision */
        uint32_t d = decide_slow(fn);
        atomic_store_explicit(&e->word, (uint64_t)g << 32 | d, memory_order_release);
        return d;
    }
    atomic_fetch_add_explicit(&global_full, 1, memory_order_relaxed);
    return decide_slow(fn);
}

static void calibrate(void);

/* The decision for fn when this thread's cache does not have it. */
static uint32_t miss(uintptr_t fn)
{
    if (!tp_running() || tp_guard || !global)
        return SKIP;
    int *ep = errno_p(), e = *ep;
    if (tp_unlikely(!atomic_load_explicit(&calibrated, memory_order_relaxed)))
        calibrate();
    uint32_t g = atomic_load_explicit(&gen, memory_order_acquire);
    uint32_t d = decide_global(fn, g);
    if (d & IS_COUNT)
        tp_demote_thread(); /* another thread demoted it: this one counts from now on too */
    struct local *l = &local_cache[hash_bits(fn, LOCAL_BITS)];
    l->fn = fn;
    l->decision = d;
    l->gen = g;
    *ep = e;
    return d;
}

static inline uint32_t decision_of(uintptr_t fn)
{
    struct local *l = &local_cache[hash_bits(fn, LOCAL_BITS)];
    if (l->fn == fn && l->gen == atomic_load_explicit(&gen, memory_order_relaxed))
        return l->decision;
    return miss(fn);
}

/* fn's calls are op id's, which is too short to time (track/ops/demote.c): from now on they are
 * counted, by the fast path, process-wide and in this thread's cache (other threads see the op
 * demoted at their next call of it). This call is the first one counted. */
static void count_from_now(uintptr_t fn, int id)
{
    uint32_t d = IS_COUNT | (uint32_t)tp_demote_slot(id);
    tp_demote_thread();
    uint32_t g = atomic_load_explicit(&gen, memory_order_acquire);
    uint64_t mask = (1ull << GLOBAL_BITS) - 1, h = hash_bits(fn, GLOBAL_BITS);
    for (uint64_t i = 0; i <= mask && i < 4096; i++) {
        struct entry *e = &global[(h + i) & mask];
        uintptr_t k = atomic_load_explicit(&e->fn, memory_order_acquire);
        if (k == 0)
            break;
        if (k == fn) {
            atomic_store_explicit(&e->word, (uint64_t)g << 32 | d, memory_order_release);
            break;
        }
    }
    struct local *l = &local_cache[hash_bits(fn, LOCAL_BITS)];
    l->fn = fn;
    l->decision = d;
    l->gen = g;
    tp_demote_tcount[d & COUNT_MASK]++;
    tp_cyg_hooks++;
}

static inline __attribute__((always_inline)) void end_side(const struct side *s)
{
    int id = (int)(s->decision & ID_MASK) - 1;
    if (s->pushed) {
        uint64_t t = s->has_work ? tp_op_end(id, s->fn, 0, s->flops, s->bytes, &s->shape)
                                 : tp_op_end(id, s->fn, 0, 0, 0, NULL);
        if (!s->has_work) /* its FLOPs come from every call's arguments: never a count */
            tp_demote_observe(id, t);
    }
    if (s->decision & IS_STEP)
        tp_step_end();
}

/* Close the top entry: its function was left by longjmp or an exception (one built by a compiler
 * that runs no exit hooks while unwinding: clang). It ends now. */
static void end_stale(void)
{
    end_side(&side[--side_depth]);
    atomic_fetch_add_explicit(&stale_calls, 1, memory_order_relaxed);
}

static void op_enter(uintptr_t fn, uint32_t d, const uint64_t *regs)
{
    uintptr_t sp = regs[7];
    if (!tp_running() || tp_guard)
        return;
    int *ep = errno_p(), e = *ep;
    /* A function still running is at or above the stack pointer of everything it calls — at it,
     * for a function inlined into its caller, whose hooks run in the caller's frame. An entry
     * strictly below this call's was left. (The op stack gets sp 0 for these frames: its own
     * repair, which also drops frames at an equal sp, would end inlined callers.) */
    while (side_depth > 0 && side[side_depth - 1].sp < sp)
        end_stale();
    if (side_depth < SIDE_MAX) {
        struct side *s = &side[side_depth];
        s->fn = fn;
        s->sp = sp;
        s->decision = d;
        s->pushed = s->has_work = 0;
        int id = (int)(d & ID_MASK) - 1;
        if (d & IS_STEP)
            tp_step_begin(id >= 0 ? tp_ops_name(id) : NULL);
        if (id >= 0 && !(d & IS_STEP) && tp_demote_slot(id)) {
            count_from_now(fn, id); /* demoted since this thread cached its decision */
            *ep = e;
            return;
        }
        /* A function both instrumented and hooked through the PLT is one call, not two. */
        if (id >= 0 && !(atomic_load_explicit(&tp_ops_plt_any, memory_order_relaxed) &&
                         tp_op_top_is(TP_SRC_PLT) && tp_ops_current() == id))
            s->pushed = tp_op_begin(id, fn, 0);
        if (s->pushed && (d & HAS_WORK))
            s->has_work = tp_argwork_enter(fn, regs[16], regs, &s->flops, &s->bytes, &s->shape);
        if (s->pushed && !atomic_load_explicit(&instr_ops_seen, memory_order_relaxed))
            atomic_store_explicit(&instr_ops_seen, 1, memory_order_relaxed);
        side_depth++;
    } else {
        side_over++;
        atomic_fetch_add_explicit(&side_full, 1, memory_order_relaxed);
    }
    *ep = e;
}

static void op_exit(uintptr_t fn)
{
    if (side_over > 0) {
        side_over--;
        return;
    }
    if (side_depth == 0)
        return;
    int *ep = errno_p(), e = *ep;
    /* The topmost entry of fn is this call: entries above it were left by longjmp out of the
     * functions fn called. (The exit hook's stack pointer cannot tell more: an exit hook reached
     * by a tail jump has a higher one than the enter hook had, one after alloca a lower.) */
    int i = side_depth - 1;
    while (i >= 0 && side[i].fn != fn)
        i--;
    if (i >= 0) {
        while (side_depth - 1 > i)
            end_stale();
        side_depth--;
        end_side(&side[i]);
    }
    *ep = e;
}

/* Everything but a cache hit on a non-op function: kept out of line so that the exit hook stays
 * a leaf function without a frame. */
static TP_NOINSTR __attribute__((noinline)) void slow_exit(uintptr_t fn)
{
    /* The exit of the innermost call this thread pushed: fn's decision was an op or the step
     * when it was pushed, and a demotion since applies to its later calls only. */
    if (tp_likely(side_over == 0 && side_depth > 0 && side[side_depth - 1].fn == fn &&
                  tp_running())) {
        int *ep = errno_p(), e = *ep;
        end_side(&side[--side_depth]);
        *ep = e;
        return;
    }
    uint32_t d = decision_of(fn);
    if ((int32_t)d <= 0)
        tp_cyg_hooks++;
    else if (d != SKIP)
        op_exit(fn);
}

/* The fast path: a hit in this thread's cache on a function that is not an op, or (on entry, a
 * count) an op too short to time. Both are hooks that the ops around them take out of their
 * times (tp_cyg_hooks). */
#define HIT(l, fn)                                                                                 \
    (tp_likely((l)->fn == (uintptr_t)(fn) && (int32_t)(l)->decision <= 0 &&                        \
               (l)->gen == atomic_load_explicit(&gen, memory_order_relaxed)))

/* The entry below reads these by name and offset. */
_Static_assert(LOCAL_BITS == 9 && COUNT_MASK == 255 && HAS_WORK == 0x20000000 &&
                   sizeof(struct local) == 16 && offsetof(struct local, decision) == 8 &&
                   offsetof(struct local, gen) == 12,
               "__cyg_profile_func_enter's fast path hard-codes the cache layout");

/* The slow path, with the registers the entry saved (DWARF numbering, track/work/argloc.h): regs[7]
 * is the instrumented function's stack pointer at its call of the hook (the hook's CFA), regs[16]
 * the hook's return address; and the decision when the entry found it (an op's, > 0). */
TP_NOINSTR __attribute__((visibility("hidden"), used)) void tp_cyg_enter_regs(uintptr_t fn,
                                                                              uintptr_t site,
                                                                              uint64_t *regs,
                                                                              uint32_t known)
{
    (void)site;
    /* known: the op decision the entry found in this thread's cache, 0 when it found none */
    uint32_t d = known ? known : decision_of(fn);
    if ((int32_t)d <= 0) {
        tp_demote_tcount[d & COUNT_MASK]++;
        tp_cyg_hooks++;
    } else if (d != SKIP) {
        op_enter(fn, d, regs);
    }
}

/* __cyg_profile_func_enter(fn, site). The fast path, a hit in this thread's cache on a non-op or
 * a counted op (as in the exit hook), uses only %rax, %r10 and %r11, so that when it misses the
 * slow path finds every other register as the instrumented function had it at its call of the
 * hook: the work of an op comes from its parameters, which may be in any of them (the DWARF
 * never places one in those three there: track/work/argloc.c). The registers are saved in DWARF
 * order, for an op whose decision has HAS_WORK or a function not decided in this thread's cache
 * yet; an op without a work entry gets only the two slots it reads (regs[7], regs[16]). On
 * entry %rsp is 8 off the 16-byte alignment of a call, and 17 slots restore it. */
__asm__("    .text\n"
        "    .p2align 4\n"
        "    .globl __cyg_profile_func_enter\n"
        "    .type __cyg_profile_func_enter, @function\n"
        "__cyg_profile_func_enter:\n"
        "    .cfi_startproc\n"
        "    movabsq $0x9E3779B97F4A7C15, %rax\n"
        "    imulq %rdi, %rax\n"
        "    shrq $55, %rax\n"
        "    shlq $4, %rax\n"
        "    movq local_cache@gottpoff(%rip), %r11\n"
        "    addq %fs:0, %r11\n"
        "    cmpq %rdi, (%r11,%rax)\n"
        "    jne 4f\n"
        "    movl 12(%r11,%rax), %r10d\n"
        "    cmpl gen(%rip), %r10d\n"
        "    jne 4f\n"
        "    movl 8(%r11,%rax), %eax\n"
        "    testl %eax, %eax\n"
        "    jg 3f\n"
        "    je 2f\n"
        "    andl $255, %eax\n"
        "    movq tp_demote_tcount@gottpoff(%rip), %r11\n"
        "    addq $1, %fs:(%r11,%rax,8)\n"
        "2:  movq tp_cyg_hooks@gottpoff(%rip), %r11\n"
        "    addq $1, %fs:(%r11)\n"
        "    ret\n"
        /* an op with no work entry (HAS_WORK clear): only the stack pointer and the return
         * address are read, the other slots are left as they are */
        "3:  movl %eax, %r10d\n" /* the decision, for the slow path (4th argument) */
        "    testl $0x20000000, %eax\n"
        "    jnz 1f\n"
        "    subq $136, %rsp\n"
        "    .cfi_adjust_cfa_offset 136\n"
        "    jmp 5f\n"
        "    .cfi_adjust_cfa_offset -136\n"
        "4:  xorl %r10d, %r10d\n" /* not in this thread's cache: the slow path looks it up */
        "1:  subq $136, %rsp\n"
        "    .cfi_adjust_cfa_offset 136\n"
        "    movq %rax, 0(%rsp)\n"
        "    movq %rdx, 8(%rsp)\n"
        "    movq %rcx, 16(%rsp)\n"
        "    movq %rbx, 24(%rsp)\n"
        "    movq %rsi, 32(%rsp)\n"
        "    movq %rdi, 40(%rsp)\n"
        "    movq %rbp, 48(%rsp)\n"
        "    movq %r8, 64(%rsp)\n"
        "    movq %r9, 72(%rsp)\n"
        "    movq %r10, 80(%rsp)\n"
        "    movq %r11, 88(%rsp)\n"
        "    movq %r12, 96(%rsp)\n"
        "    movq %r13, 104(%rsp)\n"
        "    movq %r14, 112(%rsp)\n"
        "    movq %r15, 120(%rsp)\n"
        "5:  leaq 144(%rsp), %rax\n"
        "    movq %rax, 56(%rsp)\n"
        "    movq 136(%rsp), %rax\n"
        "    movq %rax, 128(%rsp)\n"
        "    movq %rsp, %rdx\n"
        "    movl %r10d, %ecx\n"
        "    call tp_cyg_enter_regs\n"
        "    addq $136, %rsp\n"
        "    .cfi_adjust_cfa_offset -136\n"
        "    ret\n"
        "    .cfi_endproc\n"
        "    .size __cyg_profile_func_enter, . - __cyg_profile_func_enter\n");

TP_EXPORT TP_NOINSTR __attribute__((optimize("omit-frame-pointer"))) void __cyg_profile_func_exit(
    void *fn, void *site)
{
    (void)site;
    struct local *l = &local_cache[hash_bits((uintptr_t)fn, LOCAL_BITS)];
    if (HIT(l, fn)) {
        tp_cyg_hooks++;
        return;
    }
    slow_exit((uintptr_t)fn);
}

void tp_cyg_forget(void)
{
    atomic_fetch_add(&gen, 1);
    tp_argwork_forget();
}

/* The cost of one non-op hook, as a program pays it: what -finstrument-functions adds to a tiny
 * function. The first routine below is what gcc -O2 makes of an instrumented function with an
 * argument: two callee-saved registers kept across the hook calls, the calls through the PLT,
 * our fast path. Its body is empty, like the second routine's: a body with a long dependency
 * chain would hide part of the hooks' cost, which is then under-counted. The difference between
 * the two, over two hooks, is the cost of one. */
void tp_cyg_cal_instr(long i) __attribute__((visibility("hidden")));
void tp_cyg_cal_plain(long i) __attribute__((visibility("hidden")));
__asm__("    .text\n"
        "    .p2align 4\n"
        "    .globl tp_cyg_cal_instr\n"
        "    .hidden tp_cyg_cal_instr\n"
        "    .type tp_cyg_cal_instr, @function\n"
        "tp_cyg_cal_instr:\n"
        "    pushq %rbp\n"
        "    leaq tp_cyg_cal_instr(%rip), %rbp\n"
        "    pushq %rbx\n"
        "    movq %rdi, %rbx\n"
        "    movq %rbp, %rdi\n"
        "    subq $8, %rsp\n"
        "    movq 24(%rsp), %rsi\n"
        "    call __cyg_profile_func_enter@PLT\n"
        "    movq 24(%rsp), %rsi\n"
        "    addq $8, %rsp\n"
        "    movq %rbp, %rdi\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    jmp __cyg_profile_func_exit@PLT\n"
        "    .size tp_cyg_cal_instr, . - tp_cyg_cal_instr\n"
        "    .p2align 4\n"
        "    .globl tp_cyg_cal_plain\n"
        "    .hidden tp_cyg_cal_plain\n"
        "    .type tp_cyg_cal_plain, @function\n"
        "tp_cyg_cal_plain:\n"
        "    ret\n"
        "    .size tp_cyg_cal_plain, . - tp_cyg_cal_plain\n");

/* The best of several rounds, so that a preemption during the measurement does not count. */
static uint64_t best_ticks(void (*f)(long), int n, int rounds)
{
    void (*volatile call)(long) = f;
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < rounds; r++) {
        uint64_t t0 = tp_ticks();
        for (long i = 0; i < n; i++)
            call(i);
        uint64_t t = tp_ticks() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static void measure(void)
{
    enum { N = 4096, ROUNDS = 25 };
    uintptr_t fake = (uintptr_t)&tp_cyg_cal_instr;
    struct local *l = &local_cache[hash_bits(fake, LOCAL_BITS)];
    struct local saved = *l;
    uint64_t hooks = tp_cyg_hooks;
    l->fn = fake;
    l->decision = NOT_OP;
    l->gen = atomic_load(&gen);
    uint64_t hooked = UINT64_MAX, plain = UINT64_MAX;
    /* interleaved, so that a change of clock speed or of load on the machine hits both alike */
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t h = best_ticks(tp_cyg_cal_instr, N, 1), p = best_ticks(tp_cyg_cal_plain, N, 1);
        if (h < hooked)
            hooked = h;
        if (p < plain)
            plain = p;
    }
    *l = saved;
    tp_cyg_hooks = hooks;
    uint64_t extra = hooked > plain ? hooked - plain : 0;
    tp_cyg_hook_cost_fp = (extra << 16) / (2 * N);
    cost_ps = tp_ticks_to_ns(extra * 1000) / (2 * N);
}

/* Once, at the first instrumented call: a program without -finstrument-functions never pays
 * for it. TPROF_HOOK_NS replaces the measurement (0 turns the correction off). The demotion line
 * is drawn from it after (track/ops/demote.c). */
static void calibrate(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&calibrated, &expect, 1))
        return;
    struct tp_own g = tp_own_begin();
    if (hook_ns_set) {
        /* ticks per ns from the clock's own calibration */
        uint64_t ns = tp_ticks_to_ns(1ull << 30);
        double ticks_per_ns = ns ? (double)(1ull << 30) / (double)ns : 1.0;
        tp_cyg_hook_cost_fp = (uint64_t)(hook_ns * ticks_per_ns * 65536.0 + 0.5);
        cost_ps = (uint64_t)(hook_ns * 1000.0 + 0.5);
    } else {
        measure();
    }
    tp_demote_hook_known((double)cost_ps / 1000.0, hook_ns_set);
    tp_own_end(g);
}

/* TPROF_HOOK_NS, parsed with every other setting (common/config.c): -1 when unset or malformed. */
static void read_hook_ns(void)
{
    if (tp_cfg.hook_ns < 0)
        return;
    hook_ns = tp_cfg.hook_ns;
    hook_ns_set = 1;
}

void tp_cyg_init(void)
{
    void *m = tp_pages_map(sizeof(struct entry) << GLOBAL_BITS, 0);
    if (m)
        global = m;
    read_hook_ns();
    tp_demote_init();
}

/* Before the first call of a hooked export is judged (preload/plt/shim_plt.c). That needs the
 * demotion line, not the correction of the -finstrument-functions hooks: the host's cache gives
 * it without a measurement, which was 2 ms of a short process's life in every process of a
 * build that calls a library's exports (the assembler, the compiler). Measured only when the
 * cache has no figure for this CPU, or by the first instrumented call. */
void tp_cyg_calibrate(void)
{
    int expect = 0;
    if (atomic_load_explicit(&calibrated, memory_order_relaxed) ||
        (!hook_ns_set && !atomic_compare_exchange_strong(&line_only, &expect, 1)))
        return; /* measured, or another thread is at it */
    if (!hook_ns_set) {
        struct tp_own g = tp_own_begin();
        int cached = tp_demote_line_cached();
        tp_own_end(g);
        if (cached)
            return;
    }
    calibrate();
}

void tp_names_collect(struct tp_report *r)
{
    if (atomic_load(&instr_ops_seen) && tp_cyg_hook_cost_fp)
        tp_report_note(r,
                       "op times exclude the -finstrument-functions hooks of the non-op "
                       "functions called inside them: %.2f ns each (%s)",
                       (double)cost_ps / 1000.0, hook_ns_set ? "TPROF_HOOK_NS" : "measured");
    if (atomic_load(&stale_calls))
        tp_report_note(r,
                       "%llu instrumented op calls were left by longjmp or an exception "
                       "without their exit hook; each ended when that was noticed",
                       (unsigned long long)atomic_load(&stale_calls));
    if (atomic_load(&side_full))
        tp_report_note(r, "%llu instrumented op calls nested deeper than %d were not timed",
                       (unsigned long long)atomic_load(&side_full), SIDE_MAX);
    if (atomic_load(&no_name))
        tp_report_note(r,
                       "%llu instrumented functions have no symbol (a stripped binary?): they "
                       "cannot be ops",
                       (unsigned long long)atomic_load(&no_name));
    tp_argwork_notes(r);
    tp_ggml_notes(r);
    if (atomic_load(&ggml_nodes))
        tp_report_note(r,
                       "ggml: its graph-node functions (ggml_compute_forward_<op>) were built "
                       "with -finstrument-functions: they are timed by its hooks, without FLOPs, "
                       "bytes or shapes, and every instrumented function of ggml pays for the "
                       "hooks; built without the flag, ggml is seen as it is: each node through "
                       "the library's PLT with its FLOPs, bytes and shapes, with no rebuild for "
                       "tprof");
    if (atomic_load(&global_full))
        tp_report_note(r,
                       "%llu instrumented-function lookups missed the decision table (too "
                       "many distinct functions): those calls were slower",
                       (unsigned long long)atomic_load(&global_full));
}
