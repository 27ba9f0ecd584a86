/* A stand-in for a prebuilt ML library such as darknet's libdarknet.so: exported ops that
 * unmodified programs call through the PLT. Built -fPIC by gcc with its default semantic
 * interposition, so the library's own calls to its exports go through its PLT as well
 * (tpop_conv -> tpop_gemm -> tpop_gemm_nn, as darknet's convolution -> gemm -> gemm_nn).
 * The other exports exercise what a call-forwarding stub must leave untouched: stack
 * arguments, varargs, float, x87, pair and in-memory return values, errno, longjmp. */
#include <errno.h>
#include <stdarg.h>

struct tpop_pair {
    long a, b;
};

struct tpop_big {
    double v[4];
};

/* darknet's gemm_nn: C += ALPHA * A * B (row-major). */
void tpop_gemm_nn(int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb,
                  float *C, int ldc)
{
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            float a = ALPHA * A[i * lda + k];
            for (int j = 0; j < N; j++)
                C[i * ldc + j] += a * B[k * ldb + j];
        }
}

/* darknet's gemm signature (transposes not needed by the tests: TA = TB = 0). */
void tpop_gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B,
               int ldb, float BETA, float *C, int ldc)
{
    (void)TA;
    (void)TB;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            C[i * ldc + j] *= BETA;
    tpop_gemm_nn(M, N, K, ALPHA, A, lda, B, ldb, C, ldc);
}

/* A 1-D convolution as im2col + one gemm (1 x (n-k+1) x k). Sets errno, which the caller
 * checks after the call. Returns the sum of the output (a float return in xmm0). */
float tpop_conv(const float *in, int n, const float *w, int k, float *out)
{
    float col[64 * 8];
    int m = n - k + 1;
    if (m < 1 || m > 64 || k > 8)
        return -1;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++)
            col[j * m + i] = in[i + j];
    for (int i = 0; i < m; i++)
        out[i] = 0;
    tpop_gemm(0, 0, 1, m, k, 1.0f, (float *)w, k, col, m, 0.0f, out, m);
    float s = 0;
    for (int i = 0; i < m; i++)
        s += out[i];
    errno = 42;
    return s;
}

/* Varargs: doubles travel in xmm registers with their count in al. */
double tpop_norm_sum(int n, ...)
{
    va_list ap;
    double s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        s += va_arg(ap, double);
    va_end(ap);
    return s;
}

struct tpop_pair tpop_pool_pair(long x, long y)
{
    struct tpop_pair p = {x + y, x * y};
    return p;
}

struct tpop_big tpop_pool_big(double a, double b, double c, double d, double e, double f,
                              double g, double h, double i, double j)
{
    struct tpop_big r = {{a + b + c, d + e + f, g + h, i * j}};
    return r;
}

long double tpop_pool_ld(long double x)
{
    return x * 3.0L;
}

/* Calls back into the program, which may longjmp out of this frame. */
void tpop_relu_cb(void (*cb)(int), int i)
{
    cb(i);
}

/* One iteration of the "model": a step (TPROF_STEP=tpop_step) with a gemm inside. */
float tpop_step(int i)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {0, 0, 0, 0};
    a[0] += (float)i;
    tpop_gemm(0, 0, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    return c[0] + c[3];
}

/* Imported by v_cyg_plt but called only when it has more than 100 arguments: a hooked export
 * that is never called must not take a slot of the op table. */
float tpop_unused_norm(float x)
{
    return x * 0.5f;
}
