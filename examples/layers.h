/* A tiny layer library shared by the example models (mlp.c, cnn.c, transformer.c).
 *
 * The examples are built with -finstrument-functions, so tprof sees every function call. Which
 * calls it times as ops is decided by name: the functions below are called *_forward,
 * *_backward, *_update, softmax_*, relu_* and so match tprof's default TPROF_OPS; param_init,
 * dense_init and the helpers at the end of this file match nothing and cost next to nothing.
 *
 * Tensors are row-major float arrays; a batch of `rows` vectors is a rows x width matrix. */
#ifndef EXAMPLES_LAYERS_H
#define EXAMPLES_LAYERS_H

#include <stddef.h>

/* A trainable tensor: its values, its gradient and the optimizer's state. The whole struct is
 * allocated once, before the first step: the "persistent" part of the heap in tprof's report. */
struct param {
    size_t n;
    float *w;    /* values */
    float *grad; /* d loss / d w, written by the backward pass of each step */
    float *m;    /* SGD momentum, or Adam's first moment */
    float *v;    /* Adam's second moment (NULL for SGD) */
};

/* n values drawn uniformly from [-scale, scale] (zeros when scale is 0). adam: also allocate v. */
void param_init(struct param *p, size_t n, float scale, int adam);
void param_free(struct param *p);

/* SGD with momentum: m = mu m + grad, w -= lr m. */
void sgd_update(struct param *p, float lr, float mu);
/* Adam (beta1 0.9, beta2 0.999); t is the step number, from 1. */
void adam_update(struct param *p, float lr, int t);

/* A fully connected layer y = x W^T + b, W out x in, through cblas_sgemm. */
struct dense {
    int in, out;
    struct param w, b;
};

void dense_init(struct dense *l, int in, int out, int adam);
void dense_free(struct dense *l);
void dense_forward(const struct dense *l, const float *x, float *y, int rows);
/* Gradients of W and b from the layer's input x and the gradient dy of its output; dx (the
 * gradient of the input) too unless it is NULL: the first layer does not need it. */
void dense_backward(struct dense *l, const float *x, const float *dy, float *dx, int rows);

void relu_forward(float *x, size_t n);                       /* in place */
void relu_backward(const float *y, float *dy, size_t n);     /* y: the forward output */

/* Row by row, in place: logits -> probabilities. */
void softmax_forward(float *x, int rows, int cols);
/* The mean cross-entropy of probabilities p against labels, and its gradient with respect to the
 * logits ((p - onehot) / rows). Returns the loss. */
float softmax_xent_backward(const float *p, const int *label, float *dlogits, int rows, int cols);

/* Synthetic classification data: each class is a fixed random template, uniform in
 * [-signal, signal]; an example is its class's template plus noise uniform in [-1, 1].
 * Learnable, deterministic, nothing to download. */
struct dataset {
    int classes, dim;
    float *templates; /* classes x dim */
};

void dataset_init(struct dataset *d, int classes, int dim, float signal);
void dataset_free(struct dataset *d);
void dataset_batch(const struct dataset *d, float *x, int *label, int rows);

/* ---- Helpers: not ops, and kept out of the instrumentation, because a hook in a function called
 * once per element would cost more than the function (the hook would be timed along with the work). */
#define EX_HELPER static inline __attribute__((no_instrument_function, unused))

/* One random generator with a fixed seed: every run computes the same numbers. */
extern unsigned ex_rng_state;

/* Uniform in [0, 1). */
EX_HELPER float ex_uniform(void)
{
    ex_rng_state = ex_rng_state * 1664525u + 1013904223u;
    return (float)(ex_rng_state >> 8) / 16777216.0f;
}

/* malloc that ends the program with a message when memory runs out. */
void *ex_alloc(size_t bytes);

/* Command line: "--name value" or "--name=value". Returns 1 and sets *value when argv[*i] is that
 * option (advancing *i past a separate value); exits with a message when the value is missing. */
int ex_option(int argc, char **argv, int *i, const char *name, const char **value);
/* An integer option value in [min, max], or a one-line error and exit status 2. */
int ex_int(const char *prog, const char *name, const char *value, int min, int max);
/* One-line usage error, exit status 2. */
void ex_usage(const char *prog, const char *usage, const char *bad);

#endif
