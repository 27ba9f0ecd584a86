/* mlp: a multi-layer perceptron trained with SGD and momentum on synthetic data.
 *
 *   784 -> dense 1024 -> relu -> dense 1024 -> relu -> dense 10 -> softmax, cross-entropy loss;
 *   batches of 64; the matrix products are cblas_sgemm calls (8 per step).
 *
 * Profile it with   tprof run -- examples/mlp   (or TPROF_STEP=train_step for per-step figures).
 * Every layer function is an op; cblas_sgemm dominates. The parameters (with their gradients and
 * momenta) are allocated once, before the first step, and are the persistent heap; activations
 * are allocated and freed in every step, the transient heap.
 *
 *   mlp [--steps N]    N steps (default 200); the loss is printed every 50 steps and at the end */
#include <stdio.h>
#include <stdlib.h>

#include "layers.h"

enum { BATCH = 64, IN = 784, HIDDEN = 1024, CLASSES = 10 };

struct mlp {
    struct dense l1, l2, l3;
};

static float train_step(struct mlp *net, const float *x, const int *label)
{
    float *h1 = ex_alloc(sizeof(float) * BATCH * HIDDEN);
    float *h2 = ex_alloc(sizeof(float) * BATCH * HIDDEN);
    float *logits = ex_alloc(sizeof(float) * BATCH * CLASSES);
    float *dlogits = ex_alloc(sizeof(float) * BATCH * CLASSES);
    float *dh2 = ex_alloc(sizeof(float) * BATCH * HIDDEN);
    float *dh1 = ex_alloc(sizeof(float) * BATCH * HIDDEN);

    dense_forward(&net->l1, x, h1, BATCH);
    relu_forward(h1, (size_t)BATCH * HIDDEN);
    dense_forward(&net->l2, h1, h2, BATCH);
    relu_forward(h2, (size_t)BATCH * HIDDEN);
    dense_forward(&net->l3, h2, logits, BATCH);
    softmax_forward(logits, BATCH, CLASSES);
    float loss = softmax_xent_backward(logits, label, dlogits, BATCH, CLASSES);

    dense_backward(&net->l3, h2, dlogits, dh2, BATCH);
    relu_backward(h2, dh2, (size_t)BATCH * HIDDEN);
    dense_backward(&net->l2, h1, dh2, dh1, BATCH);
    relu_backward(h1, dh1, (size_t)BATCH * HIDDEN);
    dense_backward(&net->l1, x, dh1, NULL, BATCH);

    struct dense *layers[] = {&net->l1, &net->l2, &net->l3};
    for (int i = 0; i < 3; i++) {
        sgd_update(&layers[i]->w, 0.01f, 0.9f);
        sgd_update(&layers[i]->b, 0.01f, 0.9f);
    }

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
    const char *usage = "mlp [--steps N]";
    int steps = 200;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (ex_option(argc, argv, &i, "--steps", &v))
            steps = ex_int("mlp", "--steps", v, 1, 1000000);
        else
            ex_usage("mlp", usage, argv[i]);
    }

    struct mlp net;
    dense_init(&net.l1, IN, HIDDEN, 0);
    dense_init(&net.l2, HIDDEN, HIDDEN, 0);
    dense_init(&net.l3, HIDDEN, CLASSES, 0);
    struct dataset data;
    dataset_init(&data, CLASSES, IN, 0.1f);
    float *x = ex_alloc(sizeof(float) * BATCH * IN);
    int label[BATCH];

    for (int s = 1; s <= steps; s++) {
        dataset_batch(&data, x, label, BATCH);
        float loss = train_step(&net, x, label);
        if (s % 50 == 0 || s == steps)
            printf("step %d loss %.3f\n", s, loss);
    }

    free(x);
    dataset_free(&data);
    dense_free(&net.l1);
    dense_free(&net.l2);
    dense_free(&net.l3);
    return 0;
}
