/* A graph of seven nodes (two mul_mat in a row, an out_prod last) on the stand-in ggml CPU backend (tpggml.h),
 * evaluated EVALS times by ggml_graph_compute on two threads, which call the node functions through the library's PLT
 * (tests/ggml_nodes.sh): v_ggml EVALS [big | slow | epoch | marks]; slow: the second thread sleeps
 * 200 ms in its first node of each evaluation, the first spinning in ggml_barrier meanwhile;
 * epoch: the evaluations made inside one call of ggml_opt_epoch, as a training run's are;
 * marks: a tprof_step() marker after each evaluation; buffers: before the evaluations, ggml
 * backend buffers of 1 MiB (weights), 512 KiB (usage not set: a KV cache's) and 2 MiB (compute);
 * after them the compute buffer freed and one of 256 KiB made (compute), which the heap's peak
 * never sees; manybuf: 1030 buffers of 64 bytes made and freed; burn: each thread's mul_mat spends 25 ms of CPU time in its kernel,
 * ggml_vec_dot_burn.
 * x: 64 x 8, w: 64 x 32, b: 32 x 8 (big: 512 x 64, 512 x 256, 256 x 64, on 4 threads). Prints
 * a checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tprof.h>

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
    if (argc > 2 && !strcmp(argv[2], "slow"))
        tpggml_slow_ms = 200;
    /* "big": the mul_mat nodes take most of the time (512 x 64 by 512 x 256), on 4 threads */
    int big = argc > 2 && !strcmp(argv[2], "big");
    if (argc > 2 && !strcmp(argv[2], "burn"))
        tpggml_burn_ms = 25;
    int64_t d = big ? 512 : 64, t = big ? 64 : 8, f = big ? 256 : 32;
    struct tensor *x = tensor(OP_NONE, d, t, NULL, NULL), *w = tensor(OP_NONE, d, f, NULL, NULL),
                  *b = tensor(OP_NONE, f, t, NULL, NULL);
    struct tensor *h = tensor(OP_NORM, d, t, x, NULL);
    struct tensor *y0 = tensor(OP_MUL_MAT, f, t, w, h), *y = tensor(OP_MUL_MAT, f, t, w, h);
    struct tensor *z = tensor(OP_ADD, f, t, y, b);
    struct tensor *s = tensor(OP_SOFT_MAX, f, t, z, NULL);
    struct tensor *g = tensor(OP_UNARY, f, t, s, NULL);
    struct tensor *o = tensor(OP_OUT_PROD, f, f, z, z);
    struct tensor *nodes[] = {h, y0, y, z, s, g, o};
    const char *mode = argc > 2 ? argv[2] : "";
    struct buffer *weights = NULL, *kv = NULL, *compute = NULL;
    if (!strcmp(mode, "buffers")) {
        struct buft *cpu = ggml_backend_cpu_buffer_type();
        weights = ggml_backend_buft_alloc_buffer(cpu, 1 << 20);
        ggml_backend_buffer_set_usage(weights, USAGE_WEIGHTS);
        kv = ggml_backend_buft_alloc_buffer(cpu, 512 << 10);
        compute = ggml_backend_buft_alloc_buffer(cpu, 2 << 20);
        ggml_backend_buffer_set_usage(compute, USAGE_COMPUTE);
    }
    if (!strcmp(mode, "epoch"))
        ggml_opt_epoch(nodes, 7, 2, evals);
    else
        for (int e = 0; e < evals; e++) {
            ggml_graph_compute(nodes, 7, big ? 4 : 2);
            if (!strcmp(mode, "marks"))
                tprof_step();
        }
    if (!strcmp(mode, "manybuf")) /* more buffers than tprof keeps one by one */
        for (int i = 0; i < 1030; i++)
            ggml_backend_buffer_free(
                ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64));
    if (compute) {
        ggml_backend_buffer_free(compute);
        compute = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 256 << 10);
        ggml_backend_buffer_set_usage(compute, USAGE_COMPUTE);
    }
    double sum = 0;
    for (int i = 0; i < f * t; i++)
        sum += ((float *)g->data)[i];
    printf("%.3f\n", sum);
    return 0;
}
