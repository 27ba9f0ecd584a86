/* A plugin loaded at run time with dlopen (tests/victims/v_cyg_dl.c): its own code calls
 * libtpop.so's tpop_gemm through its PLT, which tprof hooks once the plugin is loaded. */
void tpop_gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B,
               int ldb, float BETA, float *C, int ldc);

float tpop_user_run(int n)
{
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 1, 1, 1, 1, 1}, c[4] = {0, 0, 0, 0};
    float s = 0;
    for (int r = 0; r < n; r++) {
        tpop_gemm(0, 0, 2, 2, 3, 1.0f, a, 3, b, 2, 0.0f, c, 2); /* 2*2*2*3 = 24 FLOPs */
        s += c[0] + c[1] + c[2] + c[3];
    }
    return s;
}
