/* mlp: a small multi-layer perceptron trained with SGD on synthetic data, built to be profiled.
 *
 * Layers: 784 -> 1024 -> 1024 -> 10, ReLU, softmax cross-entropy, batch 64. The matrix products
 * go through CBLAS (cblas_sgemm); the layer functions are compiled with -finstrument-functions,
 * so tprof times them as ops by name (dense_forward, relu_forward, softmax_forward, ...).
 * Parameters are allocated once (persistent heap); activations and gradients are allocated and
 * freed every step (transient heap).
 *
 *   ./mlp [--steps N]            default 200 steps; prints the loss every 50 steps
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 64
#define IN 784
#define HIDDEN 1024
#define OUT 10

struct dense {
    int in, out;
    float *w, *b;   /* out x in, out */
    float *dw, *db; /* gradients */
};

static unsigned rng_state = 12345;

/* Tiny helpers are not ops: keep them out of the instrumentation (PITFALLS, real programs #7). */
__attribute__((no_instrument_function)) static float uniform(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 16777216.0f;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "mlp: out of memory\n");
        exit(1);
    }
    return p;
}

static void dense_init(struct dense *l, int in, int out)
{
    l->in = in;
    l->out = out;
    l->w = xmalloc(sizeof(float) * (size_t)in * (size_t)out);
    l->b = calloc((size_t)out, sizeof(float));
    l->dw = xmalloc(sizeof(float) * (size_t)in * (size_t)out);
    l->db = xmalloc(sizeof(float) * (size_t)out);
    float scale = sqrtf(2.0f / (float)in);
    for (size_t i = 0; i < (size_t)in * (size_t)out; i++)
        l->w[i] = (uniform() * 2 - 1) * scale;
}

/* y = x W^T + b: (BATCH x in) (in x out) */
static void dense_forward(const struct dense *l, const float *x, float *y)
{
    for (int i = 0; i < BATCH; i++)
        memcpy(y + (size_t)i * l->out, l->b, sizeof(float) * (size_t)l->out);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, BATCH, l->out, l->in, 1.0f, x, l->in,
                l->w, l->in, 1.0f, y, l->out);
}

/* dW = dy^T x, db = sum dy, dx = dy W */
static void dense_backward(struct dense *l, const float *x, const float *dy, float *dx)
{
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, l->out, l->in, BATCH, 1.0f, dy, l->out,
                x, l->in, 0.0f, l->dw, l->in);
    for (int j = 0; j < l->out; j++) {
        float s = 0;
        for (int i = 0; i < BATCH; i++)
            s += dy[(size_t)i * l->out + j];
        l->db[j] = s;
    }
    if (dx)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, BATCH, l->in, l->out, 1.0f, dy,
                    l->out, l->w, l->in, 0.0f, dx, l->in);
}

static void relu_forward(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = x[i] > 0 ? x[i] : 0;
}

static void relu_backward(const float *y, float *dy, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dy[i] = y[i] > 0 ? dy[i] : 0;
}

/* In place: logits -> probabilities, row by row. */
static void softmax_forward(float *x, int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        float *v = x + (size_t)r * cols, m = v[0], s = 0;
        for (int c = 1; c < cols; c++)
            m = v[c] > m ? v[c] : m;
        for (int c = 0; c < cols; c++)
            s += v[c] = expf(v[c] - m);
        for (int c = 0; c < cols; c++)
            v[c] /= s;
    }
}

/* Loss, and the gradient of the mean cross-entropy with respect to the logits. */
static float softmax_xent_backward(const float *p, const int *label, float *dlogits)
{
    float loss = 0;
    for (int i = 0; i < BATCH; i++) {
        for (int c = 0; c < OUT; c++) {
            float t = c == label[i] ? 1.0f : 0.0f;
            dlogits[i * OUT + c] = (p[i * OUT + c] - t) / BATCH;
        }
        loss -= logf(p[i * OUT + label[i]] + 1e-7f);
    }
    return loss / BATCH;
}

static void sgd_update(struct dense *l, float lr)
{
    size_t n = (size_t)l->in * (size_t)l->out;
    cblas_saxpy((int)n, -lr, l->dw, 1, l->w, 1);
    cblas_saxpy(l->out, -lr, l->db, 1, l->b, 1);
}

/* Synthetic data: a fixed random "teacher" direction decides the class of random inputs. */
static void make_batch(float *x, int *label, const float *teacher)
{
    for (int i = 0; i < BATCH; i++) {
        float best = -1e30f;
        for (int j = 0; j < IN; j++)
            x[(size_t)i * IN + j] = uniform();
        for (int c = 0; c < OUT; c++) {
            float s = 0;
            for (int j = 0; j < IN; j += 8)
                s += x[(size_t)i * IN + j] * teacher[c * IN + j];
            if (s > best) {
                best = s;
                label[i] = c;
            }
        }
    }
}

static float train_step(struct dense *l1, struct dense *l2, struct dense *l3, const float *x,
                        const int *label)
{
    /* Activations and gradients live for one step. */
    float *h1 = xmalloc(sizeof(float) * BATCH * HIDDEN);
    float *h2 = xmalloc(sizeof(float) * BATCH * HIDDEN);
    float *logits = xmalloc(sizeof(float) * BATCH * OUT);
    float *dlogits = xmalloc(sizeof(float) * BATCH * OUT);
    float *dh2 = xmalloc(sizeof(float) * BATCH * HIDDEN);
    float *dh1 = xmalloc(sizeof(float) * BATCH * HIDDEN);

    dense_forward(l1, x, h1);
    relu_forward(h1, (size_t)BATCH * HIDDEN);
    dense_forward(l2, h1, h2);
    relu_forward(h2, (size_t)BATCH * HIDDEN);
    dense_forward(l3, h2, logits);
    softmax_forward(logits, BATCH, OUT);
    float loss = softmax_xent_backward(logits, label, dlogits);

    dense_backward(l3, h2, dlogits, dh2);
    relu_backward(h2, dh2, (size_t)BATCH * HIDDEN);
    dense_backward(l2, h1, dh2, dh1);
    relu_backward(h1, dh1, (size_t)BATCH * HIDDEN);
    dense_backward(l1, x, dh1, NULL);

    sgd_update(l1, 0.05f);
    sgd_update(l2, 0.05f);
    sgd_update(l3, 0.05f);

    free(h1);
    free(h2);
    free(logits);
    free(dlogits);
    free(dh2);
    free(dh1);
    return loss;
}

int main(int argc, char **argv)
{
    int steps = 200;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc)
            steps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: mlp [--steps N]\n");
            return 2;
        }
    }
    if (steps < 1) {
        fprintf(stderr, "mlp: --steps must be at least 1\n");
        return 2;
    }
    struct dense l1, l2, l3;
    dense_init(&l1, IN, HIDDEN);
    dense_init(&l2, HIDDEN, HIDDEN);
    dense_init(&l3, HIDDEN, OUT);
    float *teacher = xmalloc(sizeof(float) * OUT * IN);
    for (int i = 0; i < OUT * IN; i++)
        teacher[i] = uniform() * 2 - 1;
    float *x = xmalloc(sizeof(float) * BATCH * IN);
    int label[BATCH];

    for (int s = 1; s <= steps; s++) {
        make_batch(x, label, teacher);
        float loss = train_step(&l1, &l2, &l3, x, label);
        if (s % 50 == 0 || s == steps)
            printf("step %d loss %.2f\n", s, loss);
    }
    free(x);
    free(teacher);
    struct dense *ls[] = {&l1, &l2, &l3};
    for (int i = 0; i < 3; i++) {
        free(ls[i]->w);
        free(ls[i]->b);
        free(ls[i]->dw);
        free(ls[i]->db);
    }
    return 0;
}
