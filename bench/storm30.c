/* A storm of short calls named like ML ops: tile_matmul, a 4x4 tile product of about 30 ns,
 * called N times from conv_layer (both built with -finstrument-functions, both matched by the
 * default TPROF_OPS globs). What a model's tiny tile helpers cost under tprof's defaults, where
 * every call used to be timed. Prints the checksum, so the work cannot be optimised away. */
#include <stdio.h>
#include <stdlib.h>

static float a[16], b[16], c[16];

__attribute__((noinline)) void tile_matmul(float *restrict cc, const float *restrict aa,
                                           const float *restrict bb)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            float s = cc[i * 4 + j];
            for (int k = 0; k < 4; k++)
                s += aa[i * 4 + k] * bb[k * 4 + j] * 0.999f;
            cc[i * 4 + j] = s * 0.5f;
        }
}

__attribute__((noinline)) void conv_layer(long n)
{
    for (long i = 0; i < n; i++)
        tile_matmul(c, a, b);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 30000000;
    for (int i = 0; i < 16; i++)
        a[i] = b[i] = (float)i / 16;
    for (int l = 0; l < 10; l++)
        conv_layer(n / 10);
    printf("%g\n", (double)c[5]);
    return 0;
}
