/* Finding the real definition of an interposed symbol.
 *
 * dlsym(RTLD_NEXT) only sees the global scope. A BLAS that a plugin or a Python extension loaded
 * with RTLD_LOCAL is not there, yet the plugin's own PLT still binds to our wrapper (the preloaded
 * library comes first in every lookup scope): then every loaded object's dynamic symbol table is
 * read in turn, through its hash table, as the dynamic linker itself would look it up.
 *
 * Never through dlopen(RTLD_NOLOAD), not even to get a handle for dlsym: when the object has not
 * been opened by the program itself (a dependency of a plugin), such a dlopen runs the
 * constructors still pending in its group, out of the order the loader chose, and this lookup can
 * run inside another library's constructor.
 *
 * Nor is the object that holds a definition kept loaded (RTLD_NODELETE): the program may unload a
 * plugin and load it again, and expects its constructors to run again and a new file on disk to
 * be read. Instead a definition is cached only while its object is loaded: after every dlclose,
 * tp_resolve_forget() drops the cached definitions whose object went away, and the next call
 * looks again. */
#include "preload/resolve.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "track/runtime.h"
#include "report/report.h"
#include "track/sites.h"

struct search {
    const char *name;
    uintptr_t found;
    int ifunc;
};

static struct tp_real *_Atomic missing_list;
static struct tp_real *_Atomic found_list; /* every tp_real that ever had a definition */

static int contains(const struct dl_phdr_info *info, uintptr_t a)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz)
            return 1;
    }
    return 0;
}

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = h * 33 + *p;
    return h;
}

static uint32_t sysv_hash(const char *s)
{
    uint32_t h = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h = (h << 4) + *p;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

struct dynsyms {
    const ElfW(Sym) *sym;
    const char *str;
    size_t strsz;
    const ElfW(Half) *versym;
};

/* A definition the dynamic linker would bind an unversioned reference to. */
static int defines(const struct dynsyms *d, uint32_t i, const char *name)
{
    const ElfW(Sym) *s = &d->sym[i];
    int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
    int vis = ELF64_ST_VISIBILITY(s->st_other);
    if (s->st_shndx == SHN_UNDEF || !s->st_value || !s->st_name ||
        (d->strsz && s->st_name >= d->strsz))
        return 0;
    if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
        return 0;
    if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
        return 0;
    if (vis == STV_HIDDEN || vis == STV_INTERNAL)
        return 0;
    if (d->versym && (d->versym[i] & 0x8000))
        return 0; /* a hidden (non-default) version */
    return !strcmp(d->str + s->st_name, name);
}

uintptr_t tp_elf_find(uintptr_t bias, uintptr_t lo, const ElfW(Dyn) *dyn, const char *name,
                      int *ifunc)
{
    struct dynsyms d = {0};
    const uint32_t *gnu = NULL, *sysv = NULL;
    *ifunc = 0;
    for (const ElfW(Dyn) *e = dyn; e && e->d_tag != DT_NULL; e++) {
        /* ld.so rewrites most d_ptr entries to run-time addresses, but not those of a dynamic
         * section in read-only memory (the vDSO's): an unrewritten one is an offset. */
        uintptr_t p = e->d_un.d_ptr < lo ? e->d_un.d_ptr + bias : e->d_un.d_ptr;
        switch (e->d_tag) {
        case DT_SYMTAB: d.sym = (const ElfW(Sym) *)p; break;
        case DT_STRTAB: d.str = (const char *)p; break;
        case DT_STRSZ: d.strsz = e->d_un.d_val; break;
        case DT_VERSYM: d.versym = (const ElfW(Half) *)p; break;
        case DT_GNU_HASH: gnu = (const uint32_t *)p; break;
        case DT_HASH: sysv = (const uint32_t *)p; break;
        }
    }
    if (!d.sym || !d.str)
        return 0;
    uint32_t found = 0;
    if (gnu) {
        uint32_t nbuckets = gnu[0], symoffset = gnu[1], bloom_size = gnu[2], shift = gnu[3];
        const uint64_t *bloom = (const uint64_t *)(gnu + 4);
        const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
        const uint32_t *chain = buckets + nbuckets;
        uint32_t h = gnu_hash(name);
        if (!nbuckets || !bloom_size)
            return 0;
        uint64_t word = bloom[(h / 64) % bloom_size];
        uint64_t mask = (1ull << (h % 64)) | (1ull << ((h >> shift) % 64));
        if ((word & mask) != mask)
            return 0;
        for (uint32_t i = buckets[h % nbuckets]; i >= symoffset && !found; i++) {
            uint32_t h2 = chain[i - symoffset];
            if ((h | 1) == (h2 | 1) && defines(&d, i, name))
                found = i;
            if (h2 & 1)
                break;
        }
    } else if (sysv) {
        uint32_t nbucket = sysv[0];
        const uint32_t *bucket = sysv + 2, *chain = bucket + nbucket;
        if (!nbucket)
            return 0;
        for (uint32_t i = bucket[sysv_hash(name) % nbucket]; i && !found; i = chain[i])
            if (defines(&d, i, name))
                found = i;
    }
    if (!found)
        return 0;
    *ifunc = ELF64_ST_TYPE(d.sym[found].st_info) == STT_GNU_IFUNC;
    return bias + d.sym[found].st_value;
}

static int ask(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct search *s = arg;
    (void)size;
    if (!info->dlpi_name || !*info->dlpi_name)
        return 0; /* the main program: dlsym(RTLD_NEXT) already looked there */
    if (contains(info, (uintptr_t)&tp_resolve_next))
        return 0; /* ourselves */
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        else if (ph->p_type == PT_LOAD && info->dlpi_addr + ph->p_vaddr < lo)
            lo = info->dlpi_addr + ph->p_vaddr;
    }
    uintptr_t f = tp_elf_find(info->dlpi_addr, lo, dyn, s->name, &s->ifunc);
    if (f && !tp_addr_is_ours(f)) {
        s->found = f;
        return 1;
    }
    return 0;
}

struct present {
    uintptr_t a;
    int yes;
};

static int find_addr(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct present *p = arg;
    (void)size;
    p->yes = contains(info, p->a);
    return p->yes;
}

static int is_loaded(uintptr_t a)
{
    struct present p = {a, 0};
    dl_iterate_phdr(find_addr, &p);
    return p.yes;
}

void *tp_resolve_next(const char *name)
{
    int e = errno;
    int g = tp_guard;
    tp_guard = 1; /* a failing dlsym allocates its error message (PITFALLS P1) */
    void *f = dlsym(RTLD_NEXT, name);
    if (!f || tp_addr_is_ours((uintptr_t)f)) {
        struct search s = {name, 0, 0};
        dl_iterate_phdr(ask, &s);
        f = NULL;
        /* dladdr waits for a dlopen running on another thread to finish (it takes the loader's
         * lock, which dlopen holds until the new objects are relocated and initialised) and
         * runs no constructor: the object found is then whole, or gone. */
        Dl_info info;
        if (s.found && dladdr((void *)s.found, &info) && info.dli_fname) {
            f = (void *)s.found;
            if (s.ifunc) /* the x86-64 resolver takes no argument and returns the function */
                f = ((void *(*)(void))s.found)();
        }
    }
    tp_guard = g;
    errno = e;
    return f;
}

/* glibc counts every object ever loaded; the count only grows. */
static int read_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *adds = arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *adds = info->dlpi_adds;
    return 1;
}

static unsigned long long load_count(void)
{
    unsigned long long adds = 0;
    dl_iterate_phdr(read_adds, &adds);
    return adds;
}

void *tp_real_lookup(struct tp_real *r)
{
    int e = errno;
    unsigned long long adds = load_count();
    void *f = NULL;
    /* adds == 0: the counter is not available; look every time. */
    if (!adds || adds != atomic_load_explicit(&r->tried_adds, memory_order_relaxed)) {
        f = tp_resolve_next(r->name);
        if (f) {
            atomic_store_explicit(&r->fn, f, memory_order_release);
            int expect = 0;
            if (atomic_compare_exchange_strong(&r->found_listed, &expect, 1)) {
                r->found_next = atomic_load(&found_list);
                while (!atomic_compare_exchange_weak(&found_list, &r->found_next, r))
                    ;
            }
        } else {
            atomic_store_explicit(&r->tried_adds, adds, memory_order_relaxed);
        }
    }
    errno = e;
    return f;
}

void tp_resolve_forget(void)
{
    int e = errno;
    for (struct tp_real *r = atomic_load(&found_list); r; r = r->found_next) {
        void *f = atomic_load_explicit(&r->fn, memory_order_acquire);
        if (f && !is_loaded((uintptr_t)f)) {
            atomic_store_explicit(&r->tried_adds, 0, memory_order_relaxed);
            atomic_compare_exchange_strong(&r->fn, &f, NULL);
        }
    }
    errno = e;
}

void tp_real_missing(struct tp_real *r)
{
    int e = errno;
    atomic_fetch_add_explicit(&r->missed, 1, memory_order_relaxed);
    int expect = 0;
    if (atomic_compare_exchange_strong(&r->listed, &expect, 1)) {
        r->next = atomic_load(&missing_list);
        while (!atomic_compare_exchange_weak(&missing_list, &r->next, r))
            ;
        tp_warn("%s: real function not found", r->name);
    }
    errno = e;
}

void tp_resolve_collect(struct tp_report *rep)
{
    for (struct tp_real *r = atomic_load(&missing_list); r; r = r->next) {
        unsigned long long n = (unsigned long long)atomic_load(&r->missed);
        tp_report_note(rep, "%s: real function not found in any loaded object; %llu call%s did "
                            "nothing", r->name, n, n == 1 ? "" : "s");
    }
}
