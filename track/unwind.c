/* The malloc shims' stack walk (see unwind.h).
 *
 * On x86-64 nearly every frame's rule is "CFA = rsp or rbp + k, return address at CFA - 8, rbp
 * saved at CFA + j or unchanged": once known for a return address, a step is a table lookup and
 * two loads. The table is shared by all threads and lock-free to read; a miss reads the rule from
 * the module's .eh_frame with libdw (dwarf_getcfi_elf) under a lock. libunwind's fast path
 * (tdep_trace) works the same way; doing it here skips its context set-up (700 instructions for
 * a five-frame stack, bench/RESULTS.md) and keeps libunwind out of the program.
 *
 * The frames a simple rule does not describe are handled here too:
 *   - the kernel's signal trampoline (__restore_rt: "mov $15,%rax; syscall"): the interrupted
 *     registers are in the ucontext the kernel put at the handler's CFA, and the interrupted pc
 *     is an instruction of its own, not a return address (its rule is read at pc, not pc - 1);
 *   - a CFA given by a DWARF expression, as the linker writes for PLT stubs: the expression is
 *     kept and evaluated on rsp, rbp and rip (a small evaluator: constants, register + offset,
 *     arithmetic, comparisons and shifts; anything else, a memory read above all, stops);
 *   - the vDSO, which has no file: its .eh_frame is read from a copy of its image.
 * Anything else stops the walk where it is: code without CFI, a rule on another register, a
 * frame outside the thread's stack. The frames found so far are kept: a shorter stack is never a
 * wrong one. */
#include "common/pages.h"
#include "track/unwind.h"

#include <dwarf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "track/dwlib.h"
#include "track/runtime.h"
#include "track/stack.h"

#define DWREG_RBP 6
#define DWREG_RSP 7
#define DWREG_RA 16 /* the return address column, and rip in expressions */

/* A return address's rule: where its frame's CFA is (rsp or rbp + cfa_off), where the return
 * address and the caller's rbp are (CFA + offset, both at least 8 below it), how many bytes below
 * the CFA the frame must have for those reads to stay in it (need), and what kind of frame it
 * is. Written once, before the slot's key is published (release); read after the key is seen
 * (acquire). */
enum {
    R_ON_RBP = 1,    /* CFA = rbp + off, else rsp + off */
    R_RBP_SAVED = 2, /* the caller's rbp is at CFA + rbp_off */
    R_RBP_LOST = 4,  /* the caller's rbp cannot be known */
    R_LAST = 8,      /* the outermost frame: no return address */
    R_NO = 16,       /* no rule the walk can follow: it stops here */
    R_SIGNAL = 32,   /* the signal trampoline: registers from the ucontext at the CFA */
    R_EXPR = 64,     /* CFA = exprs[cfa_off] evaluated */
};

struct rule {
    int32_t cfa_off;
    int16_t ra_off, rbp_off;
    uint16_t flags, need;
};

struct rule_slot {
    _Atomic uintptr_t key;
    struct rule r;
};

/* A slot's key is the return address; an interrupted pc (the frame under a signal trampoline)
 * has this bit added: its rule is the one at pc, not at the call before it. No user-space
 * address has the bit. A key taken out (its module was unloaded) becomes TOMB: lookups go on
 * past it, nothing is stored there again, and the rule it had stays as it was for a reader that
 * is looking at it right now. */
#define KEY_EXACT ((uintptr_t)1 << 63)
#define TOMB ((uintptr_t)1)

#define RULE_BITS 14 /* 16,384 return addresses, 384 KiB mapped, touched as used */
#define RULE_SLOTS (1u << RULE_BITS)
#define RULE_MAX (RULE_SLOTS / 4 * 3)

static struct rule_slot *rules;
static _Atomic unsigned rules_used; /* keys and tombstones */
static _Atomic int state;           /* 0 not set up, 1 on, -1 off */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static TP_TLS int holding; /* this thread holds the lock (for a fork from a signal handler) */

/* Where a frame's CFA may be: above the frame's stack pointer, not absurdly far (a frame of
 * 16 MiB is no frame), and below the top of the thread's stack. The walk stops rather than read
 * anything else: rules read from a file that was replaced on disk, a stack the program switched
 * to (sigaltstack, ucontext, a green-thread library). */
#define FRAME_MAX (16u << 20)

/* How long a walk waits for another thread reading rules. The lock is only ever held around
 * libdw's reading of one rule (milliseconds for a module's first), never while waiting for
 * anything else, so the wait ends; the bound is a guard against the unforeseen: past it this one
 * walk stops where it is. */
#define LOCK_WAIT_S 2

static int take_lock(void)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += LOCK_WAIT_S;
    if (pthread_mutex_clocklock(&lock, CLOCK_MONOTONIC, &until) != 0)
        return 0;
    holding = 1;
    return 1;
}

static void drop_lock(void)
{
    holding = 0;
    pthread_mutex_unlock(&lock);
}

/* ---- CFA expressions ---- */

/* One operation, normalised: DW_OP_bregN and DW_OP_bregx become BREG with reg, DW_OP_litN and
 * the constants become CONST; the rest keep their opcode. */
enum { X_BREG = 0x100, X_CONST };
struct xop {
    uint16_t op;
    uint8_t reg;
    uint64_t v;
};
#define XOPS_MAX 12
#define XSTACK 8
struct expr {
    uint8_t n;
    struct xop op[XOPS_MAX];
};
/* Written under the lock before the rule that names it is published; never changed after. PLT
 * stubs of every module share one or two expressions. */
#define EXPRS_MAX 32
static struct expr exprs[EXPRS_MAX];
static int nexprs;

static int binary(int atom)
{
    switch (atom) {
    case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_and: case DW_OP_or:
    case DW_OP_xor: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_ge:
    case DW_OP_gt: case DW_OP_le: case DW_OP_lt: case DW_OP_eq: case DW_OP_ne:
        return 1;
    }
    return 0;
}

static int same_expr(const struct expr *a, const struct expr *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (a->op[i].op != b->op[i].op || a->op[i].reg != b->op[i].reg || a->op[i].v != b->op[i].v)
            return 0;
    return 1;
}

/* The expression's index in exprs, or -1 when it uses what the walk cannot evaluate. The stack
 * depth is checked here, so that evaluation needs no checks but rbp's. */
static int intern_expr(const Dwarf_Op *ops, size_t n)
{
    struct expr e = {0};
    int depth = 0;
    if (n == 0 || n > XOPS_MAX)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned a = ops[i].atom;
        struct xop x = {(uint16_t)a, 0, ops[i].number};
        if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
            x = (struct xop){X_BREG, (uint8_t)(a - DW_OP_breg0), ops[i].number};
        } else if (a == DW_OP_bregx) {
            if (ops[i].number > 31)
                return -1;
            x = (struct xop){X_BREG, (uint8_t)ops[i].number, ops[i].number2};
        } else if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
            x = (struct xop){X_CONST, 0, a - DW_OP_lit0};
        } else if (a == DW_OP_const1u || a == DW_OP_const1s || a == DW_OP_const2u ||
                   a == DW_OP_const2s || a == DW_OP_const4u || a == DW_OP_const4s ||
                   a == DW_OP_const8u || a == DW_OP_const8s || a == DW_OP_constu ||
                   a == DW_OP_consts) {
            x = (struct xop){X_CONST, 0, ops[i].number}; /* libdw sign-extends the signed ones */
        } else if (a == DW_OP_plus_uconst || a == DW_OP_neg || a == DW_OP_not) {
            if (depth < 1)
                return -1;
            depth--; /* pops one, pushes one: counted below */
        } else if (binary((int)a)) {
            if (depth < 2)
                return -1;
            depth -= 2;
        } else {
            return -1; /* a memory read, a branch, another register's value... */
        }
        if (x.op == X_BREG && x.reg != DWREG_RSP && x.reg != DWREG_RBP && x.reg != DWREG_RA)
            return -1;
        if (++depth > XSTACK)
            return -1;
        e.op[e.n++] = x;
    }
    if (depth != 1)
        return -1;
    for (int i = 0; i < nexprs; i++)
        if (same_expr(&exprs[i], &e))
            return i;
    if (nexprs == EXPRS_MAX)
        return -1;
    exprs[nexprs] = e;
    return nexprs++;
}

/* The CFA by expression e, from the frame's rsp, rbp (when known) and rip. 0 when rbp is
 * needed and not known. */
static uintptr_t eval_expr(const struct expr *e, uintptr_t rsp, uintptr_t rbp, int rbp_known,
                           uintptr_t rip)
{
    uint64_t s[XSTACK];
    int d = 0;
    for (int i = 0; i < e->n; i++) {
        const struct xop *x = &e->op[i];
        uint64_t a, b;
        switch (x->op) {
        case X_BREG:
            if (x->reg == DWREG_RBP && !rbp_known)
                return 0;
            a = x->reg == DWREG_RSP ? rsp : x->reg == DWREG_RBP ? rbp : rip;
            s[d++] = a + x->v;
            continue;
        case X_CONST:
            s[d++] = x->v;
            continue;
        case DW_OP_plus_uconst:
            s[d - 1] += x->v;
            continue;
        case DW_OP_neg:
            s[d - 1] = -s[d - 1];
            continue;
        case DW_OP_not:
            s[d - 1] = ~s[d - 1];
            continue;
        }
        b = s[--d];
        a = s[d - 1];
        switch (x->op) {
        case DW_OP_plus: a += b; break;
        case DW_OP_minus: a -= b; break;
        case DW_OP_mul: a *= b; break;
        case DW_OP_and: a &= b; break;
        case DW_OP_or: a |= b; break;
        case DW_OP_xor: a ^= b; break;
        case DW_OP_shl: a = b < 64 ? a << b : 0; break;
        case DW_OP_shr: a = b < 64 ? a >> b : 0; break;
        case DW_OP_shra: a = (uint64_t)((int64_t)a >> (b < 64 ? b : 63)); break;
        /* comparisons are signed in DWARF */
        case DW_OP_ge: a = (int64_t)a >= (int64_t)b; break;
        case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
        case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
        case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
        case DW_OP_eq: a = a == b; break;
        case DW_OP_ne: a = a != b; break;
        }
        s[d - 1] = a;
    }
    return (uintptr_t)s[0];
}

/* ---- modules and their CFI (all under the lock) ---- */

struct module {
    uintptr_t lo, hi, bias; /* the executable segment */
    Elf *elf;
    Dwarf_CFI *cfi; /* NULL: no usable CFI */
    void *image;    /* the vDSO's copy, which elf reads */
    int readable;   /* the segment can be read, not only run */
};
#define MAX_MODULES 256
static struct module mods[MAX_MODULES];
static int nmods;

/* What dl_iterate_phdr says of the segment of pc, found before the lock is taken: the loader's
 * lock (held by dl_iterate_phdr) is never taken while this file's lock is held. The file is
 * opened there, while the module cannot be unloaded. */
struct seg {
    uintptr_t pc, lo, hi, bias;
    int fd;       /* the module's file, or -1 */
    int vdso;     /* the vDSO: no file, read from memory */
    int readable; /* PF_R: its code bytes can be compared */
    int found;
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct seg *s = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (s->pc < lo || s->pc >= hi)
            continue;
        s->lo = lo;
        s->hi = hi;
        s->bias = info->dlpi_addr;
        s->readable = (ph->p_flags & PF_R) != 0;
        s->found = 1;
        const char *name = info->dlpi_name;
        uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
        if (!name || !*name)
            name = "/proc/self/exe"; /* the program itself */
        if (name[0] == '/')
            s->fd = open(name, O_RDONLY | O_CLOEXEC);
        else if (vdso && vdso >= info->dlpi_addr && vdso < hi)
            s->vdso = 1; /* "linux-vdso.so.1": its image is the segment itself */
        return 1;
    }
    return 0;
}

/* The vDSO's ELF image: a copy (libelf is given memory it may write), sized by its headers. */
static Elf *vdso_elf(struct module *m)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
    if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return NULL;
    size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > size)
            size = ph[i].p_offset + ph[i].p_filesz;
    /* The section headers lie past the segment, in the last page the kernel maps for it:
     * never read past that page. */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t end = (m->hi + page - 1) & ~(page - 1);
    if (size > end - (uintptr_t)eh || size > (1u << 20))
        return NULL;
    m->image = tp_dw.malloc(size);
    if (!m->image)
        return NULL;
    memcpy(m->image, eh, size);
    return tp_dw.elf_memory(m->image, size);
}

/* The module of the segment s, read now if new. The file stays mapped (ELF_C_READ_MMAP) and the
 * descriptor is closed at once: a program that counts or closes its descriptors never meets one
 * of ours. NULL when the table is full. */
static struct module *module_for(const struct seg *s)
{
    for (int i = 0; i < nmods; i++)
        if (mods[i].lo == s->lo && mods[i].hi == s->hi && mods[i].bias == s->bias)
            return &mods[i];
    if (nmods == MAX_MODULES)
        return NULL;
    struct module *m = &mods[nmods++];
    memset(m, 0, sizeof *m);
    m->lo = s->lo;
    m->hi = s->hi;
    m->bias = s->bias;
    m->readable = s->readable;
    if (s->fd >= 0) {
        m->elf = tp_dw.elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
        if (m->elf)
            tp_dw.elf_cntl(m->elf, ELF_C_FDDONE);
    } else if (s->vdso) {
        m->elf = vdso_elf(m);
    }
    if (m->elf)
        m->cfi = tp_dw.dwarf_getcfi_elf(m->elf);
    return m;
}

static struct module *known_module(uintptr_t pc)
{
    for (int i = 0; i < nmods; i++)
        if (pc >= mods[i].lo && pc < mods[i].hi)
            return &mods[i];
    return NULL;
}

static void release_module(struct module *m)
{
    if (m->cfi)
        tp_dw.dwarf_cfi_end(m->cfi);
    if (m->elf)
        tp_dw.elf_end(m->elf);
    if (m->image)
        tp_dw.free(m->image);
}

/* ---- reading a rule ---- */

/* "CFA + k" as libdw states a saved register's place: call_frame_cfa, then plus_uconst k (k
 * wrapped to 64 bits when negative), or nothing more for k = 0. */
static int cfa_offset(const Dwarf_Op *ops, size_t n, int64_t *off)
{
    if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
        *off = 0;
        return 1;
    }
    if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
        *off = (int64_t)ops[1].number;
        return 1;
    }
    return 0;
}

/* x86-64 Linux's rt_sigreturn trampoline: mov $15,%rax; syscall. The kernel makes the handler
 * return there; its address is the "return address" of the handler's frame. */
static const unsigned char sigreturn_code[9] = {0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05};

static struct rule read_rule(struct module *m, uintptr_t key)
{
    struct rule no = {0, 0, 0, R_NO, 0};
    uintptr_t pc = key & ~KEY_EXACT;
    if (!(key & KEY_EXACT) && m->readable && pc + sizeof sigreturn_code <= m->hi &&
        !memcmp((const void *)pc, sigreturn_code, sizeof sigreturn_code))
        return (struct rule){0, 0, 0, R_SIGNAL, 0};
    if (!m->cfi)
        return no;
    Dwarf_Frame *fr = NULL;
    /* A return address follows its call: the call is the instruction before it. */
    uintptr_t at = key & KEY_EXACT ? pc : pc - 1;
    if (tp_dw.dwarf_cfi_addrframe(m->cfi, at - m->bias, &fr) != 0 || !fr)
        return no;
    struct rule r = no;
    Dwarf_Op *ops, mem[3];
    size_t n;
    int64_t ra_off = 0, rbp_off = 0, cfa_off;
    uint32_t flags;
    if (tp_dw.dwarf_frame_cfa(fr, &ops, &n) != 0)
        goto out;
    if (n == 1 && ops[0].atom == DW_OP_bregx &&
        (ops[0].number == DWREG_RSP || ops[0].number == DWREG_RBP)) {
        cfa_off = (int64_t)ops[0].number2;
        if (cfa_off < INT32_MIN || cfa_off > INT32_MAX)
            goto out;
        flags = ops[0].number == DWREG_RBP ? R_ON_RBP : 0;
    } else {
        int x = intern_expr(ops, n);
        if (x < 0)
            goto out;
        cfa_off = x;
        flags = R_EXPR;
    }
    if (tp_dw.dwarf_frame_register(fr, DWREG_RA, mem, &ops, &n) != 0)
        goto out;
    if (n == 0 && ops == mem) {
        flags |= R_LAST; /* return address undefined: _start, a thread's start */
    } else if (!cfa_offset(ops, n, &ra_off) || ra_off < INT16_MIN || ra_off > -8) {
        goto out;
    }
    if (tp_dw.dwarf_frame_register(fr, DWREG_RBP, mem, &ops, &n) != 0)
        goto out;
    if (n == 0 && ops == NULL) {
        /* same value: the caller's rbp is this frame's */
    } else if (n == 0) {
        flags |= R_RBP_LOST;
    } else if (cfa_offset(ops, n, &rbp_off) && rbp_off >= INT16_MIN && rbp_off <= -8) {
        flags |= R_RBP_SAVED;
    } else {
        goto out;
    }
    int64_t need = -ra_off;
    if ((flags & R_RBP_SAVED) && -rbp_off > need)
        need = -rbp_off;
    if (need < 8)
        need = 8; /* the return address, at least, is in the frame */
    r = (struct rule){(int32_t)cfa_off, (int16_t)ra_off, (int16_t)rbp_off, (uint16_t)flags,
                      (uint16_t)need};
out:
    tp_dw.free(fr); /* libdw's block: that namespace's free */
    return r;
}

/* ---- the cache ---- */

static inline uint32_t home(uintptr_t key)
{
    return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> (64 - RULE_BITS));
}

static inline const struct rule *cached(uintptr_t key)
{
    for (uint32_t i = home(key), n = 0; n < RULE_SLOTS; n++, i = (i + 1) & (RULE_SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&rules[i].key, memory_order_acquire);
        if (k == key)
            return &rules[i].r;
        if (k == 0)
            return NULL;
    }
    return NULL;
}

/* Under the lock: readers see the rule before the key (release/acquire). NULL when full. */
static const struct rule *remember(uintptr_t key, struct rule r)
{
    if (atomic_load_explicit(&rules_used, memory_order_relaxed) >= RULE_MAX)
        return NULL;
    for (uint32_t i = home(key);; i = (i + 1) & (RULE_SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&rules[i].key, memory_order_relaxed);
        if (k == key)
            return &rules[i].r;
        if (k == 0) {
            rules[i].r = r;
            atomic_store_explicit(&rules[i].key, key, memory_order_release);
            atomic_fetch_add_explicit(&rules_used, 1, memory_order_relaxed);
            return &rules[i].r;
        }
    }
}

static int set_up(void)
{
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (tp_likely(s != 0))
        return s > 0;
    if (!take_lock())
        return 0;
    if (atomic_load(&state) == 0) {
        void *m = tp_pages_map(sizeof *rules * RULE_SLOTS, 1);
        if (!m) {
            atomic_store(&state, -1);
        } else {
            rules = m;
            atomic_store_explicit(&state, 1, memory_order_release);
        }
    }
    drop_lock();
    return atomic_load(&state) > 0;
}

/* A rule read while the table is full, valid until this thread's next miss. */
static TP_TLS struct rule unkept;

/* The rule for key, or NULL where there is none now: elfutils is not loaded (yet), the lock
 * could not be had. */
static const struct rule *rule_of(uintptr_t key)
{
    const struct rule *r = cached(key);
    if (tp_likely(r != NULL))
        return r;
    if (!tp_dw_ready())
        return NULL;
    uintptr_t pc = key & ~KEY_EXACT;
    struct seg s = {pc, 0, 0, 0, -1, 0, 0, 0};
    r = NULL;
    for (int pass = 0; pass < 2 && !r; pass++) {
        if (pass == 1)
            dl_iterate_phdr(find_segment, &s); /* not under the lock: it takes the loader's */
        if (!take_lock())
            break;
        r = cached(key);
        struct module *m = r ? NULL : known_module(pc);
        if (!m && !r && s.found)
            m = module_for(&s);
        if (!r && (m || pass == 1)) {
            /* In no module (JIT code, a stack that is not one), the walk stops there, for good.
             * A module that did not fit in mods is not known to have no rules: not kept. */
            struct rule got = m ? read_rule(m, key) : (struct rule){0, 0, 0, R_NO, 0};
            r = m || !s.found ? remember(key, got) : NULL;
            if (!r) {
                unkept = got;
                r = &unkept;
            }
        }
        drop_lock();
    }
    if (s.fd >= 0)
        close(s.fd);
    return r;
}

/* ---- the walk ---- */

struct frame {
    uintptr_t pc, sp, rbp;
    int rbp_known;
};

/* The step from a frame whose CFA is cfa, by rule r: the CFA must be above sp by at least the
 * rule's need and at most FRAME_MAX, 8-aligned, and not above the stack's top, so that the two
 * reads (CFA + ra_off, CFA + rbp_off, both in [CFA - need, CFA - 8]) stay inside the stack. */
static inline __attribute__((always_inline)) int step_to(const struct rule *r, uintptr_t cfa,
                                                         struct frame *f, uintptr_t top)
{
    uintptr_t d = cfa - f->sp;
    if (d - r->need > FRAME_MAX - r->need || cfa > top || (cfa & 7))
        return 0;
    if (r->flags & R_RBP_SAVED)
        f->rbp = *(const uintptr_t *)(cfa + (uintptr_t)(intptr_t)r->rbp_off);
    else if (r->flags & R_RBP_LOST)
        f->rbp_known = 0;
    f->pc = *(const uintptr_t *)(cfa + (uintptr_t)(intptr_t)r->ra_off);
    f->sp = cfa;
    return 1;
}

/* A frame that is not "CFA = register + offset": the signal trampoline, and then the frame it
 * interrupted (its rule read at its pc), or a CFA expression. Adds the frames it steps to out;
 * 0 when the walk ends here. */
static __attribute__((noinline)) int step_unusual(const struct rule *r, struct frame *f,
                                                  uintptr_t top, void **out, int *n, int max)
{
    uint32_t fl = r->flags;
    if (fl & R_SIGNAL) {
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
        r = rule_of(f->pc | KEY_EXACT);
        if (!r)
            return 0;
        fl = r->flags;
    }
    if (fl & (R_NO | R_LAST | R_SIGNAL))
        return 0;
    uintptr_t cfa;
    if (fl & R_EXPR) {
        cfa = eval_expr(&exprs[r->cfa_off], f->sp, f->rbp, f->rbp_known, f->pc);
    } else if (fl & R_ON_RBP) {
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
    if (max <= 0 || !set_up())
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
    if (tp_unlikely(!tp_dw_ready()) && !tp_dw_load_early(f.pc))
        return n; /* no rules to be had yet */
    for (;;) {
        const struct rule *r = rule_of(f.pc);
        if (!r)
            break;
        uint32_t fl = r->flags;
        if (tp_unlikely(fl & (R_NO | R_LAST | R_SIGNAL | R_EXPR))) {
            if (fl & (R_NO | R_LAST))
                break; /* the usual end: a thread's first frame */
            /* a copy: f itself stays in registers */
            struct frame g = f;
            if (!step_unusual(r, &g, top, out, &n, max))
                break;
            f = g;
            continue;
        }
        uintptr_t base = f.sp;
        if (fl & R_ON_RBP) {
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

void tp_unwind_disable(void)
{
    atomic_store(&state, -1);
}

/* ---- after a dlclose ---- */

struct listing {
    uintptr_t *lo, *hi, *bias;
    size_t n, cap;
};

static int list_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct listing *l = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 64;
            uintptr_t *v = tp_alloc(3 * cap * sizeof *v);
            if (!v)
                return 1;
            if (l->n) {
                memcpy(v, l->lo, l->n * sizeof *v);
                memcpy(v + cap, l->hi, l->n * sizeof *v);
                memcpy(v + 2 * cap, l->bias, l->n * sizeof *v);
            }
            tp_free(l->lo);
            l->lo = v;
            l->hi = v + cap;
            l->bias = v + 2 * cap;
            l->cap = cap;
        }
        l->lo[l->n] = info->dlpi_addr + ph->p_vaddr;
        l->hi[l->n] = l->lo[l->n] + ph->p_memsz;
        l->bias[l->n] = info->dlpi_addr;
        l->n++;
    }
    return 0;
}

void tp_unwind_dlclosed(void)
{
    if (atomic_load_explicit(&state, memory_order_acquire) <= 0)
        return;
    int g = tp_guard;
    tp_guard = 1;
    struct listing l = {0};
    dl_iterate_phdr(list_segments, &l);
    if (l.n == 0 || !take_lock()) {
        /* Without the list, or the lock, nothing says which rules are stale: none is used. */
        tp_unwind_disable();
        tp_free(l.lo);
        tp_guard = g;
        return;
    }
    int k = 0;
    for (int i = 0; i < nmods; i++) {
        struct module *m = &mods[i];
        size_t j;
        for (j = 0; j < l.n; j++)
            if (l.lo[j] == m->lo && l.hi[j] == m->hi && l.bias[j] == m->bias)
                break;
        if (j < l.n) {
            mods[k++] = *m;
            continue;
        }
        /* Gone: its code's rules would describe whatever is mapped there next. A walk that
         * read a key a moment ago still finds the rule it had. */
        for (uint32_t s = 0; s < RULE_SLOTS; s++) {
            uintptr_t key = atomic_load_explicit(&rules[s].key, memory_order_relaxed) & ~KEY_EXACT;
            if (key >= m->lo && key < m->hi)
                atomic_store_explicit(&rules[s].key, TOMB, memory_order_release);
        }
        release_module(m);
    }
    nmods = k;
    drop_lock();
    tp_free(l.lo);
    tp_guard = g;
}

/* ---- fork ---- */

/* No other thread may be inside libdw when fork copies the process: the namespace's libc has no
 * fork handlers of its own, and a lock of its malloc held by a thread that does not exist in
 * the child would stay held there. Readers hold this file's lock while in libdw, so holding it
 * across fork is enough; state.c's fork handlers take it in their documented order. A fork from
 * a signal handler that interrupted this thread while it held the lock goes ahead without it
 * (waiting would never end). */
static int fork_took;

void tp_unwind_fork_prepare(void)
{
    fork_took = 0;
    if (!holding) {
        pthread_mutex_lock(&lock);
        fork_took = 1;
    }
}

void tp_unwind_fork_parent(void)
{
    if (fork_took)
        pthread_mutex_unlock(&lock);
}

void tp_unwind_fork_child(void)
{
    /* Only the forking thread exists in the child: the lock was taken for the fork (released
     * now), or this thread held it when a signal handler forked, and releases it when the
     * interrupted walk resumes. */
    tp_unwind_fork_parent();
}
