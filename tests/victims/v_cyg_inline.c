/* Built -O2 -finstrument-functions: small_matmul is inlined into conv_layer, and gcc still calls
 * the hooks for it, from conv_layer's own frame. It must nest inside conv_layer, not replace it
 * (tests/cyg_ops.sh). */
#include <stdio.h>

static volatile long sink;

static inline void small_matmul(int n)
{
    for (int i = 0; i < n; i++)
        sink += i;
}

__attribute__((noinline)) static void conv_layer(int n)
{
    small_matmul(n);
    small_matmul(n);
    sink += 1;
}

int main(void)
{
    for (int i = 0; i < 100; i++)
        conv_layer(1000);
    printf("%ld\n", (long)sink);
    return 0;
}
