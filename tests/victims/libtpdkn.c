/* darknet's gemm and im2col_cpu, by their names and signatures, for the built-in work entries
 * (track/ops/opnames.c; tests/work_builtin.sh): exported from a library (hooked through the PLT) and
 * built into a program with -finstrument-functions (found through the DWARF). */
#include "v_dkn.h"

void gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb,
          float BETA, float *C, int ldc)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int k = 0; k < K; k++)
                s +=
                    (TA ? A[k * lda + i] : A[i * lda + k]) * (TB ? B[j * ldb + k] : B[k * ldb + j]);
            C[i * ldc + j] = ALPHA * s + BETA * C[i * ldc + j];
        }
}

/* As darknet's im2col.c, a channel at a time (as Caffe's is written: then channels stays live
 * past the enter hook at -O2, where darknet's own loop, over channels*ksize*ksize, lets gcc
 * keep only the product): the input padded with zeros, one row per channel and kernel offset. */
void im2col_cpu(float *data_im, int channels, int height, int width, int ksize, int stride, int pad,
                float *data_col)
{
    int oh = (height + 2 * pad - ksize) / stride + 1, ow = (width + 2 * pad - ksize) / stride + 1;
    for (int ci = 0; ci < channels; ci++)
        for (int k = 0; k < ksize * ksize; k++) {
            int c = ci * ksize * ksize + k, wo = k % ksize, ho = k / ksize;
            for (int h = 0; h < oh; h++)
                for (int w = 0; w < ow; w++) {
                    int y = ho + h * stride - pad, x = wo + w * stride - pad;
                    data_col[(c * oh + h) * ow + w] = y < 0 || x < 0 || y >= height || x >= width
                                                          ? 0
                                                          : data_im[(ci * height + y) * width + x];
                }
        }
}
