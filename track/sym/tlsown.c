/* tprof's own TLS modules and the DTV surplus they cause (see track/sym/sym.h). */
#include "track/sym/sym.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <sys/auxv.h>

/* A DTV slot (dtv_t: a pointer and a flag) and the slots glibc adds beyond the highest module id:
 * DTV_SURPLUS (14), and the two ahead of slot 1 (the length and the generation). */
#define DTV_SLOT  (2 * sizeof(void *))
#define DTV_EXTRA 16

static _Atomic unsigned own_modules = 1; /* libtprof.so's own, until counted */
static _Atomic uintptr_t loader_lo, loader_hi;

/* The dynamic loader's code (AT_BASE: its ELF header in memory), found once. */
static int in_loader(uintptr_t a)
{
    uintptr_t lo = atomic_load_explicit(&loader_lo, memory_order_relaxed);
    uintptr_t hi = atomic_load_explicit(&loader_hi, memory_order_relaxed);
    if (!hi) {
        const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_BASE);
        if (!eh)
            return 0;
        const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
        for (int i = 0; i < eh->e_phnum; i++) {
            if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
                continue;
            lo = (uintptr_t)eh + ph[i].p_vaddr;
            hi = lo + ph[i].p_memsz;
            break;
        }
        if (!hi)
            return 0;
        atomic_store_explicit(&loader_lo, lo, memory_order_relaxed);
        atomic_store_explicit(&loader_hi, hi, memory_order_relaxed);
    }
    return a >= lo && a < hi;
}

size_t tp_tls_dtv_surplus(uintptr_t ra, size_t n, size_t m)
{
    if (m != DTV_SLOT || !in_loader(ra))
        return 0;
    size_t own = atomic_load_explicit(&own_modules, memory_order_relaxed);
    /* Not a DTV that counts tprof's modules: leave it as it is. */
    if (n < own + DTV_EXTRA + 1)
        return 0;
    return own * DTV_SLOT;
}

/* libtprof.so's own module id, from the program's namespace. */
static int self_modid(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t me = (uintptr_t)&own_modules;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && me >= lo && me < lo + ph->p_memsz) {
            *(size_t *)data = info->dlpi_tls_modid;
            return 1;
        }
    }
    return 0;
}

void tp_tls_own_count(void *ns_handle)
{
    size_t id = 0;
    unsigned own = 0;
    dl_iterate_phdr(self_modid, &id);
    own += id != 0;
    Lmid_t lmid;
    struct link_map *lm = NULL;
    if (ns_handle && dlinfo(ns_handle, RTLD_DI_LMID, &lmid) == 0 &&
        dlinfo(ns_handle, RTLD_DI_LINKMAP, &lm) == 0 && lm) {
        while (lm->l_prev)
            lm = lm->l_prev;
        /* dl_iterate_phdr sees one namespace only: each object of the other one by its name. */
        for (; lm; lm = lm->l_next) {
            if (!lm->l_name || !*lm->l_name)
                continue;
            void *h = dlmopen(lmid, lm->l_name, RTLD_LAZY | RTLD_NOLOAD);
            size_t mod = 0;
            if (h && dlinfo(h, RTLD_DI_TLS_MODID, &mod) == 0 && mod)
                own++;
            if (h)
                dlclose(h);
        }
    }
    atomic_store_explicit(&own_modules, own, memory_order_relaxed);
}
