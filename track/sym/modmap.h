/* The loaded modules, as dl_iterate_phdr describes them, and the ones unloaded since.
 *
 * Everything here reads the memory dl_iterate_phdr describes and nothing else: no file is
 * opened, no object is opened (dlopen, even RTLD_NOLOAD, would run constructors still pending in
 * its group, out of order), so each function is safe inside a dlopen wrapper or a constructor. */
#ifndef TPROF_MODMAP_H
#define TPROF_MODMAP_H

#include <link.h>
#include <stdint.h>

/* One loaded module with at least one PT_LOAD segment. */
struct tp_module {
    const char *name;             /* dlpi_name, "" for the main program */
    uintptr_t bias, lo, hi;       /* load bias; the range its PT_LOAD segments span */
    const ElfW(Dyn) * dyn;        /* its dynamic section, NULL if none */
    uintptr_t relro_lo, relro_hi; /* pages ld.so made read-only after relocation */
    int self;                     /* libtprof.so itself */
};

/* One executable PT_LOAD segment of a loaded module. */
struct tp_code_segment {
    const char *name;       /* dlpi_name, "" for the main program */
    uintptr_t bias, lo, hi; /* the module's load bias; the segment's range */
    int readable;           /* PF_R: its bytes can be read */
    /* The module's .eh_frame_hdr (PT_GNU_EH_FRAME), 0 if none, and the readable PT_LOAD segment
     * that holds it, [eh_lo, eh_hi) (track/unwind/ehframe.h reads nothing else). */
    uintptr_t eh_hdr, eh_lo, eh_hi;
};

/* Call fn for each executable segment of each loaded module, in load order, until it returns
 * non-zero; returns that value, else 0. The same rules as tp_modmap_each's fn. */
int tp_modmap_each_code(int (*fn)(const struct tp_code_segment *s, void *arg), void *arg);

/* Call fn for each loaded module in load order (the main program first) until it returns
 * non-zero; returns that value, else 0. fn runs under the loader's lock: it must not load,
 * unload or look up symbols; m and its name are valid during the call only. */
int tp_modmap_each(int (*fn)(const struct tp_module *m, void *arg), void *arg);

/* 1 when a PT_LOAD segment of a loaded module maps a. */
int tp_modmap_mapped(uintptr_t a);

/* The PT_LOAD segment that maps a: [*lo, *hi). 0, or -1 when none does. */
int tp_modmap_segment(uintptr_t a, uintptr_t *lo, uintptr_t *hi);

/* The dynamic section of the main program (NULL if it has none). */
const ElfW(Dyn) * tp_modmap_main_dynamic(void);

/* How many objects were ever loaded (only grows; a new number means a new object may define what
 * was missing); 0 when the C library does not count. */
unsigned long long tp_modmap_loads(void);

/* The run-time address of name as module m defines (not imports) it, read from its .dynsym
 * through DT_GNU_HASH or DT_HASH; 0 if it defines none. *ifunc is set when the address is that
 * of an IFUNC resolver. */
uintptr_t tp_modmap_symbol(const struct tp_module *m, const char *name, int *ifunc);
/* The same in two halves, for one name looked up in many modules (the PLT scan asks every module
 * for each import): a module's dynamic symbol table found once, a name's hash computed once. */
struct tp_dynsyms {
    const ElfW(Sym) * sym;
    const char *str;
    size_t strsz;
    const ElfW(Half) * versym;
    const uint32_t *gnu, *sysv; /* DT_GNU_HASH, DT_HASH */
    uintptr_t bias;
};
struct tp_symname {
    const char *name;
    uint32_t gnu, sysv;
    int have_sysv; /* sysv is computed when a module without DT_GNU_HASH first needs it */
};
void tp_modmap_dynsyms(const struct tp_module *m, struct tp_dynsyms *d);
/* 0 when d's GNU hash bloom filter says it defines no name of hash h (1: it may, or d has no
 * bloom filter), for a caller that asks many modules: no call, a dozen instructions. */
static inline int tp_dynsyms_may_define(const struct tp_dynsyms *d, uint32_t h)
{
    const uint32_t *g = d->gnu;
    if (!g || !g[2])
        return 1;
    uint64_t word = ((const uint64_t *)(g + 4))[(h / 64) % g[2]];
    uint64_t mask = (1ull << (h % 64)) | (1ull << ((h >> g[3]) % 64));
    return (word & mask) == mask;
}
void tp_modmap_symname(const char *name, struct tp_symname *n);
uintptr_t tp_modmap_lookup(const struct tp_dynsyms *d, struct tp_symname *n, int *ifunc);

/* ---- unloaded modules, so that call sites into them can still be named ---- */

#define TP_MODMAP_MAX_DEPARTED 256
struct tp_departed {
    char path[512];
    uintptr_t base;   /* load bias */
    uintptr_t lo, hi; /* address range of its PT_LOAD segments */
};

/* A dlclose may unload more than the module it names: the libraries that module alone needed go
 * with it. So the modules loaded before the real dlclose are noted, and those gone after it are
 * remembered (path, where they were). Both run outside the loader's lock; after_dlclose frees
 * the snapshot. */
struct tp_modmap_snap {
    struct kept *v;
    size_t n, cap;
};
void tp_modmap_before_dlclose(struct tp_modmap_snap *s);
void tp_modmap_after_dlclose(struct tp_modmap_snap *s);
/* The list's lock across fork (in preload/main.c's table of parts). */
void tp_modmap_fork_prepare(void);
void tp_modmap_fork_parent(void);
void tp_modmap_fork_child(void);
/* The remembered modules, oldest first. */
const struct tp_departed *tp_modmap_departed(int *n);
/* The remembered module that was last at a (NULL if none): names a frame into code unloaded
 * before exit even where another module was mapped over part of its range since. */
const struct tp_departed *tp_modmap_departed_at(uintptr_t a);

#endif
