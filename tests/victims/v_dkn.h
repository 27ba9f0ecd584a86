/* darknet's gemm and im2col_cpu signatures (tests/victims/libtpdkn.c). */
void gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb,
          float BETA, float *C, int ldc);
void im2col_cpu(float *data_im, int channels, int height, int width, int ksize, int stride, int pad,
                float *data_col);
