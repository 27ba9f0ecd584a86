/* Loading elfutils into a namespace of its own (see track/sym/sym.h).
 *
 * dlmopen(LM_ID_NEWLM) gives libdw.so.1 and its dependencies (libelf, libz, liblzma, libbz2, a
 * libc) a link map the program never searches: its dlopen, dlsym, dl_iterate_phdr and
 * RTLD_NOLOAD see the program's libraries only, and an LD_PRELOAD library (tprof itself) is not
 * loaded there, so libdw's malloc is that namespace's libc, whose heap (a libc that is not the
 * first one uses mmap, never brk) is apart from the program's. Every symbol is looked up here,
 * once: libtprof.so then runs without elfutils when it is not installed, only with poorer stacks
 * and names.
 *
 * What the program can still notice: the second libc's initial-exec TLS comes out of the static
 * TLS surplus that glibc keeps for dlopen'ed libraries (a library with a 1,600-byte initial-exec
 * TLS block that a program could dlopen without tprof no longer fits; GLIBC_TUNABLES'
 * glibc.rtld.optional_static_tls makes room), and each thread's DTV has three more slots. */
#include "track/sym/sym.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <sys/auxv.h>
#include <sys/single_threaded.h>

#include "track/runtime.h"

struct tp_dw tp_dw;
_Atomic int tp_dw_state;

/* Each function's name and where its pointer goes. */
static const struct {
    const char *name;
    size_t at;
} wanted[] = {
#define TP_DW_ENTRY(f) {#f, offsetof(struct tp_dw, f)},
    TP_DW_FUNCTIONS(TP_DW_ENTRY)
#undef TP_DW_ENTRY
        {"malloc", offsetof(struct tp_dw, malloc)},
    {"free", offsetof(struct tp_dw, free)},
    {"fmemopen", offsetof(struct tp_dw, fmemopen)},
    {"fclose", offsetof(struct tp_dw, fclose)},
};

_Atomic int tp_dw_in_handler;

int tp_dw_load(void)
{
    if (atomic_load(&tp_dw_in_handler) && !__libc_single_threaded &&
        atomic_load_explicit(&tp_dw_state, memory_order_acquire) == 0)
        return 0;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&tp_dw_state, &expect, 2))
        return tp_dw_ready();
    /* the dynamic loader allocates with the program's malloc: not the program's */
    struct tp_own g = tp_own_begin();
    struct tp_dw t;
    const char *missing = NULL;
    void *h = dlmopen(LM_ID_NEWLM, "libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    tp_tls_own_count(h); /* their TLS modules are tprof's: track/sym/tlsown.c */
    if (!h) {
        const char *why = dlerror();
        tp_warn("libdw.so.1: %s; allocation stacks stop at the allocating call and report "
                "frames are unnamed (install libdw1)",
                why ? why : "cannot be loaded");
    }
    for (size_t i = 0; h && i < sizeof wanted / sizeof wanted[0]; i++) {
        void *p = dlsym(h, wanted[i].name);
        if (!p) {
            missing = wanted[i].name;
            break;
        }
        /* The table is written through its bytes: a function pointer per slot. */
        *(void **)((char *)&t + wanted[i].at) = p;
    }
    if (h && missing)
        tp_warn("libdw.so.1 has no %s; allocation stacks stop at the allocating call and report "
                "frames are unnamed",
                missing);
    if (h && !missing && t.elf_version(EV_CURRENT) != EV_NONE) {
        /* libelf's and libdw's first use of their thread-local variables (here, their error
         * codes) takes the loader's TLS lock for a moment. Done now, it never happens while
         * the stack walker's lock is held (track/unwind/cfarules.c), where a thread in the loader
         * (pthread_create growing a DTV) could be allocating, and waiting for that lock. */
        t.elf_errno();
        t.dwarf_errno();
        tp_dw = t;
        atomic_store_explicit(&tp_dw_state, 1, memory_order_release);
    } else {
        /* A namespace that did load stays: unloading a libc from a running process is not
         * worth the risk, and this happens at most once. */
        atomic_store_explicit(&tp_dw_state, -1, memory_order_release);
    }
    tp_own_end(g);
    return tp_dw_ready();
}

/* Is a the code of the dynamic loader itself (AT_BASE: its ELF header in memory)? */
static int in_loader(uintptr_t a)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_BASE);
    if (!eh)
        return 1; /* not known: assume the worst */
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++) {
        uintptr_t lo = (uintptr_t)eh + ph[i].p_vaddr;
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) && a >= lo && a < lo + ph[i].p_memsz)
            return 1;
    }
    return 0;
}

int tp_dw_load_early(uintptr_t caller)
{
    if (atomic_load_explicit(&tp_dw_state, memory_order_acquire) != 0)
        return tp_dw_ready();
    /* Another thread could hold the loader's lock, and wait for a lock of the program's that
     * this thread holds; the loader itself may be this malloc's caller, halfway through its own
     * work. Neither when the process has one thread and the caller is not the loader: the other
     * libraries' constructors, which run before libtprof.so's own. */
    if (!__libc_single_threaded || in_loader(caller))
        return 0;
    return tp_dw_load();
}

Dwarf_Frame *tp_dw_frame_at(Dwfl_Module *m, uintptr_t pc)
{
    Dwarf_Addr bias;
    Dwarf_CFI *cfi = tp_dw.dwfl_module_eh_cfi(m, &bias);
    if (!cfi)
        cfi = tp_dw.dwfl_module_dwarf_cfi(m, &bias);
    Dwarf_Frame *fr = NULL;
    if (!cfi || tp_dw.dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
        return NULL;
    return fr;
}
