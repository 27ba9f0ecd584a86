/* An sgemm-bound MLP training loop (CBLAS; OpenBLAS in the benchmark), for measuring what tprof
 * costs a BLAS-heavy program: a 3-layer perceptron, forward and backward passes with
 * cblas_sgemm, ReLU, softmax cross-entropy and SGD; activations and gradients allocated per step
 * as a C framework would. Prints the time of the training loop (so start-up and tprof's exit
 * report are not in it) and a checksum.
 *
 * Usage: mlp_blas [STEPS [BATCH [HIDDEN [ALLOC]]]]   (defaults 40 128 512 1)
 * ALLOC 0 allocates the activations and gradients once, before the loop, so that a run measures
 * the BLAS calls alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROW = 101, NT = 111, TR = 112 };
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);

struct layer {
    int in, out;
    float *w, *dw; /* in x out */
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "mlp_blas: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static unsigned rng = 12345;
static float frand(void)
{
    rng = rng * 1103515245u + 12345u;
    return (float)((rng >> 8) & 0xffff) / 65536.0f - 0.5f;
}

static void layer_init(struct layer *l, int in, int out)
{
    l->in = in, l->out = out;
    l->w = xmalloc(sizeof(float) * (size_t)in * (size_t)out);
    l->dw = xmalloc(sizeof(float) * (size_t)in * (size_t)out);
    float scale = sqrtf(2.0f / (float)in);
    for (long i = 0; i < (long)in * out; i++)
        l->w[i] = frand() * scale;
}

static int parse(const char *s, int lo, int hi, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == 0 || *end != 0 || v < lo || v > hi) {
        fprintf(stderr, "mlp_blas: %s=%s: expected a whole number from %d to %d\n", what, s, lo, hi);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? parse(argv[1], 1, 100000, "STEPS") : 40;
    int batch = argc > 2 ? parse(argv[2], 1, 8192, "BATCH") : 128;
    int hidden = argc > 3 ? parse(argv[3], 8, 8192, "HIDDEN") : 512;
    int per_step = argc > 4 ? parse(argv[4], 0, 1, "ALLOC") : 1;
    enum { NL = 3, IN = 784, CLASSES = 10 };
    int dims[NL + 1] = {IN, hidden, hidden, CLASSES};
    struct layer L[NL];
    for (int i = 0; i < NL; i++)
        layer_init(&L[i], dims[i], dims[i + 1]);
    float *x = xmalloc(sizeof(float) * (size_t)batch * IN);
    int *label = xmalloc(sizeof(int) * (size_t)batch);
    for (long i = 0; i < (long)batch * IN; i++)
        x[i] = frand();
    for (int i = 0; i < batch; i++)
        label[i] = i % CLASSES;

    /* activations act[1..NL] and gradients grad[1..NL] */
    float *act[NL + 1], *grad[NL + 1], *keep_act[NL + 1] = {0}, *keep_grad[NL + 1] = {0};
    act[0] = x;
    if (!per_step)
        for (int i = 1; i <= NL; i++) {
            keep_act[i] = xmalloc(sizeof(float) * (size_t)batch * (size_t)dims[i]);
            keep_grad[i] = xmalloc(sizeof(float) * (size_t)batch * (size_t)dims[i]);
        }
    double loss = 0, t0 = now();
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < NL; i++) { /* forward: act[i+1] = relu(act[i] W) */
            act[i + 1] = per_step ? xmalloc(sizeof(float) * (size_t)batch * (size_t)dims[i + 1])
                                  : keep_act[i + 1];
            cblas_sgemm(ROW, NT, NT, batch, dims[i + 1], dims[i], 1, act[i], dims[i], L[i].w,
                        dims[i + 1], 0, act[i + 1], dims[i + 1]);
            if (i < NL - 1)
                for (long j = 0; j < (long)batch * dims[i + 1]; j++)
                    act[i + 1][j] = act[i + 1][j] > 0 ? act[i + 1][j] : 0;
        }
        /* softmax cross-entropy: grad = softmax - onehot */
        grad[NL] = per_step ? xmalloc(sizeof(float) * (size_t)batch * CLASSES) : keep_grad[NL];
        loss = 0;
        for (int b = 0; b < batch; b++) {
            float *z = act[NL] + (long)b * CLASSES, *g = grad[NL] + (long)b * CLASSES, mx = z[0];
            for (int c = 1; c < CLASSES; c++)
                mx = z[c] > mx ? z[c] : mx;
            double sum = 0;
            for (int c = 0; c < CLASSES; c++)
                sum += exp(z[c] - mx);
            for (int c = 0; c < CLASSES; c++)
                g[c] = (float)(exp(z[c] - mx) / sum) / (float)batch - (c == label[b]) / (float)batch;
            loss -= (z[label[b]] - mx) - log(sum);
        }
        for (int i = NL - 1; i >= 0; i--) { /* backward */
            cblas_sgemm(ROW, TR, NT, dims[i], dims[i + 1], batch, 1, act[i], dims[i], grad[i + 1],
                        dims[i + 1], 0, L[i].dw, dims[i + 1]);
            if (i > 0) {
                grad[i] = per_step ? xmalloc(sizeof(float) * (size_t)batch * (size_t)dims[i])
                                   : keep_grad[i];
                cblas_sgemm(ROW, NT, TR, batch, dims[i], dims[i + 1], 1, grad[i + 1], dims[i + 1],
                            L[i].w, dims[i + 1], 0, grad[i], dims[i]);
                for (long j = 0; j < (long)batch * dims[i]; j++)
                    if (act[i][j] <= 0)
                        grad[i][j] = 0;
            }
            if (per_step)
                free(grad[i + 1]);
        }
        for (int i = 0; i < NL; i++) {
            for (long j = 0; j < (long)dims[i] * dims[i + 1]; j++)
                L[i].w[j] -= 0.05f * L[i].dw[j];
            if (per_step)
                free(act[i + 1]);
        }
    }
    double t = now() - t0;
    double flops = 0;
    for (int i = 0; i < NL; i++)
        flops += 2.0 * batch * dims[i] * dims[i + 1] * (i > 0 ? 3 : 2);
    printf("loss %.4f\n", loss / batch);
    printf("%d steps in %.6f s: %.2f GFLOP/s\n", steps, t, flops * steps / t * 1e-9);
    return 0;
}
