/* CFA rules read straight from a module's .eh_frame_hdr and .eh_frame as they are mapped, without
 * elfutils: a short process (make, gcc, cc1, as: dozens a build) then never loads libdw's
 * namespace for its stack walks. The reader plays out the CIE's and the FDE's call frame
 * instructions up to an address and states the result the way libdw's dwarf_frame_cfa and
 * dwarf_frame_register do (Dwarf_Op lists; the types only, from libdw's header), so that one
 * conversion (track/unwind/ehrule.h) makes the walk's rule of either. What it does not read (no
 * binary-search table, an encoding or an augmentation it does not know, a malformed entry) it
 * says so, and the caller asks libdw. */
#ifndef TPROF_EHFRAME_H
#define TPROF_EHFRAME_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "track/unwind/cfarules.h"

/* Where a module's CFI is: its PT_GNU_EH_FRAME, and the bytes that may be read, those of the
 * PT_LOAD segment that holds it (nothing outside is ever read, whatever the tables say). */
struct tp_eh_src {
    uintptr_t hdr;    /* .eh_frame_hdr, 0 when the module has none */
    uintptr_t lo, hi; /* readable bytes */
    uintptr_t bias;   /* added to the module's own addresses (DW_EH_PE_absptr) */
    int file;         /* read from a file's image: absptr addresses are not relocated */
};

/* A register's rule as dwarf_frame_register gives it: n == 0 and same: "same value"; n == 0 and
 * not same: undefined; else the location expression op[0..n) (n == 3 stands for any longer
 * one, which no conversion accepts). */
struct tp_eh_reg {
    Dwarf_Op op[3];
    size_t n;
    int same;
};

/* A frame as libdw states it: the CFA's expression (a register rule is one DW_OP_bregx), and
 * the return address's and rbp's rules. ncfa == 0: no CFA rule to be had. */
#define TP_EH_CFA_OPS 12
struct tp_eh_frame {
    Dwarf_Op cfa[TP_EH_CFA_OPS];
    size_t ncfa;
    struct tp_eh_reg ra, rbp;
};

enum {
    TP_EH_FOUND = 0,  /* *out holds the frame at the address */
    TP_EH_NONE = 1,   /* no FDE covers the address (libdw says the same) */
    TP_EH_ASK_DW = 2, /* not read here: ask libdw */
};

/* The frame at address pc (an address of the module as mapped), read from s. *row_end, when
 * given, is where the row that holds pc ends (the next address whose rule may differ). */
int tp_eh_frame_at(const struct tp_eh_src *s, uintptr_t pc, struct tp_eh_frame *out,
                   uintptr_t *row_end);

/* Drop what the reader keeps between calls (a long FDE's rows, the last CIE read): a module was
 * unloaded, and its addresses may hold another's next. The reader's callers hold one lock (the
 * rule table's, track/unwind/cfarules.c): what it keeps is not guarded otherwise. */
void tp_eh_forget(void);

#endif
