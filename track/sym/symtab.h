/* Function names by address for the ops-by-name hooks.
 *
 * Each loaded module's function symbols are read with libelf into a sorted array: from .symtab
 * when the file has one (static functions included), else from a separate debug file found by
 * build-id under /usr/lib/debug, else from .dynsym. The main program is read through
 * /proc/self/exe (dl_iterate_phdr names it ""). Modules are listed lazily and read on their first
 * lookup; an address in no known module (a library dlopen'ed since) makes the list be read again.
 *
 * Every function here is thread-safe and slow (a lock, maybe file reads): callers cache. Each sets
 * the recursion guard while it runs, because libelf allocates. Names are copied out, so a module
 * unloaded later never leaves a dangling pointer behind. */
#ifndef TPROF_SYMTAB_H
#define TPROF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

/* The name of the function containing addr, into out (truncated to n-1 bytes; "@VERSION" cut).
 * *start, when not NULL, receives the function's first address. 0, or -1 if no symbol covers
 * addr. */
int tp_symtab_lookup(uintptr_t addr, char *out, size_t n, uintptr_t *start);

/* What TPROF_OPS can do with the function at addr (report/advice.h decides from it). */
struct tp_symkind {
    int found;        /* a symbol covers addr */
    int exported;     /* a global, default-visibility function of a shared library */
    int in_exe;       /* the module is the main program */
    int stripped;     /* the module's file was read and has no .symtab */
    int instrumented; /* the module calls __cyg_profile_func_enter */
    uint64_t size;    /* the symbol's size in bytes (st_size), 0 when unknown */
};
/* Fill *k; 0, or -1 (k zeroed) if no module maps addr. */
int tp_symtab_kind(uintptr_t addr, struct tp_symkind *k);

/* The module containing addr: its path ("" → the path of /proc/self/exe for the main program),
 * load bias and the address range of its PT_LOAD segments. 0, or -1 if no module maps addr. */
int tp_symtab_module(uintptr_t addr, char *path, size_t n, uintptr_t *bias, uintptr_t *lo,
                     uintptr_t *hi);

/* A module was unloaded (dlclose): list the modules again before the next lookup. */
void tp_symtab_stale(void);

/* C++ names read better demangled: "ns::conv2d(float*, int)". Copies name unchanged when it is
 * not a mangled name or no demangler (libstdc++'s __cxa_demangle, also when it is loaded RTLD_LOCAL)
 * is loaded. */
void tp_symtab_demangle(const char *name, char *out, size_t n);
/* The same in memory from tp_alloc (to free with tp_free); NULL when name is not a mangled name
 * or cannot be demangled. */
char *tp_symtab_demangled(const char *name);

/* fork handlers (the lock must not be held by another thread across fork). */
void tp_symtab_lock(void);
void tp_symtab_unlock(void);
void tp_symtab_reset_lock(void);

#endif
