/* What a loaded module defines, by name (see track/sym/sym.h): its .dynsym read in memory
 * through DT_GNU_HASH or DT_HASH, as ld.so itself looks a name up, with no dlsym (which would take
 * the loader's lock, and may run inside a constructor while the loader is busy). */
#include "track/sym/sym.h"

#include <elf.h>
#include <link.h>
#include <string.h>

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

/* A definition the dynamic linker would bind an unversioned reference to. */
static int defines(const struct tp_dynsyms *d, uint32_t i, const char *name)
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

void tp_modmap_dynsyms(const struct tp_module *m, struct tp_dynsyms *d)
{
    uintptr_t bias = m->bias, lo = m->lo;
    memset(d, 0, sizeof *d);
    d->bias = bias;
    for (const ElfW(Dyn) *e = m->dyn; e && e->d_tag != DT_NULL; e++) {
        /* ld.so rewrites most d_ptr entries to run-time addresses, but not those of a dynamic
         * section in read-only memory (the vDSO's): an unrewritten one is an offset. */
        uintptr_t p = e->d_un.d_ptr < lo ? e->d_un.d_ptr + bias : e->d_un.d_ptr;
        switch (e->d_tag) {
        case DT_SYMTAB: d->sym = (const ElfW(Sym) *)p; break;
        case DT_STRTAB: d->str = (const char *)p; break;
        case DT_STRSZ: d->strsz = e->d_un.d_val; break;
        case DT_VERSYM: d->versym = (const ElfW(Half) *)p; break;
        case DT_GNU_HASH: d->gnu = (const uint32_t *)p; break;
        case DT_HASH: d->sysv = (const uint32_t *)p; break;
        }
    }
}

void tp_modmap_symname(const char *name, struct tp_symname *n)
{
    n->name = name;
    n->gnu = gnu_hash(name);
    n->sysv = 0;
    n->have_sysv = 0;
}

/* The index in d->sym of the symbol n that d defines, 0 when none. */
static uint32_t find_defined(const struct tp_dynsyms *d, struct tp_symname *n)
{
    const char *name = n->name;
    if (!d->sym || !d->str)
        return 0;
    uint32_t found = 0;
    if (d->gnu) {
        const uint32_t *gnu = d->gnu;
        uint32_t nbuckets = gnu[0], symoffset = gnu[1], bloom_size = gnu[2], shift = gnu[3];
        const uint64_t *bloom = (const uint64_t *)(gnu + 4);
        const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
        const uint32_t *chain = buckets + nbuckets;
        uint32_t h = n->gnu;
        if (!nbuckets || !bloom_size)
            return 0;
        uint64_t word = bloom[(h / 64) % bloom_size];
        uint64_t mask = (1ull << (h % 64)) | (1ull << ((h >> shift) % 64));
        if ((word & mask) != mask)
            return 0;
        for (uint32_t i = buckets[h % nbuckets]; i >= symoffset && !found; i++) {
            uint32_t h2 = chain[i - symoffset];
            if ((h | 1) == (h2 | 1) && defines(d, i, name))
                found = i;
            if (h2 & 1)
                break;
        }
    } else if (d->sysv) {
        uint32_t nbucket = d->sysv[0];
        const uint32_t *bucket = d->sysv + 2, *chain = bucket + nbucket;
        if (!nbucket)
            return 0;
        if (!n->have_sysv) {
            n->sysv = sysv_hash(name);
            n->have_sysv = 1;
        }
        for (uint32_t i = bucket[n->sysv % nbucket]; i && !found; i = chain[i])
            if (defines(d, i, name))
                found = i;
    }
    return found;
}

uintptr_t tp_modmap_lookup(const struct tp_dynsyms *d, struct tp_symname *n, int *ifunc)
{
    uint32_t found = find_defined(d, n);
    *ifunc = found && ELF64_ST_TYPE(d->sym[found].st_info) == STT_GNU_IFUNC;
    return found ? d->bias + d->sym[found].st_value : 0;
}

int tp_modmap_function(const struct tp_module *m, const char *name, uintptr_t *lo, uintptr_t *hi)
{
    struct tp_dynsyms d;
    struct tp_symname n;
    tp_modmap_dynsyms(m, &d);
    tp_modmap_symname(name, &n);
    uint32_t found = find_defined(&d, &n);
    if (!found || ELF64_ST_TYPE(d.sym[found].st_info) != STT_FUNC || !d.sym[found].st_size)
        return -1;
    *lo = d.bias + d.sym[found].st_value;
    *hi = *lo + d.sym[found].st_size;
    return 0;
}

uintptr_t tp_modmap_symbol(const struct tp_module *m, const char *name, int *ifunc)
{
    struct tp_dynsyms d;
    struct tp_symname n;
    tp_modmap_dynsyms(m, &d);
    tp_modmap_symname(name, &n);
    return tp_modmap_lookup(&d, &n, ifunc);
}
