/* cnn: a small convolutional network trained with SGD and momentum on synthetic 32x32 images.
 *
 *   3x32x32 -> conv 3x3 16 -> relu -> maxpool 2 -> conv 3x3 32 -> relu -> maxpool 2
 *           -> dense 10 -> softmax, cross-entropy loss; batches of 32
 *
 * The forward convolution comes in two implementations, chosen with --conv:
 *   im2col  (default) copy each image's k x k patches into the columns of a matrix (im2col_cpu),
 *           then one cblas_sgemm per image does all the multiply-adds, as Caffe and darknet do;
 *   direct  the textbook seven nested loops (conv2d_direct_forward).
 * Run both under tprof and compare them with `tprof diff` (examples/questions.sh does).
 * The backward convolution is the same in both: sgemm for the weight and input gradients, and
 * col2im_cpu to fold the input gradient's columns back into an image.
 *
 *   cnn [--steps N] [--conv im2col|direct]   N steps (default 100); the loss is printed every 25
 *                                            steps and at the end */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tprof.h>

#include "layers.h"

enum { BATCH = 32, CHANNELS = 3, SIZE = 32, CLASSES = 10 };

/* A convolution with k x k filters, stride 1, and zero padding that keeps the image size. */
struct conv {
    int cin, cout, k, pad;
    int height, width; /* of the input, and of the output too */
    struct param w, b; /* filters cout x (cin k k), biases cout */
};

/* Not called conv_*: every function whose name contains "conv" is an op by default. */
static void filters_init(struct conv *l, int cin, int cout, int k, int h, int w)
{
    l->cin = cin;
    l->cout = cout;
    l->k = k;
    l->pad = k / 2;
    l->height = h;
    l->width = w;
    param_init(&l->w, (size_t)cout * cin * k * k, sqrtf(6.0f / (float)(cin * k * k)), 0);
    param_init(&l->b, (size_t)cout, 0, 0);
}

/* One image (c x h x w) -> col, (c k k) x (h w): row (ci, ky, kx) holds, for every output
 * pixel, the input pixel under that filter tap (0 in the padding). */
static void im2col_cpu(const float *x, int c, int h, int w, int k, int pad, float *col)
{
    for (int ci = 0; ci < c; ci++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                float *row = col + ((size_t)(ci * k + ky) * k + kx) * h * w;
                for (int oy = 0; oy < h; oy++) {
                    int iy = oy + ky - pad;
                    for (int ox = 0; ox < w; ox++) {
                        int ix = ox + kx - pad;
                        int inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
                        row[oy * w + ox] = inside ? x[((size_t)ci * h + iy) * w + ix] : 0;
                    }
                }
            }
}

/* The inverse scatter: adds every column entry back onto the input pixel it came from. */
static void col2im_cpu(const float *col, int c, int h, int w, int k, int pad, float *x)
{
    memset(x, 0, sizeof(float) * (size_t)c * h * w);
    for (int ci = 0; ci < c; ci++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                const float *row = col + ((size_t)(ci * k + ky) * k + kx) * h * w;
                for (int oy = 0; oy < h; oy++) {
                    int iy = oy + ky - pad;
                    if (iy < 0 || iy >= h)
                        continue;
                    for (int ox = 0; ox < w; ox++) {
                        int ix = ox + kx - pad;
                        if (ix >= 0 && ix < w)
                            x[((size_t)ci * h + iy) * w + ix] += row[oy * w + ox];
                    }
                }
            }
}

/* y (batch x cout x h x w) = conv(x) + b: per image, y = W (cout x ckk) col (ckk x hw). */
static void conv2d_im2col_forward(const struct conv *l, const float *x, float *y, int batch)
{
    int hw = l->height * l->width, ckk = l->cin * l->k * l->k;
    float *col = ex_alloc(sizeof(float) * (size_t)ckk * hw); /* the im2col workspace */
    for (int b = 0; b < batch; b++) {
        const float *xb = x + (size_t)b * l->cin * hw;
        float *yb = y + (size_t)b * l->cout * hw;
        im2col_cpu(xb, l->cin, l->height, l->width, l->k, l->pad, col);
        for (int co = 0; co < l->cout; co++)
            for (int i = 0; i < hw; i++)
                yb[(size_t)co * hw + i] = l->b.w[co];
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, l->cout, hw, ckk, 1.0f, l->w.w, ckk,
                    col, hw, 1.0f, yb, hw);
    }
    free(col);
}

/* The same result from the definition: every output pixel is a sum over cin x k x k taps. */
static void conv2d_direct_forward(const struct conv *l, const float *x, float *y, int batch)
{
    int cin = l->cin, k = l->k, h = l->height, w = l->width, pad = l->pad;
    for (int b = 0; b < batch; b++)
        for (int co = 0; co < l->cout; co++)
            for (int oy = 0; oy < h; oy++)
                for (int ox = 0; ox < w; ox++) {
                    float s = l->b.w[co];
                    for (int ci = 0; ci < cin; ci++)
                        for (int ky = 0; ky < k; ky++) {
                            int iy = oy + ky - pad;
                            if (iy < 0 || iy >= h)
                                continue;
                            for (int kx = 0; kx < k; kx++) {
                                int ix = ox + kx - pad;
                                if (ix >= 0 && ix < w)
                                    s += l->w.w[((size_t)(co * cin + ci) * k + ky) * k + kx] *
                                         x[(((size_t)b * cin + ci) * h + iy) * w + ix];
                            }
                        }
                    y[(((size_t)b * l->cout + co) * h + oy) * w + ox] = s;
                }
    /* No BLAS call tells tprof what this op computed: say it with the annotation API (a no-op
     * without tprof). Counted as the sgemm of the im2col version counts, padding included. */
    uint64_t flops = 2ull * batch * l->cout * h * w * cin * k * k;
    uint64_t bytes = sizeof(float) * ((uint64_t)batch * (cin + l->cout) * h * w + l->w.n + l->b.n);
    tprof_add_flops(flops);
    tprof_add_bytes(bytes);
}

/* From dy, the gradient of the output: the filter and bias gradients, and dx (unless NULL). */
static void conv2d_backward(struct conv *l, const float *x, const float *dy, float *dx, int batch)
{
    int hw = l->height * l->width, ckk = l->cin * l->k * l->k;
    float *col = ex_alloc(sizeof(float) * (size_t)ckk * hw);
    float *dcol = dx ? ex_alloc(sizeof(float) * (size_t)ckk * hw) : NULL;
    memset(l->w.grad, 0, sizeof(float) * l->w.n);
    memset(l->b.grad, 0, sizeof(float) * l->b.n);
    for (int b = 0; b < batch; b++) {
        const float *xb = x + (size_t)b * l->cin * hw;
        const float *dyb = dy + (size_t)b * l->cout * hw;
        im2col_cpu(xb, l->cin, l->height, l->width, l->k, l->pad, col);
        /* dW (cout x ckk) += dy (cout x hw) col^T */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, l->cout, ckk, hw, 1.0f, dyb, hw, col,
                    hw, 1.0f, l->w.grad, ckk);
        for (int co = 0; co < l->cout; co++)
            for (int i = 0; i < hw; i++)
                l->b.grad[co] += dyb[(size_t)co * hw + i];
        if (dx) {
            /* dcol (ckk x hw) = W^T dy, folded back into the image */
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, ckk, hw, l->cout, 1.0f, l->w.w,
                        ckk, dyb, hw, 0.0f, dcol, hw);
            float *dxb = dx + (size_t)b * l->cin * hw;
            col2im_cpu(dcol, l->cin, l->height, l->width, l->k, l->pad, dxb);
        }
    }
    free(col);
    free(dcol);
}

/* 2x2 max pooling, stride 2, over n planes of h x w; argmax keeps the winner for backward. */
static void maxpool_forward(const float *x, float *y, int *argmax, int n, int h, int w)
{
    int oh = h / 2, ow = w / 2;
    for (int p = 0; p < n; p++)
        for (int oy = 0; oy < oh; oy++)
            for (int ox = 0; ox < ow; ox++) {
                int best = (p * h + 2 * oy) * w + 2 * ox;
                for (int dy = 0; dy < 2; dy++)
                    for (int dx = 0; dx < 2; dx++) {
                        int i = (p * h + 2 * oy + dy) * w + 2 * ox + dx;
                        if (x[i] > x[best])
                            best = i;
                    }
                int o = (p * oh + oy) * ow + ox;
                y[o] = x[best];
                argmax[o] = best;
            }
}

static void maxpool_backward(const float *dy, const int *argmax, float *dx, int n_out, int n_in)
{
    memset(dx, 0, sizeof(float) * (size_t)n_in);
    for (int o = 0; o < n_out; o++)
        dx[argmax[o]] += dy[o];
}

struct cnn {
    struct conv c1, c2;
    struct dense fc;
    int direct; /* 1: conv2d_direct_forward, 0: conv2d_im2col_forward */
};

/* An op too (its name matches *conv*): with either implementation it stands for the whole forward
 * convolution, so that `tprof diff` of a direct and an im2col run has one line comparing them. */
static void conv_forward(const struct cnn *net, const struct conv *l, const float *x, float *y)
{
    if (net->direct)
        conv2d_direct_forward(l, x, y, BATCH);
    else
        conv2d_im2col_forward(l, x, y, BATCH);
}

static float train_step(struct cnn *net, const float *x, const int *label)
{
    const int n1 = BATCH * 16 * 32 * 32, p1 = n1 / 4; /* conv1 output, after pooling */
    const int n2 = BATCH * 32 * 16 * 16, p2 = n2 / 4; /* conv2 output, after pooling */
    float *a1 = ex_alloc(sizeof(float) * n1), *h1 = ex_alloc(sizeof(float) * p1);
    float *a2 = ex_alloc(sizeof(float) * n2), *h2 = ex_alloc(sizeof(float) * p2);
    int *arg1 = ex_alloc(sizeof(int) * p1), *arg2 = ex_alloc(sizeof(int) * p2);
    float *logits = ex_alloc(sizeof(float) * BATCH * CLASSES);
    float *dlogits = ex_alloc(sizeof(float) * BATCH * CLASSES);

    conv_forward(net, &net->c1, x, a1);
    relu_forward(a1, n1);
    maxpool_forward(a1, h1, arg1, BATCH * 16, 32, 32);
    conv_forward(net, &net->c2, h1, a2);
    relu_forward(a2, n2);
    maxpool_forward(a2, h2, arg2, BATCH * 32, 16, 16);
    dense_forward(&net->fc, h2, logits, BATCH);
    softmax_forward(logits, BATCH, CLASSES);
    float loss = softmax_xent_backward(logits, label, dlogits, BATCH, CLASSES);

    /* Backward: the gradients of the activations, in reverse order. */
    float *dh2 = ex_alloc(sizeof(float) * p2), *da2 = ex_alloc(sizeof(float) * n2);
    float *dh1 = ex_alloc(sizeof(float) * p1), *da1 = ex_alloc(sizeof(float) * n1);
    dense_backward(&net->fc, h2, dlogits, dh2, BATCH);
    maxpool_backward(dh2, arg2, da2, p2, n2);
    relu_backward(a2, da2, n2);
    conv2d_backward(&net->c2, h1, da2, dh1, BATCH);
    maxpool_backward(dh1, arg1, da1, p1, n1);
    relu_backward(a1, da1, n1);
    conv2d_backward(&net->c1, x, da1, NULL, BATCH);

    struct param *params[] = {&net->c1.w, &net->c1.b, &net->c2.w,
                              &net->c2.b, &net->fc.w, &net->fc.b};
    for (int i = 0; i < 6; i++)
        sgd_update(params[i], 0.01f, 0.9f);

    float *bufs[] = {a1, h1, a2, h2, logits, dlogits, dh2, da2, dh1, da1};
    for (int i = 0; i < 10; i++)
        free(bufs[i]);
    free(arg1);
    free(arg2);
    return loss;
}

int main(int argc, char **argv)
{
    const char *usage = "cnn [--steps N] [--conv im2col|direct]";
    struct cnn net = {.direct = 0};
    int steps = 100;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (ex_option(argc, argv, &i, "--steps", &v))
            steps = ex_int("cnn", "--steps", v, 1, 1000000);
        else if (ex_option(argc, argv, &i, "--conv", &v)) {
            if (strcmp(v, "im2col") && strcmp(v, "direct")) {
                fprintf(stderr, "cnn: --conv %s: expected im2col or direct\n", v);
                return 2;
            }
            net.direct = !strcmp(v, "direct");
        } else
            ex_usage("cnn", usage, argv[i]);
    }

    filters_init(&net.c1, CHANNELS, 16, 3, SIZE, SIZE);
    filters_init(&net.c2, 16, 32, 3, SIZE / 2, SIZE / 2);
    dense_init(&net.fc, 32 * 8 * 8, CLASSES, 0);
    struct dataset data;
    dataset_init(&data, CLASSES, CHANNELS * SIZE * SIZE, 0.4f);
    float *x = ex_alloc(sizeof(float) * BATCH * CHANNELS * SIZE * SIZE);
    int label[BATCH];

    for (int s = 1; s <= steps; s++) {
        dataset_batch(&data, x, label, BATCH);
        float loss = train_step(&net, x, label);
        if (s % 25 == 0 || s == steps)
            printf("step %d loss %.3f\n", s, loss);
    }

    free(x);
    dataset_free(&data);
    param_free(&net.c1.w);
    param_free(&net.c1.b);
    param_free(&net.c2.w);
    param_free(&net.c2.b);
    dense_free(&net.fc);
    return 0;
}
