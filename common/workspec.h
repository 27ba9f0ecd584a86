/* Work specifications: the FLOPs and bytes of one call of a program's own function, as formulas
 * over its integer parameters (TPROF_WORK, TPROF_WORK_FILE):
 *
 *   gemv: flops=2*rows*cols bytes=4*(rows*cols+rows+cols); conv2d: flops=2*oc*oh*ow*ic*kh*kw
 *
 * Entries are separated by ';' or new lines ('#' starts a comment to the end of the line). A
 * formula is + - * / on integers and parameter names, parentheses, min(a,b), max(a,b) and nz(a)
 * (1 when a is not 0); a name may carry a prototype (common/workabi.h). Each is
 * compiled once, when the setting is read, into a small stack program that is evaluated with
 * 64-bit signed integers: an overflow, a division by zero or a negative result makes that call's
 * work unknown rather than wrong. Which parameters exist is known only from the function's debug
 * information, when it is first called (track/work/argloc.c). */
#ifndef TPROF_WORKSPEC_H
#define TPROF_WORKSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/workabi.h"

#define TP_WORK_MAX_VARS 8  /* distinct parameters one function's formulas name */
#define TP_WORK_MAX_CODE 48 /* instructions per formula */
#define TP_WORK_MAX_FNS  64 /* functions in a set */
#define TP_WORK_NAME     96 /* a function name's bytes, with its terminator */
#define TP_WORK_VAR      32 /* a parameter name's bytes, with its terminator */

struct tp_work_insn {
    uint8_t op, src, var;
    int64_t k;
};

struct tp_work_expr {
    int n; /* 0: no formula */
    struct tp_work_insn code[TP_WORK_MAX_CODE];
};

struct tp_work_fn {
    char name[TP_WORK_NAME];
    int nvars; /* the parameters named, in the order they first appear (the shape's order) */
    char vars[TP_WORK_MAX_VARS][TP_WORK_VAR];
    struct tp_work_expr flops, bytes;
    int nparams; /* the prototype's parameters ("name(int m, ...)"), -1 when none was given */
    struct tp_work_param params[TP_WORK_MAX_PARAMS];
};

struct tp_work_set {
    int n;
    struct tp_work_fn fn[TP_WORK_MAX_FNS];
};

/* Compile text and add its entries to *set (allocated with malloc on first use; a later entry
 * for the same function replaces the earlier). 0, or -1 with a reason in why (at most n bytes,
 * naming the entry) and *set unchanged. */
int tp_work_parse(struct tp_work_set **set, const char *text, char *why, size_t n);

/* The same from the file at path (at most 1 MiB of text). */
int tp_work_load(struct tp_work_set **set, const char *path, char *why, size_t n);

/* The entry for a function name, NULL if none. */
const struct tp_work_fn *tp_work_find(const struct tp_work_set *set, const char *name);

/* One call's work from the values of the entry's parameters (vals[i] for vars[i]). 0, or -1 when
 * a formula overflows, divides by zero or is negative (the call's work is then unknown). A
 * missing formula gives 0 for that figure. */
int tp_work_eval(const struct tp_work_fn *f, const int64_t *vals, uint64_t *flops, uint64_t *bytes);

/* The call's shape by parameter name: "rows=512 cols=512". */
void tp_work_shape(const struct tp_work_fn *f, const int64_t *vals, char *out, size_t n);

#endif
