/* A plugin that calls tpop_gemm without depending on libtpop.so (no DT_NEEDED): the symbol is
 * found in the global scope, from a libtpop.so the program loaded RTLD_GLOBAL. Loaded RTLD_LAZY,
 * its PLT slot is bound at the first call, which makes libtpop.so a dependency of it
 * (tests/victims/v_cyg_dl.c "global"). */
void tpop_gemm(int TA, int TB, int M, int N, int K, float ALPHA, float *A, int lda, float *B,
               int ldb, float BETA, float *C, int ldc);

float tpop_free_run(void)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {2, 0, 0, 2}, c[4] = {0, 0, 0, 0};
    tpop_gemm(0, 0, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    return c[0] + c[3];
}
