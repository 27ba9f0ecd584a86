/* mpi_mlp: the MLP of mlp.c (784 -> 1024 -> relu -> 1024 -> relu -> 10, softmax cross-entropy,
 * SGD with momentum) trained data-parallel with MPI.
 *
 * Every rank holds the whole model. In each step every rank runs the forward and backward pass on
 * its own shard of the step's batch (8 cblas_sgemm calls, as in mlp.c), the gradients are summed
 * over the ranks with MPI_Allreduce, and every rank applies the same SGD update, so the parameters
 * stay identical on all ranks. Each rank's gradient is weighted by its share of the batch (its
 * dlogits are divided by the rows of the whole batch, not of its shard), so the sum is the
 * gradient of the mean loss over the whole batch.
 *
 * The ranks are deliberately imbalanced: rank r works on (r + 1) x ROWS rows per step (ROWS = 32
 * by default: rank 0 32 rows, rank 1 64, ...), so rank 1 does twice the sgemm FLOPs of rank 0 and
 * rank 0 waits for it in the allreduce. `--balanced` gives every rank ROWS rows instead. The
 * allreduce is a named region of the annotation API (include/tprof.h), an op called
 * "allreduce_gradients", so the report shows the waiting next to the layers.
 *
 * Profile every rank into its own report (%r: the rank) and merge them (docs/examples.md):
 *   mpirun -np 2 tprof run --step train_step --output none --json 'out.%r.json' -- examples/mpi_mlp
 *   tprof merge out.0.json out.1.json -o all.json && tprof report all.json
 *
 *   mpi_mlp [--steps N] [--rows N] [--balanced]
 *     N steps (default 50); ROWS (default 32). Rank 0 prints the loss of the whole batch every
 *     10 steps and at the end, then one line per rank with its final loss and a hash of its
 *     parameters' bytes: the same hash on every rank means the same parameters. */
#include <cblas.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tprof.h>

#include "layers.h"

enum { IN = 784, HIDDEN = 1024, CLASSES = 10 };

struct mlp {
    struct dense l1, l2, l3;
};

/* The gradients of every parameter (and the loss, weighted like them) summed over the ranks:
 * the only communication of a step. A region, so that tprof times it as an op. */
static void allreduce_gradients(struct mlp *net, float *loss)
{
    tprof_region_begin("allreduce_gradients");
    struct param *ps[] = {&net->l1.w, &net->l1.b, &net->l2.w, &net->l2.b, &net->l3.w, &net->l3.b};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        MPI_Allreduce(MPI_IN_PLACE, ps[i]->grad, (int)ps[i]->n, MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, loss, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    tprof_region_end("allreduce_gradients");
}

/* One step on this rank's rows of a batch of `total` rows; returns the mean loss over the
 * whole batch (the same on every rank). */
static float train_step(struct mlp *net, const float *x, const int *label, int rows, int total)
{
    size_t nh = (size_t)rows * HIDDEN, nc = (size_t)rows * CLASSES;
    float *h1 = ex_alloc(sizeof(float) * nh);
    float *h2 = ex_alloc(sizeof(float) * nh);
    float *logits = ex_alloc(sizeof(float) * nc);
    float *dlogits = ex_alloc(sizeof(float) * nc);
    float *dh2 = ex_alloc(sizeof(float) * nh);
    float *dh1 = ex_alloc(sizeof(float) * nh);

    dense_forward(&net->l1, x, h1, rows);
    relu_forward(h1, nh);
    dense_forward(&net->l2, h1, h2, rows);
    relu_forward(h2, nh);
    dense_forward(&net->l3, h2, logits, rows);
    softmax_forward(logits, rows, CLASSES);
    float loss = softmax_xent_backward(logits, label, dlogits, rows, CLASSES);
    /* This shard's share of the batch: its mean gradient and loss, weighted by rows / total. */
    float share = (float)rows / (float)total;
    for (size_t i = 0; i < nc; i++)
        dlogits[i] *= share;
    loss *= share;

    dense_backward(&net->l3, h2, dlogits, dh2, rows);
    relu_backward(h2, dh2, nh);
    dense_backward(&net->l2, h1, dh2, dh1, rows);
    relu_backward(h1, dh1, nh);
    dense_backward(&net->l1, x, dh1, NULL, rows);

    allreduce_gradients(net, &loss);

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

/* FNV-1a over the bytes of every parameter value: equal on two ranks only if their parameters
 * are bit for bit the same. */
static uint64_t hash_params(const struct mlp *net)
{
    const struct param *ps[] = {&net->l1.w, &net->l1.b, &net->l2.w,
                                &net->l2.b, &net->l3.w, &net->l3.b};
    uint64_t h = 14695981039346656037u;
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        const unsigned char *b = (const unsigned char *)ps[i]->w;
        for (size_t j = 0; j < ps[i]->n * sizeof(float); j++)
            h = (h ^ b[j]) * 1099511628211u;
    }
    return h;
}

int main(int argc, char **argv)
{
    const char *usage = "mpi_mlp [--steps N] [--rows N] [--balanced]";
    int steps = 50, base = 32, balanced = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (ex_option(argc, argv, &i, "--steps", &v))
            steps = ex_int("mpi_mlp", "--steps", v, 1, 1000000);
        else if (ex_option(argc, argv, &i, "--rows", &v))
            base = ex_int("mpi_mlp", "--rows", v, 1, 4096);
        else if (!strcmp(argv[i], "--balanced"))
            balanced = 1;
        else
            ex_usage("mpi_mlp", usage, argv[i]);
    }

    /* Same seed on every rank: the same initial parameters and the same class templates. They
     * are made before MPI_Init, so that they are allocated before any op however TPROF_OPS is
     * set (Open MPI's own opal_convertor_* and mca_mpool_* would match *conv* and *pool* if
     * tprof did not leave MPI internals out): tprof counts what was allocated before the first
     * op as the persistent heap. */
    struct mlp net;
    dense_init(&net.l1, IN, HIDDEN, 0);
    dense_init(&net.l2, HIDDEN, HIDDEN, 0);
    dense_init(&net.l3, HIDDEN, CLASSES, 0);
    struct dataset data;
    dataset_init(&data, CLASSES, IN, 0.1f);

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* The ranks are the parallelism: one BLAS thread each, or two ranks on two cores would run
     * four threads. */
    openblas_set_num_threads(1);

    /* The imbalance, by design: rank r has (r + 1) x base rows (or base rows when balanced). */
    int rows = balanced ? base : (rank + 1) * base;
    int total = balanced ? size * base : base * size * (size + 1) / 2;
    /* A seed per rank: each rank draws its own examples. */
    ex_rng_state = 12345u + 7919u * (unsigned)(rank + 1);
    float *x = ex_alloc(sizeof(float) * (size_t)rows * IN);
    int *label = ex_alloc(sizeof(int) * (size_t)rows);

    float loss = 0;
    for (int s = 1; s <= steps; s++) {
        dataset_batch(&data, x, label, rows);
        loss = train_step(&net, x, label, rows, total);
        if (rank == 0 && (s % 10 == 0 || s == steps))
            printf("step %d loss %.4f\n", s, loss);
    }

    /* Every rank's final loss and parameter hash, printed by rank 0 (one stdout, in rank order). */
    struct {
        double loss;
        uint64_t hash;
    } mine = {loss, hash_params(&net)}, *all = NULL;
    if (rank == 0)
        all = ex_alloc(sizeof *all * (size_t)size);
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            printf("rank %d of %d: %d rows of %d, final loss %.4f, parameters %016llx\n", r, size,
                   balanced ? base : (r + 1) * base, total, all[r].loss,
                   (unsigned long long)all[r].hash);
        free(all);
    }

    free(x);
    free(label);
    dataset_free(&data);
    dense_free(&net.l1);
    dense_free(&net.l2);
    dense_free(&net.l3);
    MPI_Finalize();
    return 0;
}
