/* The CFA rules of return addresses, for the malloc shims' stack walk (see cfarules.h).
 *
 * On x86-64 nearly every frame's rule is "CFA = rsp or rbp + k, return address at CFA - 8, rbp
 * saved at CFA + j or unchanged": once known for a return address, a step is a table lookup and
 * two loads. The table is shared by all threads and lock-free to read; a miss reads the rule from
 * the module's .eh_frame as mapped (track/unwind/ehframe.c) under a lock, and only what that reader
 * leaves (no .eh_frame_hdr table, an unknown encoding) from libdw (dwarf_getcfi_elf), which is
 * loaded then if it safely can be: a process whose walks need nothing else never maps elfutils.
 * libunwind's fast path (tdep_trace) works the same way; doing it here skips its context set-up
 * and keeps libunwind out of the program.
 *
 * Besides "register + offset", a rule can say: the kernel's signal trampoline (__restore_rt:
 * "mov $15,%rax; syscall", recognised by its code; the interrupted registers are in the
 * ucontext at the handler's CFA), or a CFA given by a DWARF expression, as the linker writes for
 * PLT stubs (kept by cfaexpr.c). The vDSO, which has no file, has its .eh_frame read from a copy
 * of its image. Anything else gets the rule "no rule": the walk stops there. */
#include "track/unwind/cfarules.h"

#include <dwarf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "common/pages.h"
#include "track/unwind/unwind.h"
#include "track/sym/sym.h"
#include "track/unwind/ehrule.h"
#include "track/runtime.h"

/* A slot's key is the return address, or an interrupted pc with TP_CFA_KEY_EXACT added. A key
 * taken out (its module was unloaded) becomes TOMB: lookups go on past it, nothing is stored
 * there again, and the rule it had stays as it was for a reader that is looking at it right
 * now. */
#define TOMB ((uintptr_t)1)

/* The table starts with 1,024 slots (24 KiB) and doubles past three quarters full, up to 2^22:
 * a compiler process walks through some 2,100 distinct return addresses, whose rules spread over
 * every page of the table (a page fault each: 96 for the 384 KiB of 16,384 slots), a torch
 * process through some 76,000 (one that finds no slot is read from libdw under the lock on every
 * walk: a quarter of that process's time under tprof, when the table was fixed at 16,384). */
#define RULE_BITS0    10
#define RULE_BITS_MAX 22
#define RULE_GENS     (RULE_BITS_MAX - RULE_BITS0 + 1)

/* Older tables stay mapped (a reader may be in one, and a rule pointer handed out stays
 * valid). */
static struct tp_cfa_table gens[RULE_GENS];
static int ngens;
_Atomic(struct tp_cfa_table *) tp_cfa_rules;
static unsigned rules_used; /* keys and tombstones in the current table (under the lock) */
_Atomic int tp_cfa_state;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static TP_TLS int holding; /* this thread holds the lock (for a fork from a signal handler) */
/* dlcloses under way (tp_unwind_dlclose_begin to tp_unwind_dlclosed): the module's memory may
 * be unmapped, and other code mapped there, before its entry in mods is dropped, and a rule is
 * read from the module's own memory. Meanwhile no rule is read: such a walk stops at its first
 * frame not yet cached (a shorter stack, never a wrong one, nor a read of unmapped memory). */
static _Atomic int unloading;

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

/* ---- modules and their CFI (all under the lock) ---- */

struct module {
    uintptr_t lo, hi, bias; /* the executable segment */
    struct tp_eh_src eh;    /* its .eh_frame_hdr in memory */
    int dw_tried;           /* libdw was asked for its CFI (elf, cfi) */
    Elf *elf;
    Dwarf_CFI *cfi; /* NULL: no usable CFI */
    void *image;    /* the vDSO's copy, which elf reads */
    int readable;   /* the segment can be read, not only run */
};
#define MAX_MODULES 256
static struct module mods[MAX_MODULES];
static int nmods;

/* What the module map says of the segment of pc, found before the lock is taken: the loader's
 * lock (held while the map is walked) is never taken while this file's lock is held. The file is
 * opened there (when libdw is to read it: open_file), while the module cannot be unloaded. */
struct seg {
    uintptr_t pc, lo, hi, bias;
    uintptr_t eh_hdr, eh_lo, eh_hi;
    int open_file;
    int fd;       /* the module's file, or -1 */
    int vdso;     /* the vDSO: no file, read from memory */
    int readable; /* PF_R: its code bytes can be compared */
    int found;
};

static int find_segment(const struct tp_code_segment *c, void *arg)
{
    struct seg *s = arg;
    if (s->pc < c->lo || s->pc >= c->hi)
        return 0;
    s->lo = c->lo;
    s->hi = c->hi;
    s->bias = c->bias;
    s->readable = c->readable;
    s->eh_hdr = c->eh_hdr;
    s->eh_lo = c->eh_lo;
    s->eh_hi = c->eh_hi;
    s->found = 1;
    if (!s->open_file || s->fd >= 0)
        return 1;
    const char *name = c->name;
    uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (!*name)
        name = "/proc/self/exe"; /* the program itself */
    if (name[0] == '/')
        s->fd = open(name, O_RDONLY | O_CLOEXEC);
    else if (vdso && vdso >= c->bias && vdso < c->hi)
        s->vdso = 1; /* "linux-vdso.so.1": its image is the segment itself */
    return 1;
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

/* libdw's CFI of module m, once, from the file s opened (or the vDSO's image). The file stays
 * mapped (ELF_C_READ_MMAP) and the descriptor is closed at once: a program that counts or closes
 * its descriptors never meets one of ours. */
static void attach_dw(struct module *m, const struct seg *s)
{
    if (m->dw_tried)
        return;
    m->dw_tried = 1;
    if (!tp_dw_ready())
        return; /* not installed (tp_cfa_rule_read loads it first when it can be) */
    if (s->fd >= 0) {
        m->elf = tp_dw.elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
        if (m->elf)
            tp_dw.elf_cntl(m->elf, ELF_C_FDDONE);
    } else if (s->vdso) {
        m->elf = vdso_elf(m);
    }
    if (m->elf)
        m->cfi = tp_dw.dwarf_getcfi_elf(m->elf);
}

/* The module of the segment s, new if not known. NULL when the table is full. */
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
    m->eh = (struct tp_eh_src){s->eh_hdr, s->eh_lo, s->eh_hi, s->bias, 0};
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

/* x86-64 Linux's rt_sigreturn trampoline: mov $15,%rax; syscall. The kernel makes the handler
 * return there; its address is the "return address" of the handler's frame. */
static const unsigned char sigreturn_code[9] = {0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05};

/* read_rule's answer when the rule is libdw's to read and libdw has not read this module yet. */
#define NEED_DW 1

/* The rule at key into *out: 0, or NEED_DW. */
static int read_rule(struct module *m, uintptr_t key, struct tp_cfa_rule *out)
{
    struct tp_cfa_rule no = {0, 0, 0, TP_CFA_NO, 0};
    uintptr_t pc = key & ~TP_CFA_KEY_EXACT;
    *out = no;
    if (!(key & TP_CFA_KEY_EXACT) && m->readable && pc + sizeof sigreturn_code <= m->hi &&
        !memcmp((const void *)pc, sigreturn_code, sizeof sigreturn_code)) {
        *out = (struct tp_cfa_rule){0, 0, 0, TP_CFA_SIGNAL, 0};
        return 0;
    }
    /* A return address follows its call: the call is the instruction before it. */
    uintptr_t at = key & TP_CFA_KEY_EXACT ? pc : pc - 1;
    struct tp_eh_frame f;
    int st = tp_eh_frame_at(&m->eh, at, &f, NULL);
    if (st == TP_EH_FOUND)
        *out = tp_cfa_rule_from(&f);
    if (st != TP_EH_ASK_DW)
        return 0;
    if (!m->dw_tried)
        return NEED_DW;
    Dwarf_Frame *fr = NULL;
    if (!m->cfi || tp_dw.dwarf_cfi_addrframe(m->cfi, at - m->bias, &fr) != 0 || !fr)
        return 0;
    tp_eh_frame_of_dw(fr, &f);
    tp_dw.free(fr); /* libdw's block: that namespace's free */
    *out = tp_cfa_rule_from(&f);
    return 0;
}

/* ---- the cache ---- */

static struct tp_cfa_slot *put(struct tp_cfa_slot *v, uint32_t bits, uintptr_t key,
                               const struct tp_cfa_rule *r)
{
    for (uint32_t i = tp_cfa_home(key, bits);; i = (i + 1) & ((1u << bits) - 1)) {
        uintptr_t k = atomic_load_explicit(&v[i].key, memory_order_relaxed);
        if (k == key)
            return &v[i];
        if (k == 0) {
            v[i].r = *r;
            atomic_store_explicit(&v[i].key, key, memory_order_release);
            rules_used++;
            return &v[i];
        }
    }
}

/* Under the lock: a table twice the size with the current one's keys (not its tombstones),
 * published once filled. 0 when there is no bigger one to be had. */
static int grow(void)
{
    const struct tp_cfa_table *o = &gens[ngens - 1];
    if (ngens == RULE_GENS)
        return 0;
    uint32_t bits = o->bits + 1;
    struct tp_cfa_slot *v = tp_pages_map(sizeof *v << bits, 1);
    if (!v)
        return 0;
    rules_used = 0;
    for (uint32_t i = 0; i < 1u << o->bits; i++) {
        uintptr_t k = atomic_load_explicit(&o->slots[i].key, memory_order_relaxed);
        if (k != 0 && k != TOMB)
            put(v, bits, k, &o->slots[i].r);
    }
    gens[ngens] = (struct tp_cfa_table){bits, v};
    atomic_store_explicit(&tp_cfa_rules, &gens[ngens++], memory_order_release);
    return 1;
}

/* Under the lock: readers see the rule before the key (release/acquire). NULL when full. */
static const struct tp_cfa_rule *remember(uintptr_t key, struct tp_cfa_rule r)
{
    struct tp_cfa_table *t = &gens[ngens - 1];
    if (rules_used >= (1u << t->bits) / 4 * 3) {
        if (!grow())
            return NULL;
        t = &gens[ngens - 1];
    }
    return &put(t->slots, t->bits, key, &r)->r;
}

int tp_cfa_set_up(void)
{
    if (!take_lock())
        return 0;
    if (atomic_load(&tp_cfa_state) == 0) {
        void *m = tp_pages_map(sizeof(struct tp_cfa_slot) << RULE_BITS0, 1);
        if (!m) {
            atomic_store(&tp_cfa_state, -1);
        } else {
            gens[0] = (struct tp_cfa_table){RULE_BITS0, m};
            ngens = 1;
            atomic_store(&tp_cfa_rules, &gens[0]);
            atomic_store_explicit(&tp_cfa_state, 1, memory_order_release);
        }
    }
    drop_lock();
    return atomic_load(&tp_cfa_state) > 0;
}

/* A rule read while the table is full, valid until this thread's next miss. */
static TP_TLS struct tp_cfa_rule unkept;

/* Long because the passes read best together: the modules known, then the module map, then
 * (for what the .eh_frame reader leaves to libdw) the module map again with the file opened.
 * Each pass drops the lock before it walks the map or loads elfutils. */
const struct tp_cfa_rule *tp_cfa_rule_read(uintptr_t key, uintptr_t origin)
{
    const struct tp_cfa_rule *r = tp_cfa_cached(key);
    if (r)
        return r;
    if (atomic_load_explicit(&unloading, memory_order_acquire) > 0) {
        unkept = (struct tp_cfa_rule){0, 0, 0, TP_CFA_NO, 0};
        return &unkept;
    }
    uintptr_t pc = key & ~TP_CFA_KEY_EXACT;
    struct seg s = {.pc = pc, .fd = -1};
    int want_dw = 0;
    r = NULL;
    for (int pass = 0; pass < 3 && !r; pass++) {
        if (pass == 2 && !want_dw)
            break;
        if (pass > 0) {
            s.open_file = want_dw;
            tp_modmap_each_code(find_segment, &s); /* not under the lock: it takes the loader's */
        }
        if (want_dw && !tp_dw_ready() && !tp_dw_load_early(origin) &&
            atomic_load_explicit(&tp_dw_state, memory_order_acquire) >= 0) {
            /* libdw cannot be loaded here (another thread, or the loader, may hold what it
             * needs): this walk stops at this frame, and a later one asks again. Where libdw
             * is not installed at all, the frame's "no rule" is kept (attach_dw). */
            unkept = (struct tp_cfa_rule){0, 0, 0, TP_CFA_NO, 0};
            r = &unkept;
            break;
        }
        if (!take_lock())
            break;
        r = tp_cfa_cached(key);
        struct module *m = r ? NULL : known_module(pc);
        if (!m && !r && s.found)
            m = module_for(&s);
        if (m && want_dw && s.open_file)
            attach_dw(m, &s);
        if (!r && (m || pass >= 1)) {
            /* In no module (JIT code, a stack that is not one), the walk stops there, for good.
             * A module that did not fit in mods is not known to have no rules: not kept. */
            struct tp_cfa_rule got = {0, 0, 0, TP_CFA_NO, 0};
            if (m && read_rule(m, key, &got) == NEED_DW) {
                want_dw = 1;
                drop_lock();
                continue;
            }
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

void tp_unwind_disable(void)
{
    atomic_store(&tp_cfa_state, -1);
}

/* ---- after a dlclose ---- */

struct listing {
    uintptr_t *lo, *hi, *bias;
    size_t n, cap;
};

static int list_segments(const struct tp_code_segment *c, void *arg)
{
    struct listing *l = arg;
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
    l->lo[l->n] = c->lo;
    l->hi[l->n] = c->hi;
    l->bias[l->n] = c->bias;
    l->n++;
    return 0;
}

void tp_unwind_dlclose_begin(void)
{
    atomic_fetch_add(&unloading, 1);
}

static void drop_unloaded(void);

void tp_unwind_dlclosed(void)
{
    drop_unloaded();
    int n = atomic_load(&unloading);
    while (n > 0 && !atomic_compare_exchange_weak(&unloading, &n, n - 1))
        ;
}

static void drop_unloaded(void)
{
    if (atomic_load_explicit(&tp_cfa_state, memory_order_acquire) <= 0)
        return;
    struct tp_own g = tp_own_begin();
    struct listing l = {0};
    tp_modmap_each_code(list_segments, &l);
    if (l.n == 0 || !take_lock()) {
        /* Without the list, or the lock, nothing says which rules are stale: none is used. */
        tp_unwind_disable();
        tp_free(l.lo);
        tp_own_end(g);
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
        for (int g = 0; g < ngens; g++)
            for (uint32_t s = 0; s < 1u << gens[g].bits; s++) {
                _Atomic uintptr_t *kp = &gens[g].slots[s].key;
                uintptr_t key = atomic_load_explicit(kp, memory_order_relaxed) & ~TP_CFA_KEY_EXACT;
                if (key >= m->lo && key < m->hi)
                    atomic_store_explicit(kp, TOMB, memory_order_release);
            }
        release_module(m);
    }
    nmods = k;
    tp_eh_forget(); /* what the .eh_frame reader keeps may be the code's gone */
    drop_lock();
    tp_free(l.lo);
    tp_own_end(g);
}

/* ---- fork ---- */

/* No other thread may be inside libdw when fork copies the process: the namespace's libc has no
 * fork handlers of its own, and a lock of its malloc held by a thread that does not exist in
 * the child would stay held there. Readers hold this file's lock while in libdw, so holding it
 * across fork is enough; the fork handlers take it in the order of preload/main.c's table. A fork from
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