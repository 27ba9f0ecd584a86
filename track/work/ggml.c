/* The work of a ggml graph node, read from the node itself (see track/work/work.h).
 *
 * ggml's CPU backend computes a graph node by calling ggml_compute_forward_<op>(params, dst), an
 * export of libggml-cpu called through its PLT, on every thread of the evaluation (params->ith of
 * params->nth): the node's shape is in dst and its sources (dst->src[]), which no formula over
 * the call's arguments can reach. So the node is read here, with the layout of struct ggml_tensor
 * and struct ggml_compute_params that ggml has kept since mid-2024 (tested with ggml d99724f2,
 * August 2026): type at 0, ne[4] at 16, op at 80, src[10] at 152; ith and nth the first two ints
 * of the params. No ggml header is needed, and nothing is read before the layout is checked once
 * against ggml's own exported functions, found in the process: the op ggml_op_name names for
 * the node must be the one the function is named after, and ggml_nelements must agree with the
 * ne[] read here; a source's data type (type, the first field) is named by ggml_type_name. A
 * process whose ggml has another layout keeps the plain view (the node
 * functions timed and counted, without work), with one note.
 *
 * A node's work is counted once, by the thread with ith 0, not once per thread: FLOPs as ggml
 * computes them in the plain float case (mul_mat and out_prod 2*K*M*N per batch; an elementwise or
 * activation op one per element; norm 5, rms_norm 3 and soft_max 5 per element) and bytes as
 * its result's and sources' sizes (ggml_nbytes), which also covers quantised weights. */
#include "track/work/work.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "track/runtime.h"

#define PREFIX     "ggml_compute_forward_"
#define OFF_NE     16
#define OFF_OP     80
#define OFF_SRC    152
#define MAX_SRC    10
#define MAX_THREAD 4096

typedef const char *(*op_name_fn)(int op);
typedef int64_t (*nelements_fn)(const void *t);
typedef size_t (*nbytes_fn)(const void *t);
typedef const char *(*type_name_fn)(int type);

static struct {
    op_name_fn op_name;
    nelements_fn nelements;
    nbytes_fn nbytes;
    type_name_fn type_name; /* NULL: shapes without data types */
} fns;

/* 0: not checked yet; 1: the layout holds; -1: it does not, or ggml's functions are missing. */
static _Atomic int layout;
static char refused[160];

/* How ggml's op (its lower-case name) is counted. */
enum count { C_NONE, C_MATMUL, C_OUTPROD, C_ELEMENT, C_NORM, C_RMS_NORM, C_SOFTMAX };
static const struct {
    const char *op, *kind;
    enum count count;
} ops[] = {
    {"mul_mat", "matmul", C_MATMUL},
    {"mul_mat_id", "matmul", C_NONE},
    {"out_prod", "matmul", C_OUTPROD},
    {"add", "elementwise", C_ELEMENT},
    {"add1", "elementwise", C_ELEMENT},
    {"acc", "elementwise", C_ELEMENT},
    {"sub", "elementwise", C_ELEMENT},
    {"mul", "elementwise", C_ELEMENT},
    {"div", "elementwise", C_ELEMENT},
    {"sqr", "elementwise", C_ELEMENT},
    {"sqrt", "elementwise", C_ELEMENT},
    {"log", "elementwise", C_ELEMENT},
    {"scale", "elementwise", C_ELEMENT},
    {"unary", "activation", C_ELEMENT},
    {"glu", "activation", C_ELEMENT},
    {"norm", "norm", C_NORM},
    {"rms_norm", "norm", C_RMS_NORM},
    {"group_norm", "norm", C_NORM},
    {"l2_norm", "norm", C_NORM},
    {"soft_max", "softmax", C_SOFTMAX},
    {"flash_attn_ext", "attention", C_NONE},
    {"rope", "rope", C_NONE},
    {"im2col", "conv", C_NONE},
    {"conv_transpose_1d", "conv", C_NONE},
    {"conv_transpose_2d", "conv", C_NONE},
    {"pool_1d", "pool", C_NONE},
    {"pool_2d", "pool", C_NONE},
    {"dup", "copy", C_NONE},
    {"cpy", "copy", C_NONE},
    {"cont", "copy", C_NONE},
    {"get_rows", "copy", C_NONE},
    {"set_rows", "copy", C_NONE},
    {"concat", "copy", C_NONE},
    {"transpose", "copy", C_NONE},
};

static int find_op(const char *op)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(ops[i].op, op))
            return (int)i;
    return -1;
}

const char *tp_ggml_node_op(const char *name)
{
    if (!name || strncmp(name, PREFIX, sizeof PREFIX - 1) || !name[sizeof PREFIX - 1])
        return NULL;
    return name + sizeof PREFIX - 1;
}

const char *tp_ggml_node_kind(const char *name)
{
    const char *op = tp_ggml_node_op(name);
    int i = op ? find_op(op) : -1;
    return i >= 0 ? ops[i].kind : op ? "op" : NULL;
}

int tp_ggml_step_function(const char *name)
{
    static const char *const fns[] = {"ggml_graph_compute",
                                      "ggml_graph_compute_with_ctx",
                                      "ggml_backend_graph_compute",
                                      "ggml_backend_graph_compute_async",
                                      "ggml_backend_sched_graph_compute",
                                      "ggml_backend_sched_graph_compute_async"};
    if (strncmp(name, "ggml_", 5))
        return 0;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (!strcmp(name, fns[i]))
            return 1;
    return 0;
}

static const int64_t *ne_of(uintptr_t t)
{
    return (const int64_t *)(t + OFF_NE);
}

static uintptr_t src_of(uintptr_t t, int i)
{
    return ((const uintptr_t *)(t + OFF_SRC))[i];
}

/* Check the layout on the node dst of the function for op (its name's suffix). */
static int check(const char *op, uintptr_t dst)
{
    fns.op_name = (op_name_fn)dlsym(RTLD_DEFAULT, "ggml_op_name");
    fns.nelements = (nelements_fn)dlsym(RTLD_DEFAULT, "ggml_nelements");
    fns.nbytes = (nbytes_fn)dlsym(RTLD_DEFAULT, "ggml_nbytes");
    fns.type_name = (type_name_fn)dlsym(RTLD_DEFAULT, "ggml_type_name");
    if (!fns.op_name || !fns.nelements || !fns.nbytes) {
        snprintf(refused, sizeof refused,
                 "ggml's ggml_op_name, ggml_nelements or ggml_nbytes "
                 "is not exported");
        return -1;
    }
    const char *named = fns.op_name(*(const int32_t *)(dst + OFF_OP));
    char low[64];
    size_t n = 0;
    for (; named && named[n] && n < sizeof low - 1; n++)
        low[n] = (char)tolower((unsigned char)named[n]);
    low[n] = 0;
    const int64_t *ne = ne_of(dst);
    int64_t count = 1;
    for (int i = 0; i < 4; i++)
        count = ne[i] > 0 && count <= INT64_MAX / ne[i] ? count * ne[i] : -1;
    if (!named || strcmp(low, op) || count < 0 || count != fns.nelements((const void *)dst)) {
        snprintf(refused, sizeof refused,
                 "the node of %s%s is not laid out as tprof reads ggml's tensors", PREFIX, op);
        return -1;
    }
    return 1;
}

int tp_ggml_node_work(const char *name, uintptr_t params, uintptr_t dst, uint64_t *flops,
                      uint64_t *bytes, struct tp_shape_key *shape)
{
    const char *op = tp_ggml_node_op(name);
    if (!op || !params || !dst)
        return 0;
    const int32_t *pt = (const int32_t *)params;
    if (pt[0] != 0 || pt[1] < 1 || pt[1] > MAX_THREAD)
        return 0; /* another thread's call of the node: counted by the thread with ith 0 */
    int l = atomic_load_explicit(&layout, memory_order_acquire);
    if (l == 0) {
        int i = find_op(op);
        if (i < 0 || ops[i].count == C_NONE) /* checked on an op whose name is ggml's */
            return 0;
        struct tp_own g = tp_own_begin(); /* dlsym may allocate */
        l = check(op, dst);
        tp_own_end(g);
        int expect = 0;
        if (!atomic_compare_exchange_strong(&layout, &expect, l))
            l = expect;
    }
    if (l < 0)
        return 0;
    int i = find_op(op);
    const int64_t *ne = ne_of(dst);
    uint64_t elems = (uint64_t)fns.nelements((const void *)dst), by = fns.nbytes((const void *)dst);
    for (int s = 0; s < MAX_SRC; s++) {
        uintptr_t src = src_of(dst, s);
        if (src)
            by += fns.nbytes((const void *)src);
    }
    memset(shape, 0, sizeof *shape);
    shape->m = ne[0];
    shape->n = ne[1] * ne[2] * ne[3];
    for (int s = 0; s < 2 && fns.type_name; s++) {
        uintptr_t src = src_of(dst, s);
        shape->dtype[s] = src ? fns.type_name(*(const int *)src) : NULL;
    }
    if (!shape->dtype[0])
        shape->dtype[1] = NULL;
    uint64_t fl = 0;
    switch (i >= 0 ? ops[i].count : C_NONE) {
    case C_MATMUL:
    case C_OUTPROD: { /* out_prod: dst = src0 x src1^T, summed over src0's second dimension */
        uintptr_t a = src_of(dst, 0);
        int64_t k = a ? ne_of(a)[ops[i].count == C_MATMUL ? 0 : 1] : 0;
        shape->n = ne[1];
        shape->k = k;
        shape->more[0] = ne[2] * ne[3];
        fl = 2 * (uint64_t)k * (uint64_t)ne[0] * (uint64_t)ne[1] * (uint64_t)(ne[2] * ne[3]);
        break;
    }
    case C_ELEMENT: fl = elems; break;
    case C_NORM: fl = 5 * elems; break;
    case C_RMS_NORM: fl = 3 * elems; break;
    case C_SOFTMAX: fl = 5 * elems; break;
    case C_NONE: break;
    }
    *flops = fl;
    *bytes = by;
    return 1;
}

void tp_ggml_notes(struct tp_report *r)
{
    if (atomic_load(&layout) < 0)
        tp_report_note(r,
                       "ggml: %s; its node ops are timed and counted without FLOPs, bytes or "
                       "shapes (tprof reads the layout ggml has had since mid-2024)",
                       refused);
}
