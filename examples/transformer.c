/* transformer: one transformer block (pre-layer-norm, two heads) trained with Adam.
 *
 *   x -> layernorm -> dense to Q, K, V -> attention -> dense -> + x  = r
 *   r -> layernorm -> dense 4x -> gelu -> dense -> + r               = out
 *
 * Attention is written out: for every sequence and head, the n x n scores Q K^T / sqrt(d) (one
 * cblas_sgemm), a softmax over each of their n rows, then the weighted sum of V (another sgemm).
 * Its time and its memory (the n x n probabilities are kept for the backward pass) grow as n^2,
 * the rest of the block as n: at --seq 2n attention takes about 4x as long as at --seq n
 * (examples/questions.sh measures it), and at the default length it dominates.
 *
 * The task is synthetic: every sequence is a random offset plus noise per position, and the
 * target at every position is the sequence's mean, which only attention can gather. The loss is
 * the mean squared error.
 *
 *   transformer [--steps N] [--seq N]   N steps (default 80) of 2 sequences of length N (default
 *                                       512); the loss is printed every 20 steps and at the end */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"

enum { BATCH = 2, DIM = 64, HEADS = 2, HEAD_DIM = DIM / HEADS, HIDDEN = 4 * DIM };

struct block {
    struct param ln1_g, ln1_b, ln2_g, ln2_b; /* layer norm gains and biases */
    struct dense qkv, proj, fc1, fc2;        /* DIM -> 3 DIM, DIM -> DIM, DIM -> HIDDEN -> DIM */
};

/* Normalizes each row of x (rows x DIM) to mean 0 and variance 1, then scales by g and shifts by
 * b; the row's mean and 1/std are kept for the backward pass. */
static void layernorm_forward(const float *x, float *y, float *mean, float *rstd, const float *g,
                              const float *b, int rows)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * DIM;
        float *yr = y + (size_t)r * DIM, m = 0, var = 0;
        for (int i = 0; i < DIM; i++)
            m += xr[i];
        m /= DIM;
        for (int i = 0; i < DIM; i++)
            var += (xr[i] - m) * (xr[i] - m);
        float s = 1.0f / sqrtf(var / DIM + 1e-5f);
        for (int i = 0; i < DIM; i++)
            yr[i] = (xr[i] - m) * s * g[i] + b[i];
        mean[r] = m;
        rstd[r] = s;
    }
}

/* Gradients of g and b, and dx += the gradient of x (dx is the residual stream's gradient, which
 * already holds what flowed around the block; NULL when nobody needs it). */
static void layernorm_backward(const float *x, const float *mean, const float *rstd,
                               const float *dy, float *dx, struct param *g, struct param *b,
                               int rows)
{
    memset(g->grad, 0, sizeof(float) * DIM);
    memset(b->grad, 0, sizeof(float) * DIM);
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * DIM, *dyr = dy + (size_t)r * DIM;
        float dxhat_mean = 0, dxhat_xhat_mean = 0;
        for (int i = 0; i < DIM; i++) {
            float xhat = (xr[i] - mean[r]) * rstd[r], dxhat = dyr[i] * g->w[i];
            g->grad[i] += dyr[i] * xhat;
            b->grad[i] += dyr[i];
            dxhat_mean += dxhat / DIM;
            dxhat_xhat_mean += dxhat * xhat / DIM;
        }
        if (!dx)
            continue;
        for (int i = 0; i < DIM; i++) {
            float xhat = (xr[i] - mean[r]) * rstd[r], dxhat = dyr[i] * g->w[i];
            dx[(size_t)r * DIM + i] += rstd[r] * (dxhat - dxhat_mean - xhat * dxhat_xhat_mean);
        }
    }
}

/* tanh through expf, which is several times faster than glibc's tanhf. */
EX_HELPER float fast_tanh(float u)
{
    return 2 / (1 + expf(-2 * u)) - 1;
}

/* The tanh approximation of GELU, as in GPT-2. */
static void gelu_forward(const float *x, float *y, size_t n)
{
    const float c = 0.7978845608f; /* sqrt(2 / pi) */
    for (size_t i = 0; i < n; i++)
        y[i] = 0.5f * x[i] * (1 + fast_tanh(c * (x[i] + 0.044715f * x[i] * x[i] * x[i])));
}

/* dx = dy gelu'(x), in place in dy. */
static void gelu_backward(const float *x, float *dy, size_t n)
{
    const float c = 0.7978845608f;
    for (size_t i = 0; i < n; i++) {
        float u = c * (x[i] + 0.044715f * x[i] * x[i] * x[i]), t = fast_tanh(u);
        float du = c * (1 + 3 * 0.044715f * x[i] * x[i]);
        dy[i] *= 0.5f * (1 + t) + 0.5f * x[i] * (1 - t * t) * du;
    }
}

/* Row by row, in place: from the probabilities p and the gradient dp of each row, the gradient
 * of the scores, p (dp - sum(p dp)). */
static void softmax_backward(const float *p, float *dp, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *pr = p + (size_t)r * cols;
        float *dr = dp + (size_t)r * cols, dot = 0;
        for (int c = 0; c < cols; c++)
            dot += pr[c] * dr[c];
        for (int c = 0; c < cols; c++)
            dr[c] = pr[c] * (dr[c] - dot);
    }
}

/* qkv: (BATCH n) x 3 DIM, the queries, keys and values of every position side by side; head h
 * reads columns h HEAD_DIM .. (h + 1) HEAD_DIM - 1 of each. att: (BATCH n) x DIM, the heads'
 * outputs side by side. p: BATCH x HEADS x n x n, the attention probabilities, kept. */
static void attention_forward(const float *qkv, float *p, float *att, int n)
{
    const float scale = 1.0f / sqrtf((float)HEAD_DIM);
    for (int b = 0; b < BATCH; b++)
        for (int h = 0; h < HEADS; h++) {
            const float *q = qkv + (size_t)b * n * 3 * DIM + h * HEAD_DIM;
            const float *k = q + DIM, *v = q + 2 * DIM;
            float *pbh = p + ((size_t)b * HEADS + h) * n * n;
            float *o = att + (size_t)b * n * DIM + h * HEAD_DIM;
            /* scores (n x n) = q k^T / sqrt(d), then each row -> probabilities */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, HEAD_DIM, scale, q, 3 * DIM,
                        k, 3 * DIM, 0.0f, pbh, n);
            softmax_forward(pbh, n, n);
            /* o (n x d) = p v */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, HEAD_DIM, n, 1.0f, pbh, n, v,
                        3 * DIM, 0.0f, o, DIM);
        }
}

/* From datt, the gradient of attention's output: dqkv, laid out as qkv. */
static void attention_backward(const float *qkv, const float *p, const float *datt, float *dqkv,
                               int n)
{
    const float scale = 1.0f / sqrtf((float)HEAD_DIM);
    float *dp = ex_alloc(sizeof(float) * (size_t)n * n); /* one head's n x n at a time */
    for (int b = 0; b < BATCH; b++)
        for (int h = 0; h < HEADS; h++) {
            size_t off = (size_t)b * n * 3 * DIM + h * HEAD_DIM;
            const float *q = qkv + off, *k = q + DIM, *v = q + 2 * DIM;
            float *dq = dqkv + off, *dk = dq + DIM, *dv = dq + 2 * DIM;
            const float *pbh = p + ((size_t)b * HEADS + h) * n * n;
            const float *dout = datt + (size_t)b * n * DIM + h * HEAD_DIM;
            /* dv = p^T dout, dp = dout v^T */
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, HEAD_DIM, n, 1.0f, pbh, n,
                        dout, DIM, 0.0f, dv, 3 * DIM);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, HEAD_DIM, 1.0f, dout, DIM, v,
                        3 * DIM, 0.0f, dp, n);
            softmax_backward(pbh, dp, n, n); /* dp is now the gradient of the scores */
            /* dq = dscores k / sqrt(d), dk = dscores^T q / sqrt(d) */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, HEAD_DIM, n, scale, dp, n, k,
                        3 * DIM, 0.0f, dq, 3 * DIM);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, HEAD_DIM, n, scale, dp, n, q,
                        3 * DIM, 0.0f, dk, 3 * DIM);
        }
    free(dp);
}

/* Mean squared error of out against target, and its gradient. */
static float mse_loss_backward(const float *out, const float *target, float *dout, size_t n)
{
    double loss = 0;
    for (size_t i = 0; i < n; i++) {
        float e = out[i] - target[i];
        loss += (double)e * e;
        dout[i] = 2 * e / (float)n;
    }
    return (float)(loss / (double)n);
}

static float train_step(struct block *blk, const float *x, const float *target, int n, int t)
{
    const size_t rows = (size_t)BATCH * n, nd = rows * DIM, nh = rows * HIDDEN;
    float *h1 = ex_alloc(sizeof(float) * nd), *h2 = ex_alloc(sizeof(float) * nd);
    float *stats = ex_alloc(sizeof(float) * 4 * rows); /* mean and 1/std of both layer norms */
    float *mean1 = stats, *rstd1 = stats + rows;
    float *mean2 = stats + 2 * rows, *rstd2 = stats + 3 * rows;
    float *qkv = ex_alloc(sizeof(float) * 3 * nd);
    float *p = ex_alloc(sizeof(float) * BATCH * HEADS * (size_t)n * n);
    float *att = ex_alloc(sizeof(float) * nd), *r = ex_alloc(sizeof(float) * nd);
    float *f1 = ex_alloc(sizeof(float) * nh), *g1 = ex_alloc(sizeof(float) * nh);
    float *out = ex_alloc(sizeof(float) * nd);

    layernorm_forward(x, h1, mean1, rstd1, blk->ln1_g.w, blk->ln1_b.w, (int)rows);
    dense_forward(&blk->qkv, h1, qkv, (int)rows);
    attention_forward(qkv, p, att, n);
    dense_forward(&blk->proj, att, r, (int)rows);
    for (size_t i = 0; i < nd; i++)
        r[i] += x[i];
    layernorm_forward(r, h2, mean2, rstd2, blk->ln2_g.w, blk->ln2_b.w, (int)rows);
    dense_forward(&blk->fc1, h2, f1, (int)rows);
    gelu_forward(f1, g1, nh);
    dense_forward(&blk->fc2, g1, out, (int)rows);
    for (size_t i = 0; i < nd; i++)
        out[i] += r[i];

    /* Backward. The gradient of r starts as the gradient that flows around the MLP. */
    float *dout = ex_alloc(sizeof(float) * nd), *dr = ex_alloc(sizeof(float) * nd);
    float *dg1 = ex_alloc(sizeof(float) * nh), *dh = ex_alloc(sizeof(float) * nd);
    float *datt = ex_alloc(sizeof(float) * nd), *dqkv = ex_alloc(sizeof(float) * 3 * nd);
    float loss = mse_loss_backward(out, target, dout, nd);
    memcpy(dr, dout, sizeof(float) * nd);
    dense_backward(&blk->fc2, g1, dout, dg1, (int)rows);
    gelu_backward(f1, dg1, nh);
    dense_backward(&blk->fc1, h2, dg1, dh, (int)rows);
    layernorm_backward(r, mean2, rstd2, dh, dr, &blk->ln2_g, &blk->ln2_b, (int)rows);
    dense_backward(&blk->proj, att, dr, datt, (int)rows);
    attention_backward(qkv, p, datt, dqkv, n);
    dense_backward(&blk->qkv, h1, dqkv, dh, (int)rows);
    layernorm_backward(x, mean1, rstd1, dh, NULL, &blk->ln1_g, &blk->ln1_b, (int)rows);

    struct param *params[] = {&blk->ln1_g,  &blk->ln1_b,  &blk->qkv.w, &blk->qkv.b,
                              &blk->proj.w, &blk->proj.b, &blk->ln2_g, &blk->ln2_b,
                              &blk->fc1.w,  &blk->fc1.b,  &blk->fc2.w, &blk->fc2.b};
    for (int i = 0; i < 12; i++)
        adam_update(params[i], 1e-3f, t);

    float *bufs[] = {h1, h2, stats, qkv, p, att, r, f1, g1, out, dout, dr, dg1, dh, datt, dqkv};
    for (int i = 0; i < 16; i++)
        free(bufs[i]);
    return loss;
}

/* Each sequence: a random offset shared by its positions plus noise per position; the target at
 * every position is the sequence's mean. */
static void make_batch(float *x, float *target, int n)
{
    for (int b = 0; b < BATCH; b++) {
        float offset[DIM], mean[DIM] = {0};
        float *xb = x + (size_t)b * n * DIM, *tb = target + (size_t)b * n * DIM;
        for (int i = 0; i < DIM; i++)
            offset[i] = 2 * ex_uniform() - 1;
        for (int t = 0; t < n; t++)
            for (int i = 0; i < DIM; i++) {
                xb[(size_t)t * DIM + i] = offset[i] + 2 * ex_uniform() - 1;
                mean[i] += xb[(size_t)t * DIM + i] / (float)n;
            }
        for (int t = 0; t < n; t++)
            memcpy(tb + (size_t)t * DIM, mean, sizeof mean);
    }
}

int main(int argc, char **argv)
{
    const char *usage = "transformer [--steps N] [--seq N]";
    int steps = 80, n = 512;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (ex_option(argc, argv, &i, "--steps", &v))
            steps = ex_int("transformer", "--steps", v, 1, 1000000);
        else if (ex_option(argc, argv, &i, "--seq", &v))
            n = ex_int("transformer", "--seq", v, 1, 8192);
        else
            ex_usage("transformer", usage, argv[i]);
    }

    struct block blk;
    struct param *ln[] = {&blk.ln1_g, &blk.ln1_b, &blk.ln2_g, &blk.ln2_b};
    for (int i = 0; i < 4; i++)
        param_init(ln[i], DIM, 0, 1);
    for (int i = 0; i < DIM; i++)
        blk.ln1_g.w[i] = blk.ln2_g.w[i] = 1;
    dense_init(&blk.qkv, DIM, 3 * DIM, 1);
    dense_init(&blk.proj, DIM, DIM, 1);
    dense_init(&blk.fc1, DIM, HIDDEN, 1);
    dense_init(&blk.fc2, HIDDEN, DIM, 1);
    float *x = ex_alloc(sizeof(float) * BATCH * (size_t)n * DIM);
    float *target = ex_alloc(sizeof(float) * BATCH * (size_t)n * DIM);

    for (int s = 1; s <= steps; s++) {
        make_batch(x, target, n);
        float loss = train_step(&blk, x, target, n, s);
        if (s % 20 == 0 || s == steps)
            printf("step %d loss %.3f\n", s, loss);
    }

    free(x);
    free(target);
    for (int i = 0; i < 4; i++)
        param_free(ln[i]);
    dense_free(&blk.qkv);
    dense_free(&blk.proj);
    dense_free(&blk.fc1);
    dense_free(&blk.fc2);
    return 0;
}
