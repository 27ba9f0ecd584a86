/* The loaded modules as the PLT scan sees them (plt_patch.c): which are the C runtime's or a
 * system library's, where each maps, what each defines. Made afresh for each scan from what
 * dl_iterate_phdr describes (track/sym/modmap.c), never by opening an object. */
#ifndef TPROF_PLT_MODS_H
#define TPROF_PLT_MODS_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "track/sym/sym.h"

struct plt_module {
    char *name; /* dlpi_name ("" for the main program) */
    uintptr_t bias, lo, hi;
    const ElfW(Dyn) * dyn;
    uintptr_t relro_lo, relro_hi; /* pages ld.so made read-only after relocation */
    int deny;                     /* a runtime library: neither patched nor a target */
    int system;                   /* in a system library directory: not the program's own */
    int called;                   /* a system library the program links itself (mark_called) */
    int blas;                     /* a BLAS in a system directory: its exports are no default op */
    int initial;                  /* loaded before tprof's first scan: never unloaded */
    struct tp_dynsyms syms;       /* what it defines, for first_def */
};

struct plt_modlist {
    struct plt_module *v;
    size_t n, cap;
    /* Made once the list is complete (index_list): the modules by address, for module_at (NULL
     * when two ranges overlap: then in load order), and the ones whose exports the default ops
     * may take (neither denied nor in a system directory), for patch_relocs' first test. */
    const struct plt_module **by_lo;
    const struct plt_module **own;
    size_t nown;
};

/* The modules loaded now, in load order (the main program first). */
void tp_plt_mods_list(struct plt_modlist *l);
void tp_plt_mods_free(struct plt_modlist *l);
/* The module that maps a, or NULL. */
const struct plt_module *tp_plt_mod_at(const struct plt_modlist *l, uintptr_t a);
/* 1 when a module of the program's own defines the name n (the default ops take no other
 * module's exports), or when the list has no index to tell. */
int tp_plt_own_defines(const struct plt_modlist *l, struct tp_symname *n);
/* The first module in load order that defines n, and where (*ifunc: that is an IFUNC resolver);
 * NULL if none does (yet). When that is where ld.so binds: see plt_mods.c. */
const struct plt_module *tp_plt_first_def(const struct plt_modlist *l, struct tp_symname *n,
                                          uintptr_t *at, int *ifunc);

#endif
