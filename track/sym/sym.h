/* Modules and symbols: the module map, function names, file:line through elfutils: the one header of track/sym/ for code outside it. */
#ifndef TPROF_TRACK_SYM_SYM
#define TPROF_TRACK_SYM_SYM

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"

/* elfutils (libdw, libelf) as tprof uses it: loaded when first needed (a report's symbols,
 * TPROF_WORK, a CFA rule track/unwind/ehframe.c leaves to it) into a link-map namespace of its own, and
 * called only through the table tp_dw.
 *
 * libtprof.so has no DT_NEEDED on either library: linked normally they and what they bring (libz,
 * liblzma, libbz2, ...) would be loaded into the program's namespace, where its own dlopen,
 * dlclose and RTLD_NOLOAD see them (a libz the program dlcloses would stay loaded). In a namespace
 * of their own (dlmopen LM_ID_NEWLM) they come with a second libc, whose malloc serves libdw's
 * blocks from mmap, away from the program's heap, and never through tprof's malloc hooks. The
 * headers still come from libdw-dev and libelf-dev, for the types. */
/* Every function of elfutils that tprof calls, one per line (clang-format would fold the list
 * into a staircase). */
// clang-format off
#define TP_DW_FUNCTIONS(X) \
    X(elf_version) \
    X(elf_errno) \
    X(dwarf_errno) \
    X(elf_begin) \
    X(elf_memory) \
    X(elf_end) \
    X(elf_cntl) \
    X(elf_kind) \
    X(elf_nextscn) \
    X(elf_getdata) \
    X(elf_strptr) \
    X(gelf_getshdr) \
    X(gelf_getnote) \
    X(gelf_getsym) \
    X(dwarf_getcfi_elf) \
    X(dwarf_cfi_end) \
    X(dwarf_cfi_addrframe) \
    X(dwarf_frame_cfa) \
    X(dwarf_frame_register) \
    X(dwfl_begin) \
    X(dwfl_end) \
    X(dwfl_report_begin) \
    X(dwfl_report_end) \
    X(dwfl_report_elf) \
    X(dwfl_linux_proc_report) \
    X(dwfl_linux_proc_find_elf) \
    X(dwfl_module_build_id) \
    X(dwfl_build_id_find_debuginfo) \
    X(dwfl_addrmodule) \
    X(dwfl_module_info) \
    X(dwfl_module_getsrc) \
    X(dwfl_lineinfo) \
    X(dwfl_module_addrdie) \
    X(dwarf_getscopes) \
    X(dwarf_getscopes_die) \
    X(dwarf_tag) \
    X(dwarf_attr) \
    X(dwarf_attr_integrate) \
    X(dwarf_formudata) \
    X(dwarf_formsdata) \
    X(dwarf_haspc) \
    X(dwarf_formaddr) \
    X(dwarf_dieoffset) \
    X(dwfl_module_nextcu) \
    X(dwarf_formstring) \
    X(dwarf_diename) \
    X(dwarf_getsrcfiles) \
    X(dwarf_filesrc) \
    X(dwarf_child) \
    X(dwarf_siblingof) \
    X(dwarf_peel_type) \
    X(dwarf_getlocation_addr) \
    X(dwarf_getlocation_attr) \
    X(dwarf_getlocation) \
    X(dwfl_module_eh_cfi) \
    X(dwfl_module_dwarf_cfi) \
    X(dwarf_formref_die) \
    X(dwfl_module_getsymtab) \
    X(dwfl_module_getsym_info) \
    X(dwfl_linux_proc_maps_report)
// clang-format on

struct tp_dw {
#define TP_DW_MEMBER(f) __typeof__(f) *f;
    TP_DW_FUNCTIONS(TP_DW_MEMBER)
#undef TP_DW_MEMBER
    /* The namespace's own libc: what libdw allocates (a Dwarf_Frame, a file name a
     * find_debuginfo callback returns) is freed or allocated with these. */
    void *(*malloc)(size_t);
    void (*free)(void *);
    /* A stream libdw reads (dwfl_linux_proc_maps_report) is that libc's too. */
    FILE *(*fmemopen)(void *, size_t, const char *);
    int (*fclose)(FILE *);
};

/* Filled once by tp_dw_load; read only after tp_dw_ready() said 1. */
extern struct tp_dw tp_dw;
extern _Atomic int tp_dw_state; /* 0 not tried, 1 loaded, -1 unavailable */

static inline int tp_dw_ready(void)
{
    return atomic_load_explicit(&tp_dw_state, memory_order_acquire) > 0;
}

/* Load the libraries and fill the table (idempotent). Not from a malloc hook: it runs the
 * dynamic loader, which may be the caller of that malloc. Called by the report's symboliser
 * (track/sym/symbolize.c) and, with TPROF_WORK, by libtprof.so's constructor. Returns
 * tp_dw_ready(). */
int tp_dw_load(void);
/* The same from a malloc hook's stack walk, whose first return address (the allocating call's)
 * is given, for a CFA rule only libdw reads (track/unwind/cfarules.c). Loads only where that is safe
 * (one thread, a caller that is not the dynamic loader), else leaves it for later. */
int tp_dw_load_early(uintptr_t caller);
/* The call frame information's row at pc of module m (its .eh_frame, else .debug_frame), for
 * the CFA and the registers' rules; NULL when there is none. Free it with tp_dw.free. */
Dwarf_Frame *tp_dw_frame_at(Dwfl_Module *m, uintptr_t pc);
/* Set (never cleared) when the report is written from a fatal signal's handler: the thread may
 * have been stopped anywhere, and another thread may be inside the dynamic loader, holding its
 * lock while it waits for one this thread holds. tp_dw_load then loads only while the process
 * has one thread; otherwise the report names functions from the symbol tables alone. */
extern _Atomic int tp_dw_in_handler;

/* The loaded modules, as dl_iterate_phdr describes them, and the ones unloaded since.
 *
 * Everything here reads the memory dl_iterate_phdr describes and nothing else: no file is
 * opened, no object is opened (dlopen, even RTLD_NOLOAD, would run constructors still pending in
 * its group, out of order), so each function is safe inside a dlopen wrapper or a constructor. */
/* One loaded module with at least one PT_LOAD segment. */
struct tp_module {
    const char *name;             /* dlpi_name, "" for the main program */
    uintptr_t bias, lo, hi;       /* load bias; the range its PT_LOAD segments span */
    const ElfW(Dyn) * dyn;        /* its dynamic section, NULL if none */
    uintptr_t relro_lo, relro_hi; /* pages ld.so made read-only after relocation */
    int self;                     /* libtprof.so itself */
    const ElfW(Phdr) * phdr;      /* its program headers, for what the fields above leave out */
    int phnum;
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
/* The run-time range [*lo, *hi) of the function name as module m defines it (its .dynsym
 * entry's value and size): 0, or -1 when m defines no such function or gives no size. */
int tp_modmap_function(const struct tp_module *m, const char *name, uintptr_t *lo, uintptr_t *hi);
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
/* Room for a build-id: a SHA-1 one is 20 bytes, --build-id=0xHEX may be longer (cut to this). */
#define TP_BUILD_ID_MAX 32
struct tp_departed {
    char path[512];
    uintptr_t base;   /* load bias */
    uintptr_t lo, hi; /* address range of its PT_LOAD segments */
    /* read before the dlclose: the note is unmapped with the module */
    unsigned char build_id[TP_BUILD_ID_MAX];
    unsigned char build_id_len; /* 0: it has none */
};

/* The bytes of m's NT_GNU_BUILD_ID note, read from its PT_NOTE segments in memory, into
 * out[0..cap); returns how many (at most cap), 0 when it has none. */
size_t tp_modmap_build_id(const struct tp_module *m, unsigned char *out, size_t cap);

/* The report's "modules": every module loaded now (one dl_iterate_phdr), then the departed
 * ones. The main program's path is /proc/self/exe's target; a module with no name besides the
 * main program (the vDSO on a loader that does not name it) is left out, having no file to
 * name. */
void tp_modmap_collect(struct tp_report *r);

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

/* What a function the CPU-time samples outside every op landed in is, for the advice the report
 * gives on it (report/analyze/advice.c): its name, module, kind, whether its module is stripped, and the
 * function the compiler inlined into it that holds most of its samples. Runs when a report is
 * written, never in the signal handler. */
struct tp_symbolizer;

/* One sampled address of the function and its samples. */
struct tp_sampled_pc {
    uintptr_t pc;
    uint64_t n;
};

/* Fill o's name, module, kind, stripped and, for a function the reporter may find inlined
 * functions in, its sampled addresses (o->at), from the function's sampled addresses
 * pcs[0..npcs) (the first one names it), with the symbol tables only. */
void tp_outside_describe(struct tp_outside_fn *o, const struct tp_sampled_pc *pcs, size_t npcs);

/* A runtime's yield or idle loop by function name (sched_yield, OpenBLAS's idle thread server):
 * threads waiting, not work. */
int tp_outside_wait_name(const char *name);

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
/* The name of the function containing addr, into out (truncated to n-1 bytes; "@VERSION" cut).
 * *start, when not NULL, receives the function's first address. 0, or -1 if no symbol covers
 * addr. */
int tp_symtab_lookup(uintptr_t addr, char *out, size_t n, uintptr_t *start);

/* What TPROF_OPS can do with the function at addr (report/analyze/advice.c decides from it). */
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

/* The libraries whose functions are never ops: the C runtime, the toolchain's and languages'
 * runtimes, system libraries and tprof's own dependencies. The PLT hooks skip them
 * (preload/plt/plt_mods.c), and the advice on the time outside every op never tells to name their
 * functions in TPROF_OPS (track/sym/outside_fn.c). */
/* 1 when the module at path (a file name or a path) is one of them. */
int tp_syslib_denied(const char *path);

/* tprof's own thread-local storage, kept out of the program's heap figures.
 *
 * Every thread the program starts gets a DTV from the dynamic loader (allocate_dtv: calloc of
 * (highest TLS module id + 16) slots of 16 bytes), kept with the thread's cached stack until the
 * process ends. libtprof.so's own TLS and the libraries of elfutils' namespace (track/sym/dwlib.c:
 * a second libc, libdw, libelf) hold module ids of their own, so under tprof each of those DTVs
 * is 16 bytes per such module larger than the program alone makes it. That surplus is tprof's:
 * the calloc shim records the DTV at the size the program would have had. */
/* Count the TLS modules tprof holds: libtprof.so's own, and those of the link-map namespace of
 * ns_handle (a dlmopen handle, NULL when none was loaded). Called where the dynamic loader may
 * run (tp_dw_load, inside its own work). Until then libtprof.so's one module is assumed. */
void tp_tls_own_count(void *ns_handle);
/* Bytes of a calloc(n, m) made from return address ra that are tprof's: the DTV surplus when the
 * call is the dynamic loader's allocation of a DTV (m is a DTV slot, the caller is the loader),
 * else 0. Never takes a lock. */
size_t tp_tls_dtv_surplus(uintptr_t ra, size_t n, size_t m);

#endif
