/* A graph of five nodes on the stand-in ggml CPU backend (tpggml.h), evaluated EVALS times by two
 * "threads" (each node computed with ith 0 and then ith 1, as ggml's threads do), the way ggml's
 * graph compute calls the node functions: through the library's PLT (tests/ggml_nodes.sh).
 * x: 64 x 8, w: 64 x 32, b: 32 x 8. Prints a checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpggml.h"

static struct tensor *tensor(int op, int64_t ne0, int64_t ne1, struct tensor *a, struct tensor *b)
{
    struct tensor *t = calloc(1, sizeof *t);
    t->ne[0] = ne0;
    t->ne[1] = ne1;
    t->ne[2] = t->ne[3] = 1;
    t->nb[0] = sizeof(float);
    t->op = op;
    t->src[0] = a;
    t->src[1] = b;
    t->data = calloc((size_t)(ne0 * ne1), sizeof(float));
    for (int64_t i = 0; i < ne0 * ne1; i++)
        ((float *)t->data)[i] = (float)(i % 7) * 0.125f;
    return t;
}

int main(int argc, char **argv)
{
    int evals = argc > 1 ? atoi(argv[1]) : 10;
    struct tensor *x = tensor(OP_NONE, 64, 8, NULL, NULL), *w = tensor(OP_NONE, 64, 32, NULL, NULL),
                  *b = tensor(OP_NONE, 32, 8, NULL, NULL);
    struct tensor *h = tensor(OP_NORM, 64, 8, x, NULL);
    struct tensor *y = tensor(OP_MUL_MAT, 32, 8, w, h);
    struct tensor *z = tensor(OP_ADD, 32, 8, y, b);
    struct tensor *s = tensor(OP_SOFT_MAX, 32, 8, z, NULL);
    struct tensor *g = tensor(OP_UNARY, 32, 8, s, NULL);
    for (int e = 0; e < evals; e++)
        for (int ith = 0; ith < 2; ith++) {
            struct compute_params p = {ith, 2, 0, NULL, NULL, 0};
            ggml_compute_forward_norm(&p, h);
            ggml_compute_forward_mul_mat(&p, y);
            ggml_compute_forward_add(&p, z);
            ggml_compute_forward_soft_max(&p, s);
            ggml_compute_forward_unary(&p, g);
        }
    double sum = 0;
    for (int i = 0; i < 32 * 8; i++)
        sum += ((float *)g->data)[i];
    printf("%.3f\n", sum);
    return 0;
}
