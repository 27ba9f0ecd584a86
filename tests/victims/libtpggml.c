/* The stand-in ggml CPU backend of tpggml.h: each node function computes its rows share
 * (ith of nth) in plain float, as ggml's do. */
#include <math.h>

#include "tpggml.h"

static const char *const names[OP_COUNT] = {"NONE", "ADD", "MUL_MAT", "NORM", "SOFT_MAX", "UNARY"};

const char *ggml_op_name(int op)
{
    return op >= 0 && op < OP_COUNT ? names[op] : "?";
}

int64_t ggml_nelements(const struct tensor *t)
{
    return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
}

size_t ggml_nbytes(const struct tensor *t)
{
    return (size_t)ggml_nelements(t) * sizeof(float);
}

static float *at(const struct tensor *t, int64_t col, int64_t row)
{
    return (float *)t->data + row * t->ne[0] + col;
}

void ggml_compute_forward_mul_mat(const struct compute_params *p, struct tensor *dst)
{
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
    for (int64_t r = p->ith; r < dst->ne[1]; r += p->nth)
        for (int64_t c = 0; c < dst->ne[0]; c++)
            *at(dst, c, r) = *at(dst->src[0], c, r) + *at(dst->src[1], c, r);
}

void ggml_compute_forward_norm(const struct compute_params *p, struct tensor *dst)
{
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
    const struct tensor *x = dst->src[0];
    for (int64_t r = p->ith; r < dst->ne[1]; r += p->nth)
        for (int64_t c = 0; c < dst->ne[0]; c++)
            *at(dst, c, r) = *at(x, c, r) > 0 ? *at(x, c, r) : 0;
}
