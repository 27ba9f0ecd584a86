/* The layer library of the example models: see layers.h. */
#include "layers.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tprof.h>

#define EX_NOINSTR __attribute__((no_instrument_function))

unsigned ex_rng_state = 12345;

/* Out of line, so that a call site in tprof's report names the line that asked for the memory,
 * not this one. */
EX_NOINSTR __attribute__((noinline)) void *ex_alloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

void param_init(struct param *p, size_t n, float scale, int adam)
{
    size_t bytes = n * sizeof(float);
    p->n = n;
    p->w = ex_alloc(bytes);
    p->grad = ex_alloc(bytes);
    p->m = ex_alloc(bytes);
    p->v = adam ? ex_alloc(bytes) : NULL;
    for (size_t i = 0; i < n; i++)
        p->w[i] = scale * (2 * ex_uniform() - 1);
    memset(p->grad, 0, bytes);
    memset(p->m, 0, bytes);
    if (p->v)
        memset(p->v, 0, bytes);
}

void param_free(struct param *p)
{
    free(p->w);
    free(p->grad);
    free(p->m);
    free(p->v);
}

/* The optimizers call no BLAS, so nothing tells tprof what they compute: they say it through
 * the annotation API (no-ops without tprof), and the report gets their roofline: a few FLOPs per
 * parameter against many bytes, memory-bound. */
void sgd_update(struct param *p, float lr, float mu)
{
    for (size_t i = 0; i < p->n; i++) {
        p->m[i] = mu * p->m[i] + p->grad[i];
        p->w[i] -= lr * p->m[i];
    }
    tprof_add_flops(4 * (uint64_t)p->n);
    tprof_add_bytes(5 * sizeof(float) * (uint64_t)p->n); /* read w, m, grad; write w, m */
}

void adam_update(struct param *p, float lr, int t)
{
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
    /* the bias corrections of the moments, folded into the step size */
    float step = lr * sqrtf(1 - powf(b2, (float)t)) / (1 - powf(b1, (float)t));
    for (size_t i = 0; i < p->n; i++) {
        float g = p->grad[i];
        p->m[i] = b1 * p->m[i] + (1 - b1) * g;
        p->v[i] = b2 * p->v[i] + (1 - b2) * g * g;
        p->w[i] -= step * p->m[i] / (sqrtf(p->v[i]) + eps);
    }
    tprof_add_flops(12 * (uint64_t)p->n);
    tprof_add_bytes(7 * sizeof(float) * (uint64_t)p->n); /* read w, m, v, grad; write w, m, v */
}

void dense_init(struct dense *l, int in, int out, int adam)
{
    l->in = in;
    l->out = out;
    param_init(&l->w, (size_t)in * (size_t)out, sqrtf(6.0f / (float)in), adam);
    param_init(&l->b, (size_t)out, 0, adam);
}

void dense_free(struct dense *l)
{
    param_free(&l->w);
    param_free(&l->b);
}

void dense_forward(const struct dense *l, const float *x, float *y, int rows)
{
    for (int r = 0; r < rows; r++)
        memcpy(y + (size_t)r * l->out, l->b.w, sizeof(float) * (size_t)l->out);
    /* y (rows x out) += x (rows x in) W^T */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, l->out, l->in, 1.0f, x, l->in,
                l->w.w, l->in, 1.0f, y, l->out);
}

void dense_backward(struct dense *l, const float *x, const float *dy, float *dx, int rows)
{
    /* dW (out x in) = dy^T x */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, l->out, l->in, rows, 1.0f, dy, l->out, x,
                l->in, 0.0f, l->w.grad, l->in);
    for (int j = 0; j < l->out; j++) {
        float s = 0;
        for (int r = 0; r < rows; r++)
            s += dy[(size_t)r * l->out + j];
        l->b.grad[j] = s;
    }
    /* dx (rows x in) = dy W */
    if (dx)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, l->in, l->out, 1.0f, dy,
                    l->out, l->w.w, l->in, 0.0f, dx, l->in);
}

void relu_forward(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] > 0 ? x[i] : 0;
}

void relu_backward(const float *y, float *dy, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dy[i] = y[i] > 0 ? dy[i] : 0;
}

void softmax_forward(float *x, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        float *v = x + (size_t)r * cols, max = v[0], sum = 0;
        for (int c = 1; c < cols; c++)
            max = v[c] > max ? v[c] : max;
        for (int c = 0; c < cols; c++) {
            v[c] = expf(v[c] - max); /* minus the max: no overflow */
            sum += v[c];
        }
        for (int c = 0; c < cols; c++)
            v[c] /= sum;
    }
}

float softmax_xent_backward(const float *p, const int *label, float *dlogits, int rows, int cols)
{
    float loss = 0;
    for (int r = 0; r < rows; r++) {
        const float *pr = p + (size_t)r * cols;
        float *dr = dlogits + (size_t)r * cols;
        for (int c = 0; c < cols; c++)
            dr[c] = (pr[c] - (c == label[r] ? 1.0f : 0.0f)) / (float)rows;
        loss -= logf(pr[label[r]] + 1e-7f);
    }
    return loss / (float)rows;
}

void dataset_init(struct dataset *d, int classes, int dim, float signal)
{
    d->classes = classes;
    d->dim = dim;
    d->templates = ex_alloc(sizeof(float) * (size_t)classes * (size_t)dim);
    for (size_t i = 0; i < (size_t)classes * (size_t)dim; i++)
        d->templates[i] = signal * (2 * ex_uniform() - 1);
}

void dataset_free(struct dataset *d)
{
    free(d->templates);
}

void dataset_batch(const struct dataset *d, float *x, int *label, int rows)
{
    for (int r = 0; r < rows; r++) {
        int c = (int)(ex_uniform() * (float)d->classes);
        const float *t = d->templates + (size_t)c * d->dim;
        float *xr = x + (size_t)r * d->dim;
        for (int j = 0; j < d->dim; j++)
            xr[j] = t[j] + 2 * ex_uniform() - 1;
        label[r] = c;
    }
}

EX_NOINSTR int ex_option(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != 0)
        return 0;
    if (*i + 1 >= argc) {
        const char *prog = strrchr(argv[0], '/');
        fprintf(stderr, "%s: %s needs a value\n", prog ? prog + 1 : argv[0], name);
        exit(2);
    }
    *value = argv[++*i];
    return 1;
}

EX_NOINSTR int ex_int(const char *prog, const char *name, const char *value, int min, int max)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (end == value || *end || v < min || v > max) {
        fprintf(stderr, "%s: %s %s: expected an integer from %d to %d\n", prog, name, value, min,
                max);
        exit(2);
    }
    return (int)v;
}

EX_NOINSTR void ex_usage(const char *prog, const char *usage, const char *bad)
{
    fprintf(stderr, "%s: unknown argument %s; usage: %s\n", prog, bad, usage);
    exit(2);
}
