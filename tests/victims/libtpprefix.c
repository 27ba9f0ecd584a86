/* Ops whose names begin with other ops' names, in a shared library called through the PLT
 * (tests/adapt_ops.sh): lp_train_step calls lp_train_step_rprop twice and lp_gemm once; lp_gemm
 * calls lp_gemm_nn twice and lp_gemm_nt once, through the library's own PLT (default visibility,
 * -fPIC). lp_tiny_norm is a tiny function called often. */
static volatile long sink;

void lp_gemm_nn(int i)
{
    sink += i;
}

void lp_gemm_nt(int i)
{
    sink -= i;
}

void lp_gemm(int i)
{
    lp_gemm_nn(i);
    lp_gemm_nn(i + 1);
    lp_gemm_nt(i);
}

void lp_train_step_rprop(int i)
{
    sink ^= i;
}

void lp_train_step(int i)
{
    lp_train_step_rprop(i);
    lp_gemm(i);
    lp_train_step_rprop(i + 1);
}

void lp_tiny_norm(int i)
{
    sink += i;
}
