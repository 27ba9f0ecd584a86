/* libcygstorm.so: one exported op for bench/cyg_storm's PLT mode. */
static volatile long sink;

void storm_gemm(long i)
{
    sink += i;
}
