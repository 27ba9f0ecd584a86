/* An op's FLOPs and bytes from its arguments (TPROF_WORK): the one header of track/work/ for code outside it. */
#ifndef TPROF_TRACK_WORK_WORK
#define TPROF_TRACK_WORK_WORK

#include <stdatomic.h>
#include <stdint.h>

#include "track/ops/ops.h"

/* Work (FLOPs, bytes) and shape of a call of an instrumented op from its own arguments, as a
 * TPROF_WORK entry (common/workspec.h) names them and the function's DWARF places them
 * (track/work/argloc.h). The locations are resolved once per call site of the enter hook (its return
 * address) and kept in a table all threads read without a lock: a call then costs a lookup, a
 * few loads and the formula's few instructions. */
#include "track/work/argloc.h"

/* The enter hook of fn (an op) was called from ra with the registers regs[TP_ARG_NREGS]. 1 with
 * the call's work and shape filled in; 0 when fn has no work entry, or its parameters cannot
 * be found (said once per function, on stderr), or its formula fails for these values. */
int tp_argwork_enter(uintptr_t fn, uintptr_t ra, const uint64_t *regs, uint64_t *flops,
                     uint64_t *bytes, struct tp_shape_key *shape);

/* The work of a function hooked through the PLT (preload/plt/shim_plt.c), from the registers and
 * stack of its call as the x86-64 System V ABI passes arguments: where each parameter is comes
 * from the entry's prototype, else from the function's DWARF; resolved at the first call. */
struct tp_argwork_abi {
    _Atomic int state; /* 0 not resolved yet, 1 ready, -1 no work */
    const struct tp_work_fn *w;
    struct tp_work_place place[TP_WORK_MAX_VARS];
};

/* A call of name (the function at target): ints the six integer argument registers, xmm the
 * eight vector ones, stack the first argument passed on the stack. 1 with the work and shape
 * filled in, 0 as tp_argwork_enter. */
int tp_argwork_abi(struct tp_argwork_abi *a, const char *name, uintptr_t target,
                   const uint64_t *ints, const unsigned char (*xmm)[16], const uint64_t *stack,
                   uint64_t *flops, uint64_t *bytes, struct tp_shape_key *shape);

struct tp_report;

/* The report's notes on calls without work: a formula that overflowed, divided by zero or was
 * negative; a parameter only the caller knows, from a caller whose call site does not give it
 * (track/work/argcall.h). */
void tp_argwork_notes(struct tp_report *r);

/* After a dlclose: every resolved location is void. */
void tp_argwork_forget(void);

/* ggml's graph nodes (track/work/ggml.c). A function that computes one on the CPU backend,
 * ggml_compute_forward_<op>(params, dst): its op ("mul_mat"), else NULL; its kind (matmul,
 * elementwise, activation, norm, softmax, attention, copy, ..., "op" for another op). */
const char *tp_ggml_node_op(const char *name);
const char *tp_ggml_node_kind(const char *name);
/* A call of node function name with its two arguments: 1 with the node's work and shape filled
 * in (the call of the thread with ith 0: a node's work is counted once); 0 for the other
 * threads' calls, and when the node's layout is not the one read (then never again). */
int tp_ggml_node_work(const char *name, uintptr_t params, uintptr_t dst, uint64_t *flops,
                      uint64_t *bytes, struct tp_shape_key *shape);
/* Is name one of ggml's graph-compute entry points (ggml_graph_compute, ggml_backend_graph_compute,
 * ggml_backend_sched_graph_compute, their _with_ctx and _async variants)? With no TPROF_STEP,
 * each outermost call of one is a step: one evaluation of the graph, a token of a language
 * model's generation, a batch of a training run, whatever loop encloses it. */
int tp_ggml_step_function(const char *name);
/* The report's note when ggml's layout was refused. */
void tp_ggml_notes(struct tp_report *r);

#endif
