/* Ops in shared libraries of a program that cannot be rebuilt (DESIGN §3, PITFALLS P14).
 *
 * A call from one module into an exported function of another (darknet → libdarknet.so's gemm),
 * or from a library into its own export (libdarknet's convolution → gemm, with gcc's default
 * semantic interposition), goes through the PLT and a GOT entry with a JUMP_SLOT relocation. For
 * every such entry of every loaded module whose symbol matches TPROF_OPS (or is TPROF_STEP), the
 * GOT entry is pointed at a stub of our own.
 *
 * Only JUMP_SLOT entries: they are reached by calls alone. An address taken (GLOB_DAT, a pointer
 * initialised in data) is left alone, so a function's address compares equal to itself wherever
 * it was taken: code such as OpenSSL's `if (malloc_impl != CRYPTO_malloc) return
 * malloc_impl(...)` would otherwise call itself forever. Calls through such a pointer are not
 * seen (darknet's layer->forward), except from a non-PIE executable, whose PLT entry is the
 * function's address and jumps through its own, hooked, JUMP_SLOT entry.
 *
 * Nothing here opens an object (dlopen, even RTLD_NOLOAD, would run the constructors still
 * pending in its group, out of order: a scan may run inside a constructor that calls dlopen or
 * malloc while the loader is initialising other objects). Everything is read from the memory
 * dl_iterate_phdr describes. A slot that ld.so has not relocated yet (another thread's dlopen
 * in progress) is left for the scan after that dlopen. A slot not bound yet (lazy binding) is
 * not bound by us either, unless both modules were loaded at start (patch_relocs): its stub
 * jumps to where the slot pointed, the PLT's call into ld.so's resolver, which binds it
 * (recording the dependency that keeps the target loaded, as for any call) and writes the
 * function into the slot; when that call returns, the stub is put back and jumps to that
 * function from then on. Nor is any module kept loaded by us.
 *
 * Each stub loads its slot number and jumps to one assembly routine that
 * saves every argument register (rdi..r9, rax for variadic calls, xmm0-7), asks tp_plt_enter()
 * whether and how to record the call, restores them, swaps the caller's return address for
 * tp_plt_return, and jumps to the original with the stack exactly as the caller left it — so any
 * signature, stack arguments and varargs included, passes through untouched. tp_plt_return saves
 * the return registers (rax, rdx, xmm0, xmm1), records the end, and returns to the real return
 * address, kept in a per-thread side stack keyed by the address of the return-address slot
 * (which also tells frames left by longjmp from live ones).
 *
 * Known signatures give FLOPs, bytes and a shape (darknet's gemm). A PLT op called from inside a
 * PLT op of the same family (gemm → gemm_cpu → gemm_nn) is part of it and is not recorded again.
 *
 * Not hooked: functions tprof interposes itself (the BLAS wrappers), the C runtime, language
 * runtimes and system libraries (denied()), tprof's own dependencies, and the exports of C++ libraries matched only by a glob of TPROF_OPS (an exception
 * unwinding through a hooked call would find tp_plt_return, which has no unwind information,
 * instead of the real caller). A C function of such a library (darknet's gemm in a libdarknet.so
 * that links libstdc++ for its OpenCV glue) is hooked when TPROF_OPS names it exactly: the user
 * says it does not throw. The report counts the exports left alone. */
#include <elf.h>
#include <stdio.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "track/runtime.h"
#include "preload/names.h"
#include "track/ops.h"
#include "report/report.h"
#include "preload/resolve.h"
#include "track/sites.h"
#include "track/stack.h"

#define NSTUBS 4096
#define STUB_SIZE 16
#define FRAMES_MAX 128

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

__asm__(
    "    .text\n"
    "    .p2align 4\n"
    "    .globl tp_plt_stubs\n"
    "    .hidden tp_plt_stubs\n"
    "    .type tp_plt_stubs, @function\n"
    "tp_plt_stubs:\n"
    "    .set tp_plt_i, 0\n"
    "    .rept 4096\n"
    "    movl $tp_plt_i, %r11d\n"
    "    jmp tp_plt_common\n"
    "    .p2align 4\n"
    "    .set tp_plt_i, tp_plt_i + 1\n"
    "    .endr\n"
    "    .size tp_plt_stubs, . - tp_plt_stubs\n"
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

/* ---- slots: one per hooked function ---- */

enum sig { SIG_NONE, SIG_DARKNET_GEMM, SIG_DARKNET_GEMM_INNER };
enum family { FAM_OTHER, FAM_MATMUL, FAM_GEMV };

struct slot {
    _Atomic uintptr_t target; /* the real function; 0 while the slot is free */
    uintptr_t lazy;           /* the GOT entry's value before ld.so bound it, else 0 */
    _Atomic(uintptr_t *) got; /* that GOT entry, while its module is loaded (lazy slots) */
    _Atomic int id;           /* op id; -1 when only the step; ID_PENDING until the first call */
    int step;                 /* TPROF_STEP */
    enum sig sig;
    enum family family;
    char *name;
};

struct frame {
    uintptr_t ra, retslot;
    uint32_t slot;
    int pushed, step, has_shape;
    uint64_t flops, bytes;
    struct tp_shape_key shape;
};

int tp_plt_hooked;
static struct slot slots[NSTUBS];
static _Atomic int nslots;
static int plt_on;
static unsigned char *family_of_id; /* op id → family, for ops interned here */
static int family_cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t patched, slots_full, protect_failed, frames_full, deepbind, stale_calls;

static TP_TLS struct frame frames[FRAMES_MAX];
static TP_TLS int depth;
static TP_TLS volatile int busy; /* a signal handler's hooked call while we work passes through */

/* Signatures tprof knows, by exported name. tpop_gemm and tpop_gemm_nn are the test library's
 * stand-ins for darknet's (tests/victims/libtpop.c). */
static const struct {
    const char *name;
    enum sig sig;
} sigs[] = {
    {"gemm", SIG_DARKNET_GEMM},          {"gemm_cpu", SIG_DARKNET_GEMM},
    {"tpop_gemm", SIG_DARKNET_GEMM},     {"gemm_nn", SIG_DARKNET_GEMM_INNER},
    {"gemm_nt", SIG_DARKNET_GEMM_INNER}, {"gemm_tn", SIG_DARKNET_GEMM_INNER},
    {"gemm_tt", SIG_DARKNET_GEMM_INNER}, {"tpop_gemm_nn", SIG_DARKNET_GEMM_INNER},
};

static enum sig sig_of(const char *name)
{
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (!strcmp(sigs[i].name, name))
            return sigs[i].sig;
    return SIG_NONE;
}

static int64_t arg_int(uint64_t reg)
{
    return (int64_t)(int32_t)(uint32_t)reg; /* an int argument: the low 32 bits, sign-extended */
}

static uint64_t nonneg(int64_t v)
{
    return v > 0 ? (uint64_t)v : 0;
}

/* darknet: gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B,
 * int ldb, float BETA, float *C, int ldc), C = ALPHA*op(A)*op(B) + BETA*C;
 * gemm_nn(int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb, float *C,
 * int ldc), C += ALPHA*A*B. 2*M*N*K FLOPs; bytes as for sgemm (DESIGN §4). */
static void work_of(enum sig sig, const struct tp_plt_regs *r, struct frame *f)
{
    int64_t m, n, k;
    char ta = 'N', tb = 'N';
    int beta_nonzero = 1;
    if (sig == SIG_DARKNET_GEMM) {
        float beta;
        memcpy(&beta, r->xmm[1], sizeof beta);
        ta = arg_int(r->rdi) ? 'T' : 'N';
        tb = arg_int(r->rsi) ? 'T' : 'N';
        m = arg_int(r->rdx);
        n = arg_int(r->rcx);
        k = arg_int(r->r8);
        beta_nonzero = beta != 0.0f;
    } else if (sig == SIG_DARKNET_GEMM_INNER) {
        m = arg_int(r->rdi);
        n = arg_int(r->rsi);
        k = arg_int(r->rdx);
    } else {
        return;
    }
    uint64_t M = nonneg(m), N = nonneg(n), K = nonneg(k);
    f->flops = 2 * M * N * K;
    f->bytes = 4 * (M * K + K * N + M * N + (beta_nonzero ? M * N : 0));
    memset(&f->shape, 0, sizeof f->shape); /* ops.c compares keys bytewise */
    f->shape.m = m;
    f->shape.n = n;
    f->shape.k = k;
    f->shape.transa = ta;
    f->shape.transb = tb;
    f->shape.layout = 'R';
    f->has_shape = 1;
}

static enum family family_of(const char *kind)
{
    return !strcmp(kind, "matmul") ? FAM_MATMUL : !strcmp(kind, "gemv") ? FAM_GEMV : FAM_OTHER;
}

/* Is a call of slot s, made while PLT op `top` is open, a part of that op? */
static int part_of_top(const struct slot *s)
{
    if (!tp_op_top_is(TP_SRC_PLT))
        return 0;
    int top = tp_ops_current();
    if (top < 0 || top == s->id)
        return 0; /* recursion is counted: ops.c keeps the total right */
    if (s->family != FAM_OTHER && top < family_cap && family_of_id[top] == s->family)
        return 1;
    const char *tn = tp_ops_name(top);
    return tn && !strncmp(s->name, tn, strlen(tn));
}

/* A hooked export becomes an op on its first call, not when it is hooked: a library exports
 * many functions that match TPROF_OPS and a program calls few of them, and each op takes a slot
 * of TPROF_MAX_OPS. */
#define ID_PENDING (-2)

static int slot_op(struct slot *s)
{
    int id = atomic_load_explicit(&s->id, memory_order_acquire);
    if (id != ID_PENDING)
        return id;
    id = tp_op_intern(s->name, tp_names_kind(s->name), TP_SRC_PLT);
    if (id >= 0 && id < family_cap)
        family_of_id[id] = (unsigned char)s->family;
    atomic_store_explicit(&s->id, id, memory_order_release);
    return id;
}

static int is_stub(uintptr_t a);

static uintptr_t stub_of(uint32_t i)
{
    return (uintptr_t)tp_plt_stubs + (uintptr_t)i * STUB_SIZE;
}

/* Still waiting for ld.so to bind the slot's GOT entry (see the top of this file)? */
static int unbound(const struct slot *s)
{
    return s->lazy && atomic_load_explicit(&s->target, memory_order_acquire) == s->lazy;
}

/* After a call through a slot that was not bound: ld.so's resolver has bound the GOT entry,
 * writing the function over our stub. From now on the stub jumps there, and the entry leads to
 * the stub again. */
static void settle(uint32_t i)
{
    struct slot *s = &slots[i];
    uintptr_t *got = atomic_load(&s->got);
    if (!got || !unbound(s))
        return;
    uintptr_t f = __atomic_load_n(got, __ATOMIC_ACQUIRE);
    if (f == s->lazy || is_stub(f))
        return; /* not written (LD_BIND_NOT): every call goes through the resolver */
    uintptr_t want = s->lazy;
    if (!atomic_compare_exchange_strong(&s->target, &want, f))
        return;
    if (tp_addr_is_ours(f)) {
        atomic_store(&s->got, NULL); /* tprof wraps it itself: the entry keeps the wrapper */
        return;
    }
    __atomic_compare_exchange_n(got, &f, stub_of(i), 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static void end_frame(const struct frame *f, int stale)
{
    if (f->pushed)
        tp_op_end(slots[f->slot].id, f->retslot, f->retslot, f->flops, f->bytes,
                  f->has_shape ? &f->shape : NULL);
    if (f->step)
        tp_step_end();
    if (stale && (f->pushed || f->step))
        atomic_fetch_add_explicit(&stale_calls, 1, memory_order_relaxed);
    settle(f->slot);
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
    busy = 1;
    uintptr_t rs = (uintptr_t)retslot;
    tp_stack_known();
    /* On the thread's own stack a live caller's slot is above ours: entries at or below it were
     * left by longjmp or an exception, and end now. Calls on another stack (sigaltstack,
     * coroutines) are left alone. */
    if (tp_on_own_stack(rs))
        while (depth > 0 && frames[depth - 1].retslot <= rs && tp_on_own_stack(frames[depth - 1].retslot))
            end_frame(&frames[--depth], 1);
    int part = 0;
    if (depth >= FRAMES_MAX) {
        atomic_fetch_add_explicit(&frames_full, 1, memory_order_relaxed);
    } else if (!(part = part_of_top(s)) || unbound(s)) {
        /* A call through an unbound slot returns through tp_plt_return even when it is not
         * recorded: its GOT entry must be settled once ld.so has bound it. */
        struct frame *f = &frames[depth];
        f->ra = *retslot;
        f->retslot = rs;
        f->slot = i;
        f->pushed = f->step = f->has_shape = 0;
        f->flops = f->bytes = 0;
        if (!part && s->sig != SIG_NONE)
            work_of(s->sig, r, f);
        if (!part && s->step) {
            tp_step_begin();
            f->step = 1;
        }
        int id = part ? -1 : slot_op(s);
        if (id >= 0)
            f->pushed = tp_op_begin(id, rs, rs);
        if (f->pushed || f->step || unbound(s)) {
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
         * scheduler moving coroutines) gets here: its return address is in that thread's
         * side stack. There is nowhere to return to. */
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
    end_frame(&f, 0);
    busy = 0;
    errno = e;
    return f.ra;
}

/* ---- finding and patching GOT entries ---- */

struct module {
    char *name;                /* dlpi_name ("" for the main program) */
    uintptr_t bias, lo, hi;
    const ElfW(Dyn) *dyn;
    uintptr_t relro_lo, relro_hi; /* pages ld.so made read-only after relocation */
    int deny;                  /* a runtime library: neither patched nor a target */
    int cxx;                   /* links a C++ runtime: not a target */
    int initial;               /* loaded before tprof's first scan: never unloaded */
};

struct modlist {
    struct module *v;
    size_t n, cap;
};

/* Modules whose GOT is already hooked: (name, bias). */
struct done {
    char *name;
    uintptr_t bias;
    int initial;
};
static struct done *done;
static int scanned; /* the modules loaded at start have been seen */
static size_t ndone, capdone;

static uintptr_t dyn_ptr(const struct module *m, uintptr_t v)
{
    /* ld.so rewrites most d_ptr entries to run-time addresses; an unrewritten one is an
     * offset from the load bias. */
    return v < m->lo ? v + m->bias : v;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The C runtime, the toolchain's and languages' runtimes, system libraries and tprof's own
 * dependencies: their exports are not ML ops (glibc's iconv would match *conv*, OpenSSL's
 * *update* digests), tprof must not hook calls it makes itself, and the hook must not be in the
 * way of code that is called millions of times or plays tricks with its own functions. */
static int denied(const char *path)
{
    static const char *const prefixes[] = {
        "libc.so",     "libm.so",    "libmvec.so", "ld-linux",  "ld64.so",   "libpthread.so",
        "libdl.so",    "librt.so",   "libgcc_s.so", "libstdc++", "libc++",    "libunwind",
        "libdw.so",    "libdw-",     "libelf.so",  "libelf-",   "libz.so",   "liblzma.so",
        "libbz2.so",   "libzstd.so", "libgomp.so", "libtprof",  "linux-vdso", "libresolv.so",
        "libnss_",     "libcrypt.so", "libatomic.so", "libquadmath.so", "libgfortran.so",
        "libcrypto.so", "libssl.so", "libgcrypt.so", "libgpg-error.so", "libgnutls.so",
        "libnettle.so", "libhogweed.so", "libgmp.so", "libpython", "libffi.so", "libexpat.so",
        "libuuid.so",  "liblz4.so",  "libbrotli", "libsqlite3.so", "libreadline.so",
        "libtinfo.so", "libncurses", "libglib-2.0", "libgobject-2.0", "libgio-2.0",
        "libgmodule-2.0", "libgthread-2.0", "libpcre", "libselinux.so", "libsystemd.so",
        "libcap.so",   "libdbus-1.so", "libomp.so", "libiomp5.so", "libtbb", "libnuma.so",
        /* MPI runtimes' internals (opal_convertor_* matched *conv*); libmpi's API stays. */
        "libopen-pal.so", "libopen-rte.so", "libpmix.so", "mca_", "libhwloc.so", "libevent",
        "libucp.so",   "libucs.so",  "libuct.so",  "libfabric.so", "libpsm"};
    const char *b = base_name(path);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(b, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

static int list_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct modlist *l = arg;
    (void)size;
    struct module m = {0};
    m.lo = UINTPTR_MAX;
    m.bias = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD) {
            if (a < m.lo)
                m.lo = a;
            if (a + ph->p_memsz > m.hi)
                m.hi = a + ph->p_memsz;
        } else if (ph->p_type == PT_DYNAMIC) {
            m.dyn = (const ElfW(Dyn) *)a;
        } else if (ph->p_type == PT_GNU_RELRO) {
            uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
            m.relro_lo = a & ~(pg - 1);
            m.relro_hi = (a + ph->p_memsz) & ~(pg - 1);
        }
    }
    if (m.hi <= m.lo)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct module *v = tp_realloc(l->v, cap * sizeof *v);
        if (!v)
            return 1;
        l->v = v;
        l->cap = cap;
    }
    m.name = tp_strdup(info->dlpi_name ? info->dlpi_name : "");
    if (!m.name)
        return 1;
    m.deny = denied(m.name) || tp_addr_is_ours(m.lo);
    l->v[l->n++] = m;
    return 0;
}

/* Does the module link a C++ runtime (DT_NEEDED libstdc++ / libc++)? */
static int needs_cxx(const struct module *m)
{
    const char *strtab = NULL;
    if (!m->dyn)
        return 0;
    for (const ElfW(Dyn) *d = m->dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            strtab = (const char *)dyn_ptr(m, d->d_un.d_ptr);
    if (!strtab)
        return 0;
    for (const ElfW(Dyn) *d = m->dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_NEEDED) {
            const char *b = strtab + d->d_un.d_val;
            if (!strncmp(b, "libstdc++", 9) || !strncmp(b, "libc++", 6))
                return 1;
        }
    return 0;
}

static void free_list(struct modlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        tp_free(l->v[i].name);
    tp_free(l->v);
}

static const struct module *module_at(const struct modlist *l, uintptr_t a)
{
    for (size_t i = 0; i < l->n; i++)
        if (a >= l->v[i].lo && a < l->v[i].hi)
            return &l->v[i];
    return NULL;
}

static int is_stub(uintptr_t a)
{
    uintptr_t b = (uintptr_t)tp_plt_stubs;
    return a >= b && a < b + (uintptr_t)NSTUBS * STUB_SIZE;
}

/* The slot for a target function, made on first use. -1 when the stubs are all taken. */
static int slot_for(uintptr_t target, const char *name, int want_op, int step)
{
    int n = atomic_load(&nslots);
    for (int i = 0; i < n; i++)
        if (atomic_load(&slots[i].target) == target && !strcmp(slots[i].name, name))
            return i;
    if (n >= NSTUBS) {
        atomic_fetch_add(&slots_full, 1);
        return -1;
    }
    struct slot *s = &slots[n];
    s->name = tp_strdup(name);
    if (!s->name)
        return -1;
    const char *kind = tp_names_kind(name);
    s->step = step;
    s->sig = sig_of(name);
    s->family = family_of(kind);
    atomic_store(&s->id, want_op ? ID_PENDING : -1);
    atomic_store_explicit(&s->target, target, memory_order_release);
    atomic_store(&nslots, n + 1);
    tp_plt_hooked = 1;
    return n;
}

static void write_got(const struct module *m, uintptr_t *got, uintptr_t value)
{
    uintptr_t a = (uintptr_t)got;
    int ro = a >= m->relro_lo && a < m->relro_hi;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *page = (void *)(a & ~(pg - 1));
    if (ro && mprotect(page, pg, PROT_READ | PROT_WRITE) != 0) {
        atomic_fetch_add(&protect_failed, 1);
        return;
    }
    __atomic_store_n(got, value, __ATOMIC_RELEASE);
    if (ro)
        mprotect(page, pg, PROT_READ);
    atomic_fetch_add(&patched, 1);
}

static struct done *done_entry(const struct module *m)
{
    for (size_t i = 0; i < ndone; i++)
        if (done[i].bias == m->bias && !strcmp(done[i].name, m->name))
            return &done[i];
    return NULL;
}

static void mark_done(const struct module *m)
{
    if (ndone == capdone) {
        size_t cap = capdone ? 2 * capdone : 64;
        struct done *v = tp_realloc(done, cap * sizeof *v);
        if (!v)
            return;
        done = v;
        capdone = cap;
    }
    done[ndone].name = tp_strdup(m->name);
    if (done[ndone].name) {
        done[ndone].bias = m->bias;
        done[ndone].initial = m->initial;
        ndone++;
    }
}

/* The first module in load order that defines name, and where (*ifunc: that is an IFUNC
 * resolver). For a module loaded at start, when that module was loaded at start too, it is
 * exactly where ld.so binds the name: those modules make up the start of the global scope, in
 * load order, and the global scope is searched first. Otherwise it is a guess: a library loaded
 * RTLD_LOCAL may bind to another copy, in its own scope. NULL if no module defines it (yet). */
static const struct module *first_def(const struct modlist *l, const char *name, uintptr_t *at,
                                      int *ifunc)
{
    for (size_t i = 0; i < l->n; i++) {
        *at = tp_elf_find(l->v[i].bias, l->v[i].lo, l->v[i].dyn, name, ifunc);
        if (*at)
            return &l->v[i];
    }
    return NULL;
}

/* Is name an entry of TPROF_OPS written out in full (no wildcard), not a glob that caught it? */
static int named_exactly(const char *name)
{
    const char *p = tp_cfg.ops;
    size_t n = strlen(name);
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ')
            p++, len--;
        while (len && p[len - 1] == ' ')
            len--;
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* Internals of MPI runtimes exported from libmpi itself (ompi_datatype_default_convertors_init
 * matched *conv*), and Python's C API, which a python executable exports itself
 * (PyUnicode_FSConverter matched *conv*): never a model's op unless named exactly. */
static int runtime_internal(const char *name)
{
    static const char *const prefixes[] = {"ompi_", "opal_", "orte_", "pmix_", "mca_", "Py", "_Py"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}

static _Atomic uint64_t cxx_skipped;
static char cxx_example[128];

static void note_cxx_skipped(const char *name)
{
    if (atomic_fetch_add(&cxx_skipped, 1) == 0)
        snprintf(cxx_example, sizeof cxx_example, "%s", name);
}

/* Patch module m's JUMP_SLOT entries in rel[0..count). Returns how many wanted entries ld.so had
 * not relocated yet (the module is being loaded on another thread): they are left for a later
 * scan, since ld.so would overwrite them. */
static size_t patch_relocs(const struct modlist *l, const struct module *m, const ElfW(Rela) *rel,
                           size_t count, const ElfW(Sym) *symtab, const char *strtab, size_t strsz,
                           const ElfW(Half) *versym)
{
    size_t unrelocated = 0;
    for (size_t i = 0; i < count; i++) {
        /* Only call sites: see the top of this file. */
        if ((unsigned)ELF64_R_TYPE(rel[i].r_info) != R_X86_64_JUMP_SLOT)
            continue;
        const ElfW(Sym) *sym = &symtab[ELF64_R_SYM(rel[i].r_info)];
        int st = ELF64_ST_TYPE(sym->st_info);
        if (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE)
            continue;
        if (!sym->st_name || (strsz && sym->st_name >= strsz))
            continue;
        const char *name = strtab + sym->st_name;
        if (name[0] == '_' && name[1] == 'Z')
            continue; /* C++: see the top of this file */
        int want_op = tp_ops_match(tp_cfg.ops, name), step = tp_names_is_step(name);
        if (want_op && runtime_internal(name) && !named_exactly(name))
            want_op = 0;
        if (!want_op && !step)
            continue;
        uintptr_t *got = (uintptr_t *)(m->bias + rel[i].r_offset);
        uintptr_t cur = __atomic_load_n(got, __ATOMIC_ACQUIRE);
        if (!cur || is_stub(cur))
            continue; /* 0: a weak import nobody defines */
        /* Not relocated yet, the entry still holds the file's value: an offset into the module
         * (which, unlike any address it will hold, is mapped nowhere). */
        if (cur + m->bias >= m->lo && cur + m->bias < m->hi && !module_at(l, cur)) {
            unrelocated++;
            continue;
        }
        /* Not bound yet (lazy binding): the entry points back into the module's own PLT, to
         * the code that calls ld.so's resolver, and so will the stub (see the top of this
         * file). (An entry of a library bound to its own export also points into the module;
         * the stub then jumps straight to the function, which is as right.) Between modules
         * loaded at start, where ld.so will bind is known exactly (first_def), and no module
         * involved can be unloaded: the entry is bound here, so that the first call is seen
         * even if it never returns (longjmp). Not for a versioned import, which may skip a
         * definition of another version, nor an IFUNC, whose resolver is not ours to run. */
        uintptr_t lazy = cur >= m->lo && cur < m->hi ? cur : 0, target = cur;
        const struct module *def = module_at(l, cur);
        if (lazy) {
            uintptr_t at;
            int ifunc;
            def = first_def(l, name, &at, &ifunc);
            size_t k = ELF64_R_SYM(rel[i].r_info);
            if (def && m->initial && def->initial && !ifunc && !(versym && versym[k] > 1)) {
                target = at;
                lazy = 0;
            }
        }
        if (!def || def->deny || tp_addr_is_ours(target))
            continue; /* tprof interposes it itself (BLAS: libtprof is denied), or a runtime */
        if (def->cxx && !(want_op && named_exactly(name))) {
            if (want_op)
                note_cxx_skipped(name);
            continue;
        }
        int s = slot_for(target, name, want_op, step);
        if (s < 0)
            continue;
        if (lazy) {
            slots[s].lazy = cur;
            atomic_store(&slots[s].got, got);
        }
        write_got(m, got, stub_of((uint32_t)s));
    }
    return unrelocated;
}

/* Patch module m; 0 if some entries must wait for ld.so to relocate them. */
static int patch_module(const struct modlist *l, const struct module *m)
{
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL;
    const ElfW(Half) *versym = NULL;
    size_t strsz = 0, pltrelsz = 0;
    long pltrel = DT_RELA;
    for (const ElfW(Dyn) *d = m->dyn; d && d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_ptr(m, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_ptr(m, d->d_un.d_ptr); break;
        case DT_STRSZ: strsz = d->d_un.d_val; break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_ptr(m, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
        case DT_PLTREL: pltrel = (long)d->d_un.d_val; break;
        case DT_VERSYM: versym = (const ElfW(Half) *)dyn_ptr(m, d->d_un.d_ptr); break;
        }
    }
    if (!symtab || !strtab || !jmprel || pltrel != DT_RELA)
        return 1;
    return patch_relocs(l, m, jmprel, pltrelsz / sizeof(ElfW(Rela)), symtab, strtab, strsz,
                        versym) == 0;
}

/* Entries whose stub a call did not get to put back (made while tprof was not recording, or
 * left by longjmp; or bound by two threads at once, the later one writing over the stub). */
static void resettle(void)
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
            __atomic_compare_exchange_n(got, &cur, stub_of((uint32_t)i), 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED);
    }
}

void tp_plt_scan(void)
{
    if (!plt_on)
        return;
    int g = tp_guard;
    tp_guard = 1; /* our lists allocate */
    pthread_mutex_lock(&lock);
    struct modlist l = {0};
    dl_iterate_phdr(list_module, &l);
    for (size_t i = 0; i < l.n; i++) {
        struct done *d = done_entry(&l.v[i]);
        l.v[i].cxx = needs_cxx(&l.v[i]);
        l.v[i].initial = !scanned || (d && d->initial);
    }
    for (size_t i = 0; i < l.n; i++) {
        struct module *m = &l.v[i];
        if (done_entry(m))
            continue;
        if (m->deny || patch_module(&l, m))
            mark_done(m);
    }
    resettle();
    scanned = 1;
    free_list(&l);
    pthread_mutex_unlock(&lock);
    tp_guard = g;
}

static int got_present(const struct modlist *l, uintptr_t a)
{
    for (size_t j = 0; j < l->n; j++)
        if (a >= l->v[j].lo && a < l->v[j].hi)
            return 1;
    return 0;
}

void tp_plt_forget(void)
{
    if (!plt_on)
        return;
    int g = tp_guard;
    tp_guard = 1;
    pthread_mutex_lock(&lock);
    struct modlist l = {0};
    dl_iterate_phdr(list_module, &l);
    size_t k = 0;
    for (size_t i = 0; i < ndone; i++) {
        int present = 0;
        for (size_t j = 0; j < l.n && !present; j++)
            present = l.v[j].bias == done[i].bias && !strcmp(l.v[j].name, done[i].name);
        if (present)
            done[k++] = done[i];
        else
            tp_free(done[i].name); /* loaded again later, it is hooked again */
    }
    ndone = k;
    /* A lazy slot's GOT entry went with its module: never written again. */
    int n = atomic_load(&nslots);
    for (int i = 0; i < n; i++) {
        uintptr_t *got = atomic_load(&slots[i].got);
        if (got && !got_present(&l, (uintptr_t)got))
            atomic_store(&slots[i].got, NULL);
    }
    free_list(&l);
    pthread_mutex_unlock(&lock);
    tp_guard = g;
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
}

void tp_plt_init(void)
{
    plt_on = tp_cfg.plt; /* TPROF_PLT, parsed with every other setting (src/config.c) */
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    /* This thread's stack now (the malloc shims' stack walk needs it too, PLT hooks or not), not
     * in a hooked call that may run in a signal handler, where glibc's reading of
     * /proc/self/maps for the main thread could deadlock. */
    tp_stack_learn();
    if (!plt_on)
        return;
    family_cap = (int)tp_cfg.max_ops;
    family_of_id = tp_calloc((size_t)family_cap, 1);
    if (!family_of_id)
        family_cap = 0;
    tp_plt_scan();
}

void tp_dl_note_deepbind(void)
{
    atomic_fetch_add(&deepbind, 1);
}

void tp_plt_collect(struct tp_report *r)
{
    if (!plt_on)
        return;
    if (atomic_load(&cxx_skipped))
        tp_report_note(r, "%llu imports matching TPROF_OPS lead into libraries that link a C++ "
                          "runtime and were not hooked (%s, ...): an exception could not unwind "
                          "through the hook; a C function that never lets one through is hooked "
                          "when TPROF_OPS names it exactly", (unsigned long long)atomic_load(&cxx_skipped),
                       cxx_example);
    if (atomic_load(&slots_full))
        tp_report_note(r, "%llu shared-library functions were not hooked: all %d PLT stubs are "
                          "in use", (unsigned long long)atomic_load(&slots_full), NSTUBS);
    if (atomic_load(&protect_failed))
        tp_report_note(r, "%llu GOT entries could not be made writable and were not hooked",
                       (unsigned long long)atomic_load(&protect_failed));
    if (atomic_load(&frames_full))
        tp_report_note(r, "%llu calls hooked through the PLT nested deeper than %d were not "
                          "timed", (unsigned long long)atomic_load(&frames_full), FRAMES_MAX);
    if (atomic_load(&stale_calls))
        tp_report_note(r, "%llu calls hooked through the PLT were left by longjmp or an exception; "
                          "each ended when that was noticed",
                       (unsigned long long)atomic_load(&stale_calls));
    if (atomic_load(&deepbind))
        tp_report_note(r, "RTLD_DEEPBIND was removed from %llu dlopen calls: it would bypass "
                          "tprof's wrappers", (unsigned long long)atomic_load(&deepbind));
}
