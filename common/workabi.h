/* Where a function's parameters are passed (x86-64 System V), for the work entries of functions
 * reached through the PLT (common/workspec.h): their types from a prototype the entry gives,
 *
 *   gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, ...): flops=...
 *
 * or from the function's DWARF (track/work/argloc.h). At the function's entry the integer and pointer
 * arguments are in rdi, rsi, rdx, rcx, r8, r9, the floating-point ones in xmm0-7, and the rest on
 * the stack above the return address, 8 bytes each, in order. */
#ifndef TPROF_WORKABI_H
#define TPROF_WORKABI_H

#include <stddef.h>
#include <stdint.h>

#define TP_WORK_MAX_PARAMS 16

struct tp_work_param {
    char name[32];
    uint8_t is_float; /* float or double (passed in an xmm register) */
    uint8_t size;     /* bytes: 1, 2, 4, 8 */
    uint8_t is_signed;
    uint8_t other; /* a struct, union, long double, ...: not placed, and the ones after it not */
};

enum tp_work_where { TP_WORK_INT = 1, TP_WORK_SSE, TP_WORK_STACK };

struct tp_work_place {
    uint8_t where, idx; /* register number in its class, or 8-byte stack slot */
    uint8_t size, is_signed, is_float;
};

/* Parse "(type name, ...)" at *p (at the '('), moving *p past the ')'. 0, or -1 with *why. */
int tp_work_proto(const char **p, struct tp_work_param *out, int *n, const char **why);

/* Where each of the nvars parameters named in vars is passed, given the function's parameters
 * in order. 0, or -1 with the reason in why. */
int tp_work_place(const struct tp_work_param *params, int nparams, char (*vars)[32], int nvars,
                  struct tp_work_place *out, char *why, size_t n);

/* A parameter's value as an integer formula operand, from its 8 raw bytes: an integer extended
 * from its size; a float or double rounded away from zero (so that nz() sees any non-zero). */
int64_t tp_work_value(uint64_t raw, const struct tp_work_place *p);

#endif
