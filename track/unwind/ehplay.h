/* Playing a CIE's and an FDE's call frame instructions out (track/unwind/ehframe.c's insides): the
 * row in force at an address, and, for a long FDE, every row at once, kept (see ehplay.c). */
#ifndef TPROF_EHPLAY_H
#define TPROF_EHPLAY_H

#include <stdint.h>
#include <string.h>

#include "track/unwind/ehframe.h"

struct cie {
    uint64_t code_align;
    int64_t data_align;
    uint8_t fde_enc;
    int z; /* augmentation data sized: FDEs have it too */
    const uint8_t *insns, *insns_end;
};

struct fde {
    uintptr_t start, end;
    const uint8_t *insns, *insns_end;
};

enum { R_UNDEF, R_SAME, R_OFFSET, R_VAL_OFFSET, R_REGISTER, R_EXPR, R_VAL_EXPR };
enum { CFA_NONE, CFA_REG, CFA_EXPR, CFA_INVALID };

struct reg {
    int rule;
    uint64_t v;       /* the offset, or the register */
    const uint8_t *x; /* an expression's bytes */
    uint64_t xlen;
};

struct row {
    int cfa;
    uint64_t cfa_reg, cfa_off;
    const uint8_t *cfa_x;
    uint64_t cfa_xlen;
    struct reg ra, rbp;
};

#define STATES 16

struct rows; /* a long FDE's rows as they are played out (ehplay.c) */

struct play {
    struct row cur, init, saved[STATES];
    int nsaved;
    const struct cie *c;
    const struct tp_eh_src *s;
    uintptr_t loc, pc, row_end;
    struct rows *rows; /* every row kept here, pc ignored (tp_eh_long_fde) */
};

/* A play from start, for the row of pc, the ABI's initial rules in force (rbp and the return
 * address "same value"). The saved states are left as they are: nothing reads one before it is
 * written, and a walk's miss need not clear 1.7 KB of them. */
static inline void tp_eh_play_init(struct play *p, const struct cie *c, const struct tp_eh_src *s,
                                   uintptr_t start, uintptr_t pc, uintptr_t end)
{
    memset(&p->cur, 0, sizeof p->cur);
    p->cur.ra.rule = p->cur.rbp.rule = R_SAME;
    p->nsaved = 0;
    p->c = c;
    p->s = s;
    p->loc = start;
    p->pc = pc;
    p->row_end = end;
    p->rows = NULL;
}

/* Play [i, end) out (the CIE's initial instructions when in_cie). 0: the row for p->pc is in
 * p->cur, p->row_end set when a later row begins; -1: not read here. */
int tp_eh_play(struct play *p, const uint8_t *i, const uint8_t *end, int in_cie);

/* The row stated as libdw states a frame. */
void tp_eh_state(const struct row *w, struct tp_eh_frame *out);

/* An FDE with this many bytes of instructions or more has its rows played out once and kept:
 * the rows before an address are played again for each address asked otherwise, and the one
 * function of cc1 with 20 KB of them has a hundred return addresses in its allocation stacks. */
#define TP_EH_LONG_FDE 512

/* The frame at pc of a long FDE f (with its CIE c), from its rows kept (played out once): 0,
 * or -1 when they cannot be kept (the caller plays the FDE out itself). Under the caller's lock
 * (the rule table's), like all of this reader's callers. */
int tp_eh_long_fde(const struct tp_eh_src *s, const struct fde *f, const struct cie *c,
                   uintptr_t pc, struct tp_eh_frame *out, uintptr_t *row_end);

/* Drop the rows kept (tp_eh_forget). */
void tp_eh_rows_forget(void);

#endif
