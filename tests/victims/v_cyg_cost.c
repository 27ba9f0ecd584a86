/* Built like a real program (-O2 -finstrument-functions): two ops doing the same work, one through
 * an instrumented helper (two hooks per call), one through the same helper built without
 * instrumentation, and a layer enclosing both. With the hooks' cost taken out, the two ops take
 * about the same time (tests/cyg_cost.sh). */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static void tiny(long i) { sink += i; }

__attribute__((noinline, no_instrument_function)) static void tiny_plain(long i) { sink += i; }

__attribute__((noinline)) static void hooked_matmul(int n)
{
    for (int i = 0; i < n; i++)
        tiny(i);
}

__attribute__((noinline)) static void plain_matmul(int n)
{
    for (int i = 0; i < n; i++)
        tiny_plain(i);
}

__attribute__((noinline)) static void layer_conv(int n)
{
    hooked_matmul(n);
    plain_matmul(n);
}

int main(void)
{
    for (int r = 0; r < 41; r++) {
        hooked_matmul(20000);
        plain_matmul(20000);
    }
    for (int r = 0; r < 5; r++)
        layer_conv(1000);
    printf("sink %ld\n", (long)sink);
    return 0;
}
