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
#ifndef TPROF_DWLIB_H
#define TPROF_DWLIB_H

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

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

#endif
