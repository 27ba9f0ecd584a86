// A transformer-block-like graph evaluated N times on the CPU backend (for tprof trials).
#include "ggml.h"
#include "ggml-cpu.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int evals = argc > 1 ? atoi(argv[1]) : 20, threads = argc > 2 ? atoi(argv[2]) : 1;
    const int D = 512, T = 64, F = 1024;
    struct ggml_init_params p = {256u << 20, NULL, false};
    struct ggml_context *ctx = ggml_init(p);
    struct ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, D, T);
    struct ggml_tensor *wq = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, D, D);
    struct ggml_tensor *w1 = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, D, F);
    struct ggml_tensor *w2 = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, F, D);
    float *fx = x->data, *fq = wq->data, *f1 = w1->data, *f2 = w2->data;
    for (int i = 0; i < D * T; i++) fx[i] = (float)(i % 7) * 0.01f;
    for (int i = 0; i < D * D; i++) fq[i] = (float)(i % 5) * 0.001f;
    for (int i = 0; i < D * F; i++) f1[i] = (float)(i % 3) * 0.001f;
    for (int i = 0; i < F * D; i++) f2[i] = (float)(i % 11) * 0.001f;
    struct ggml_tensor *h = ggml_norm(ctx, x, 1e-5f);
    struct ggml_tensor *q = ggml_mul_mat(ctx, wq, h);            // D x T
    struct ggml_tensor *att = ggml_mul_mat(ctx, q, q);           // T x T
    att = ggml_soft_max(ctx, att);
    struct ggml_tensor *u = ggml_mul_mat(ctx, w1, h);            // F x T
    u = ggml_gelu(ctx, u);
    struct ggml_tensor *o = ggml_mul_mat(ctx, w2, u);            // D x T
    o = ggml_add(ctx, o, x);
    struct ggml_cgraph *gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, o);
    ggml_build_forward_expand(gf, att);
    for (int e = 0; e < evals; e++)
        ggml_graph_compute_with_ctx(ctx, gf, threads);
    printf("nodes %d out %.4f\n", ggml_graph_n_nodes(gf), ((float *)o->data)[0]);
    ggml_free(ctx);
    return 0;
}
