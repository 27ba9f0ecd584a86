/* A stand-in for ggml's CPU backend (tests/ggml_nodes.sh): the data layout of ggml's struct
 * ggml_tensor and struct ggml_compute_params as ggml has had them since mid-2024 (checked against
 * ggml d99724f2), written here from that layout, with no ggml source. TP_OTHER_LAYOUT moves the
 * op field, as an older or newer ggml would, so that tprof must refuse it. */
#ifndef TPGGML_H
#define TPGGML_H
#include <stddef.h>
#include <stdint.h>

struct tensor {
    int type;
    void *buffer;
    int64_t ne[4];
    size_t nb[4];
#ifdef TP_OTHER_LAYOUT
    int32_t flags;
    int32_t op_params[16];
    int op;
#else
    int op;
    int32_t op_params[16];
    int32_t flags;
#endif
    struct tensor *src[10];
    struct tensor *view_src;
    size_t view_offs;
    void *data;
    char name[64];
    void *extra;
    char padding[8];
};

struct compute_params {
    int ith, nth;
    size_t wsize;
    void *wdata;
    void *threadpool;
    _Bool use_ref;
};

/* This stand-in's own op numbers: tprof learns names through ggml_op_name. */
enum { OP_NONE, OP_ADD, OP_MUL_MAT, OP_NORM, OP_SOFT_MAX, OP_UNARY, OP_OUT_PROD, OP_COUNT };

const char *ggml_op_name(int op);
/* ggml's data type names: 0 f32, 1 f16, 2 q4_0 (the stand-in's own numbers). */
const char *ggml_type_name(int type);
int64_t ggml_nelements(const struct tensor *t);
size_t ggml_nbytes(const struct tensor *t);
int ggml_is_contiguous(const struct tensor *t);
void ggml_compute_forward_mul_mat(const struct compute_params *p, struct tensor *dst);
void ggml_compute_forward_add(const struct compute_params *p, struct tensor *dst);
void ggml_compute_forward_norm(const struct compute_params *p, struct tensor *dst);
void ggml_compute_forward_soft_max(const struct compute_params *p, struct tensor *dst);
void ggml_compute_forward_unary(const struct compute_params *p, struct tensor *dst);
void ggml_compute_forward_out_prod(const struct compute_params *p, struct tensor *dst);
/* Compute nodes[0..n) on nth threads (the caller's is ith 0), each node's function called by
 * every thread through the library's PLT, with a barrier after each node, as ggml's do. */
void ggml_graph_compute(struct tensor **nodes, int n, int nth);
/* A training epoch as ggml_opt_epoch runs one: the graph computed `evals` times by calls of
 * ggml_graph_compute through the library's PLT, inside this one outermost call. */
void ggml_opt_epoch(struct tensor **nodes, int n, int nth, int evals);
/* ggml's barrier: the threads that arrive first spin until the last one does. */
void ggml_barrier(void);
/* Milliseconds the thread with ith 1 sleeps in its first node of each evaluation (0: none), so
 * that the other spins in ggml_barrier meanwhile. */
extern int tpggml_slow_ms;
/* Milliseconds of CPU time each thread's mul_mat call spends in its kernel (0: none). */
extern int tpggml_burn_ms;
/* ggml's backend buffers, as its API has them: a buffer type with a name, a buffer of a size
 * whose usage the program may set (ggml's GGML_BACKEND_BUFFER_USAGE_*), freed with the buffer
 * free function; the data a heap block, as the CPU backend's. */
enum { USAGE_ANY, USAGE_WEIGHTS, USAGE_COMPUTE };
struct buft {
    const char *name;
};
struct buffer {
    struct buft *buft;
    void *data;
    size_t size;
    int usage;
};
struct buft *ggml_backend_cpu_buffer_type(void);
/* ggml's allocator wrapper, which the buffer allocation calls through the library's PLT. */
void *ggml_aligned_malloc(size_t size);
struct buffer *ggml_backend_buft_alloc_buffer(struct buft *buft, size_t size);
void ggml_backend_buffer_set_usage(struct buffer *b, int usage);
const char *ggml_backend_buffer_name(struct buffer *b);
size_t ggml_backend_buffer_get_size(struct buffer *b);
void ggml_backend_buffer_free(struct buffer *b);

#endif
