/* An unmodified program calling a shared library's ops through the PLT (tests/plt_ops.sh has
 * the expected figures), and through a pointer to one of them. Its output must be the same with
 * and without tprof: every hooked call returns exactly what it would have. Built twice: as a
 * PIE, which gets the pointer from dlsym (taking &tpop_gemm here would make this program's calls
 * go through the GOT entry that holds the address, which tprof leaves alone so that addresses
 * compare equal), and as a non-PIE executable, where taking the function's address makes the
 * executable's PLT entry the function's address for every module (calls through the pointer go
 * through that entry's hooked JUMP_SLOT). */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

struct tpop_pair {
    long a, b;
};
struct tpop_big {
    double v[4];
};
void tpop_gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B,
               int ldb, float BETA, float *C, int ldc);
void tpop_gemm_nn(int M, int N, int K, float ALPHA, float *A, int lda, float *B, int ldb,
                  float *C, int ldc);
float tpop_conv(const float *in, int n, const float *w, int k, float *out);
double tpop_norm_sum(int n, ...);
struct tpop_pair tpop_pool_pair(long x, long y);
struct tpop_big tpop_pool_big(double a, double b, double c, double d, double e, double f,
                              double g, double h, double i, double j);
long double tpop_pool_ld(long double x);
void tpop_relu_cb(void (*cb)(int), int i);
float tpop_step(int i);
float tpop_unused_norm(float x);

typedef void (*gemm_fn)(int, int, int, int, int, float, float *, int, float *, int, float,
                        float *, int);
static gemm_fn volatile gemm_ptr;
static jmp_buf env;
static int called_back;

static void back(int i)
{
    called_back += i;
    if (i % 2)
        longjmp(env, i); /* out of tpop_relu_cb, skipping its return */
}

static double sum(const float *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

int main(int argc, char **argv)
{
    (void)argv;
    float A[64], B[64], C[64];
    double check = 0;
    for (int i = 0; i < 64; i++) {
        A[i] = (float)(i % 7) - 3;
        B[i] = (float)(i % 5) * 0.5f;
        C[i] = 1;
    }
    for (int r = 0; r < 5; r++) {
        tpop_gemm(0, 0, 4, 3, 2, 1.0f, A, 2, B, 3, 0.0f, C, 3);
        check += sum(C, 12);
    }
    /* three callbacks leave tpop_relu_cb by longjmp, two return */
    for (int i = 1; i <= 5; i++)
        if (setjmp(env) == 0)
            tpop_relu_cb(back, i);
    for (int r = 0; r < 3; r++) {
        tpop_gemm(0, 0, 8, 8, 8, 0.5f, A, 8, B, 8, 1.0f, C, 8);
        check += sum(C, 64);
    }
#ifdef __pie__
    gemm_ptr = (gemm_fn)dlsym(RTLD_DEFAULT, "tpop_gemm");
#else
    gemm_ptr = tpop_gemm;
#endif
    for (int r = 0; r < 2; r++) {
        gemm_ptr(0, 0, 3, 1, 2, 1.0f, A, 2, B, 1, 0.0f, C, 1);
        check += sum(C, 3);
    }
    for (int r = 0; r < 2; r++) {
        tpop_gemm_nn(2, 2, 2, 1.0f, A, 2, B, 2, C, 2);
        check += sum(C, 4);
    }
    float in[10], w[3] = {0.25f, 0.5f, 0.25f}, out[8];
    for (int i = 0; i < 10; i++)
        in[i] = (float)i;
    int errno_kept = 0;
    for (int r = 0; r < 4; r++) {
        errno = 0;
        check += tpop_conv(in, 10, w, 3, out);
        errno_kept += errno == 42;
    }
    double v = tpop_norm_sum(3, 1.5, 2.5, 3.0) + tpop_norm_sum(0) +
               tpop_norm_sum(9, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);
    struct tpop_pair p = tpop_pool_pair(6, 7), q = tpop_pool_pair(-2, 5);
    struct tpop_big g = tpop_pool_big(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    struct tpop_big h = tpop_pool_big(.5, .5, .5, .5, .5, .5, .5, .5, .5, .5);
    long double ld = tpop_pool_ld(1.25L) + tpop_pool_ld(-2.0L);
    float st = 0;
    for (int i = 0; i < 6; i++)
        st += tpop_step(i);
    if (argc > 100)
        st += tpop_unused_norm(st);
    printf("gemm %.3f conv errno %d varargs %.2f pair %ld %ld %ld %ld\n", check, errno_kept, v,
           p.a, p.b, q.a, q.b);
    printf("big %.2f %.2f %.2f %.2f %.2f ld %.3Lf step %.1f callbacks %d\n", g.v[0], g.v[1],
           g.v[2], g.v[3], h.v[3], ld, (double)st, called_back);
    return 0;
}
