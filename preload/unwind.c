/* The malloc shims' stack walk (see unwind.h).
 *
 * Why not libunwind alone: unw_backtrace costs about 700 instructions for a five-frame stack
 * (getcontext, unw_init_local, a cache lookup and a __tls_get_addr per frame), 77 ns of every
 * malloc/free pair on the churn benchmark (bench/RESULTS.md). On x86-64 nearly every frame's rule
 * is "CFA = rsp or rbp + k, return address at CFA - 8, rbp saved at CFA + j or unchanged": once
 * known for a return address, a step is a table lookup and two loads. libunwind's own fast path
 * (tdep_trace) works the same way; this keeps the table shared by all threads, lock-free to read,
 * and skips the context set-up.
 *
 * Rules come from the module's .eh_frame through libdw (dwarf_getcfi_elf), under a lock taken
 * with trylock: a thread that finds it busy (another thread reading CFI, or a signal handler
 * interrupting this one) walks with libunwind this time. Return addresses whose frame needs more
 * (a signal trampoline, a DWARF expression, code with no CFI, the vDSO) are cached as "use
 * libunwind", so the answer for such a stack is the same as before this file existed. */
#include "unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "stack.h"

#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

/* A return address's rule: where its frame's CFA is (rsp or rbp + cfa_off), where the return
 * address and the caller's rbp are (CFA + offset), and what kind of frame it is. Written once,
 * before the slot's pc is published (release); read after the pc is seen (acquire). */
enum {
    R_ON_RBP = 1,    /* CFA = rbp + off, else rsp + off */
    R_RBP_SAVED = 2, /* the caller's rbp is at CFA + rbp_off */
    R_RBP_LOST = 4,  /* the caller's rbp cannot be known */
    R_LAST = 8,      /* the outermost frame: no return address */
    R_NO = 16,       /* not a simple rule: use libunwind */
};

struct rule {
    int32_t cfa_off;
    int16_t ra_off, rbp_off;
    uint32_t flags;
};

struct rule_slot {
    _Atomic uintptr_t pc;
    struct rule r;
};

#define RULE_BITS 14 /* 16,384 return addresses, 256 KiB mapped, touched as used */
#define RULE_SLOTS (1u << RULE_BITS)
#define RULE_MAX (RULE_SLOTS / 4 * 3)

static struct rule_slot *rules;
static _Atomic unsigned rules_used;
static _Atomic int state; /* 0 not set up, 1 on, -1 off */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Where a frame's CFA may be: above the frame's stack pointer, not absurdly far (a frame of
 * 16 MiB is no frame), and below the top of the thread's stack. The walk hands anything else to
 * libunwind rather than read it: rules read from a file that was replaced on disk, a stack the
 * program switched to (sigaltstack, ucontext, a green-thread library). */
#define FRAME_MAX (16u << 20)

/* ---- modules and their CFI (all under the lock) ---- */

struct module {
    uintptr_t lo, hi, bias;
    Elf *elf;
    Dwarf_CFI *cfi; /* NULL: no usable CFI */
};
#define MAX_MODULES 256
static struct module mods[MAX_MODULES];
static int nmods;

struct find {
    uintptr_t pc;
    struct module *m;
};

/* The file stays mapped (ELF_C_READ_MMAP) and the descriptor is closed at once: a program that
 * counts or closes its descriptors never meets one of ours. */
static void open_cfi(struct module *m, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    m->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (m->elf) {
        m->cfi = dwarf_getcfi_elf(m->elf);
        elf_cntl(m->elf, ELF_C_FDDONE);
    }
    close(fd);
}

static int find_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct find *f = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (f->pc < lo || f->pc >= hi)
            continue;
        if (nmods == MAX_MODULES)
            return 1;
        struct module *m = &mods[nmods++];
        memset(m, 0, sizeof *m);
        m->lo = lo;
        m->hi = hi;
        m->bias = info->dlpi_addr;
        const char *name = info->dlpi_name;
        if (!name || !*name)
            name = "/proc/self/exe"; /* the program itself */
        if (name[0] == '/')
            open_cfi(m, name); /* the vDSO ("linux-vdso.so.1") has no file: no rules */
        f->m = m;
        return 1;
    }
    return 0;
}

static struct module *module_of(uintptr_t pc)
{
    for (int i = 0; i < nmods; i++)
        if (pc >= mods[i].lo && pc < mods[i].hi)
            return &mods[i];
    struct find f = {pc, NULL};
    dl_iterate_phdr(find_module, &f);
    return f.m;
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

static struct rule read_rule(uintptr_t pc)
{
    struct rule no = {0, 0, 0, R_NO};
    struct module *m = module_of(pc);
    if (!m || !m->cfi)
        return no;
    Dwarf_Frame *fr = NULL;
    /* pc is a return address: the call is the instruction before it. */
    if (dwarf_cfi_addrframe(m->cfi, pc - 1 - m->bias, &fr) != 0 || !fr)
        return no;
    struct rule r = no;
    Dwarf_Op *ops, mem[3];
    size_t n;
    int64_t ra_off = 0, rbp_off = 0;
    if (dwarf_frame_cfa(fr, &ops, &n) != 0 || n != 1 || ops[0].atom != DW_OP_bregx ||
        (ops[0].number != REG_RSP && ops[0].number != REG_RBP))
        goto out;
    int64_t cfa_off = (int64_t)ops[0].number2;
    if (cfa_off < INT32_MIN || cfa_off > INT32_MAX)
        goto out;
    uint32_t flags = ops[0].number == REG_RBP ? R_ON_RBP : 0;
    if (dwarf_frame_register(fr, REG_RA, mem, &ops, &n) != 0)
        goto out;
    if (n == 0 && ops == mem) {
        flags |= R_LAST; /* return address undefined: _start, a thread's start */
    } else if (!cfa_offset(ops, n, &ra_off) || ra_off < INT16_MIN || ra_off >= 0) {
        goto out;
    }
    if (dwarf_frame_register(fr, REG_RBP, mem, &ops, &n) != 0)
        goto out;
    if (n == 0 && ops == NULL) {
        /* same value: the caller's rbp is this frame's */
    } else if (n == 0) {
        flags |= R_RBP_LOST;
    } else if (cfa_offset(ops, n, &rbp_off) && rbp_off >= INT16_MIN && rbp_off <= INT16_MAX) {
        flags |= R_RBP_SAVED;
    } else {
        goto out;
    }
    r = (struct rule){(int32_t)cfa_off, (int16_t)ra_off, (int16_t)rbp_off, flags};
out:
    tp_free(fr);
    return r;
}

/* ---- the cache ---- */

static inline uint32_t home(uintptr_t pc)
{
    return (uint32_t)(((uint64_t)pc * 0x9E3779B97F4A7C15ull) >> (64 - RULE_BITS));
}

static inline const struct rule *cached(uintptr_t pc)
{
    for (uint32_t i = home(pc), n = 0; n < RULE_SLOTS; n++, i = (i + 1) & (RULE_SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&rules[i].pc, memory_order_acquire);
        if (k == pc)
            return &rules[i].r;
        if (k == 0)
            return NULL;
    }
    return NULL;
}

/* Under the lock: readers see the rule before the key (release/acquire). */
static const struct rule *remember(uintptr_t pc, struct rule r)
{
    if (atomic_load_explicit(&rules_used, memory_order_relaxed) >= RULE_MAX)
        return NULL; /* filled by another thread since rule_of looked */
    for (uint32_t i = home(pc);; i = (i + 1) & (RULE_SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&rules[i].pc, memory_order_relaxed);
        if (k == pc)
            return &rules[i].r;
        if (k == 0) {
            rules[i].r = r;
            atomic_store_explicit(&rules[i].pc, pc, memory_order_release);
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
    if (pthread_mutex_trylock(&lock) != 0)
        return 0;
    if (atomic_load(&state) == 0) {
        void *m = mmap(NULL, sizeof *rules * RULE_SLOTS, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED || elf_version(EV_CURRENT) == EV_NONE) {
            atomic_store(&state, -1);
        } else {
            rules = m;
            atomic_store_explicit(&state, 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&lock);
    return atomic_load(&state) > 0;
}

/* The rule for pc, or NULL where it cannot be had now (the lock is busy, the cache full). */
static const struct rule *rule_of(uintptr_t pc)
{
    const struct rule *r = cached(pc);
    if (tp_likely(r != NULL))
        return r;
    /* Full: a new return address would be read from the file on every walk that meets it, to be
     * dropped again; its stacks go to libunwind instead. */
    if (atomic_load_explicit(&rules_used, memory_order_relaxed) >= RULE_MAX)
        return NULL;
    if (pthread_mutex_trylock(&lock) != 0)
        return NULL;
    if (atomic_load_explicit(&state, memory_order_relaxed) > 0) {
        r = cached(pc);
        if (!r) {
            /* libdw's blocks (the module's ELF and CFI, kept for good) go to tprof's private
             * heap, not next to the program's in its arena (preload/hook_malloc.c). */
            int was = tp_private_heap;
            tp_private_heap = 1;
            struct rule got = read_rule(pc);
            tp_private_heap = was;
            r = remember(pc, got);
        }
    }
    pthread_mutex_unlock(&lock);
    return r;
}

int tp_unwind(void **out, int max, void *ra, void *fp)
{
    if (max <= 0)
        return 0;
    if (!set_up())
        return -1;
    /* fp is the calling frame's own: its saved rbp at fp, its return address above, and its
     * caller's stack pointer just past that. */
    tp_stack_known();
    uintptr_t top = tp_stack_hi;
    uintptr_t pc = (uintptr_t)ra;
    uintptr_t sp = (uintptr_t)fp + 16;
    if (!tp_on_own_stack(sp))
        return -1; /* another stack (sigaltstack, makecontext), or the bounds are unknown */
    uintptr_t rbp = *(const uintptr_t *)fp;
    int rbp_known = 1;
    int n = 0;
    while (pc >= 4096) {
        out[n++] = (void *)pc;
        if (n == max)
            break;
        const struct rule *r = rule_of(pc);
        if (!r)
            return -1;
        uint32_t fl = r->flags;
        if (fl & (R_NO | R_LAST)) {
            if (fl & R_NO)
                return -1;
            break;
        }
        uintptr_t base = sp;
        if (fl & R_ON_RBP) {
            if (!rbp_known)
                return -1;
            base = rbp;
        }
        uintptr_t cfa = base + (uintptr_t)(intptr_t)r->cfa_off;
        if (cfa <= sp || cfa - sp > FRAME_MAX || cfa > top || (cfa & 7))
            return -1;
        if (fl & R_RBP_SAVED)
            rbp = *(const uintptr_t *)(cfa + (uintptr_t)(intptr_t)r->rbp_off);
        else if (fl & R_RBP_LOST)
            rbp_known = 0;
        pc = *(const uintptr_t *)(cfa + (uintptr_t)(intptr_t)r->ra_off);
        sp = cfa;
    }
    return n;
}

void tp_unwind_disable(void)
{
    atomic_store(&state, -1);
}

/* Taken across fork (state.c's handlers): a child never starts with a rule or a module's CFI
 * half read. */
void tp_unwind_fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

void tp_unwind_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

void tp_unwind_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
}
