/* The stand-in ggml CPU backend of tpggml.h: each node function computes its rows share
 * (ith of nth) in plain float, as ggml's do. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tpggml.h"

static const char *const names[OP_COUNT] = {"NONE",     "ADD",   "MUL_MAT", "NORM",
                                            "SOFT_MAX", "UNARY", "OUT_PROD"};

const char *ggml_op_name(int op)
{
    return op >= 0 && op < OP_COUNT ? names[op] : "?";
}

const char *ggml_type_name(int type)
{
    return type == 0 ? "f32" : type == 1 ? "f16" : "q4_0";
}

int64_t ggml_nelements(const struct tensor *t)
{
    return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
}

size_t ggml_nbytes(const struct tensor *t)
{
    return (size_t)ggml_nelements(t) * sizeof(float);
}

int ggml_is_contiguous(const struct tensor *t)
{
    return t->nb[0] == sizeof(float);
}

static float *at(const struct tensor *t, int64_t col, int64_t row)
{
    return (float *)t->data + row * t->ne[0] + col;
}

int tpggml_burn_ms;

/* A kernel of mul_mat, as ggml's vec_dot is: not exported, named only by the symbol table. It
 * spins until its thread has used ms of CPU time, so that CPU-time samples land in it whatever
 * the machine's speed. */
static volatile float burn_sink;
static __attribute__((noinline)) void ggml_vec_dot_burn(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    float s = 0;
    do {
        /* arithmetic between the clock's reads, so that the samples land here, not in it */
        for (int i = 0; i < 200000; i++)
            s = s * 0.999f + (float)i;
        burn_sink = s;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ms * 1000000L);
}

void ggml_compute_forward_mul_mat(const struct compute_params *p, struct tensor *dst)
{
    if (!ggml_is_contiguous(dst))
        return;
    if (tpggml_burn_ms)
        ggml_vec_dot_burn(tpggml_burn_ms);
    const struct tensor *a = dst->src[0], *b = dst->src[1];
    for (int64_t n = p->ith; n < dst->ne[1]; n += p->nth)
        for (int64_t m = 0; m < dst->ne[0]; m++) {
            float s = 0;
            for (int64_t k = 0; k < a->ne[0]; k++)
                s += *at(a, k, m) * *at(b, k, n);
            *at(dst, m, n) = s;
        }
}

void ggml_compute_forward_add(const struct compute_params *p, struct tensor *dst)
{
    if (!ggml_is_contiguous(dst))
        return;
    for (int64_t r = p->ith; r < dst->ne[1]; r += p->nth)
        for (int64_t c = 0; c < dst->ne[0]; c++)
            *at(dst, c, r) = *at(dst->src[0], c, r) + *at(dst->src[1], c, r);
}

void ggml_compute_forward_norm(const struct compute_params *p, struct tensor *dst)
{
    if (!ggml_is_contiguous(dst))
        return;
    const struct tensor *x = dst->src[0];
    for (int64_t r = p->ith; r < dst->ne[1]; r += p->nth) {
        float mean = 0, var = 0;
        for (int64_t c = 0; c < dst->ne[0]; c++)
            mean += *at(x, c, r) / (float)dst->ne[0];
        for (int64_t c = 0; c < dst->ne[0]; c++)
            var += (*at(x, c, r) - mean) * (*at(x, c, r) - mean) / (float)dst->ne[0];
        for (int64_t c = 0; c < dst->ne[0]; c++)
            *at(dst, c, r) = (*at(x, c, r) - mean) / sqrtf(var + 1e-5f);
    }
}

void ggml_compute_forward_soft_max(const struct compute_params *p, struct tensor *dst)
{
    if (!ggml_is_contiguous(dst))
        return;
    const struct tensor *x = dst->src[0];
    for (int64_t r = p->ith; r < dst->ne[1]; r += p->nth) {
        float mx = *at(x, 0, r), sum = 0;
        for (int64_t c = 1; c < dst->ne[0]; c++)
            mx = fmaxf(mx, *at(x, c, r));
        for (int64_t c = 0; c < dst->ne[0]; c++)
            sum += *at(dst, c, r) = expf(*at(x, c, r) - mx);
        for (int64_t c = 0; c < dst->ne[0]; c++)
            *at(dst, c, r) /= sum;
    }
}

void ggml_compute_forward_unary(const struct compute_params *p, struct tensor *dst)
{
    if (!ggml_is_contiguous(dst))
        return;
    const struct tensor *x = dst->src[0];
    for (int64_t r = p->ith; r < dst->ne[1]; r += p->nth)
        for (int64_t c = 0; c < dst->ne[0]; c++)
            *at(dst, c, r) = *at(x, c, r) > 0 ? *at(x, c, r) : 0;
}

int tpggml_slow_ms;
static _Atomic int arrived, passed, team;

void ggml_barrier(void)
{
    int gen = atomic_load(&passed);
    if (atomic_fetch_add(&arrived, 1) + 1 == atomic_load(&team)) {
        atomic_store(&arrived, 0);
        atomic_fetch_add(&passed, 1);
        return;
    }
    while (atomic_load(&passed) == gen)
        ;
}

/* dst = a x b^T: a is m x k, b n x k (k their second dimension), dst m x n */
void ggml_compute_forward_out_prod(const struct compute_params *p, struct tensor *dst)
{
    if (!ggml_is_contiguous(dst))
        return;
    const struct tensor *a = dst->src[0], *b = dst->src[1];
    for (int64_t n = p->ith; n < dst->ne[1]; n += p->nth)
        for (int64_t m = 0; m < dst->ne[0]; m++) {
            float s = 0;
            for (int64_t k = 0; k < a->ne[1]; k++)
                s += *at(a, m, k) * *at(b, n, k);
            *at(dst, m, n) = s;
        }
}

struct worker {
    struct tensor **nodes;
    int n;
    struct compute_params p;
};

static void node(const struct compute_params *p, struct tensor *t)
{
    switch (t->op) {
    case OP_ADD: ggml_compute_forward_add(p, t); break;
    case OP_MUL_MAT: ggml_compute_forward_mul_mat(p, t); break;
    case OP_NORM: ggml_compute_forward_norm(p, t); break;
    case OP_SOFT_MAX: ggml_compute_forward_soft_max(p, t); break;
    case OP_UNARY: ggml_compute_forward_unary(p, t); break;
    case OP_OUT_PROD: ggml_compute_forward_out_prod(p, t); break;
    }
}

static void *run(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < w->n; i++) {
        if (i == 0 && w->p.ith == 1 && tpggml_slow_ms) {
            struct timespec ts = {tpggml_slow_ms / 1000, (tpggml_slow_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        node(&w->p, w->nodes[i]);
        ggml_barrier();
    }
    return NULL;
}

void ggml_graph_compute(struct tensor **nodes, int n, int nth)
{
    pthread_t tid[8];
    struct worker w[8];
    if (nth < 1 || nth > 8)
        return;
    atomic_store(&team, nth);
    for (int t = 0; t < nth; t++)
        w[t] = (struct worker){nodes, n, {t, nth, 0, NULL, NULL, 0}};
    for (int t = 1; t < nth; t++)
        pthread_create(&tid[t], NULL, run, &w[t]);
    run(&w[0]);
    for (int t = 1; t < nth; t++)
        pthread_join(tid[t], NULL);
}

void ggml_opt_epoch(struct tensor **nodes, int n, int nth, int evals)
{
    for (int e = 0; e < evals; e++)
        ggml_graph_compute(nodes, n, nth);
}

struct buft *ggml_backend_cpu_buffer_type(void)
{
    static struct buft cpu = {"CPU"};
    return &cpu;
}

void *ggml_aligned_malloc(size_t size)
{
    void *p = NULL;
    return posix_memalign(&p, 64, size) ? NULL : p;
}

struct buffer *ggml_backend_buft_alloc_buffer(struct buft *buft, size_t size)
{
    struct buffer *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->data = ggml_aligned_malloc(size); /* an export's call of an export: through the PLT */
    if (!b->data) {
        free(b);
        return NULL;
    }
    memset(b->data, 0, size);
    b->buft = buft;
    b->size = size;
    return b;
}

void ggml_backend_buffer_set_usage(struct buffer *b, int usage)
{
    b->usage = usage;
}

const char *ggml_backend_buffer_name(struct buffer *b)
{
    return b->buft->name;
}

size_t ggml_backend_buffer_get_size(struct buffer *b)
{
    return b->size;
}

void ggml_backend_buffer_free(struct buffer *b)
{
    if (!b)
        return;
    free(b->data);
    free(b);
}
