/* Built by tests/excl_advice.sh with -finstrument-functions, then again with the
 * -finstrument-functions-exclude-function-list that tprof's advice gives. work (3 calls, each
 * 2 ms asleep) calls tiny_add 40000 times and tiny_scale 20000 times: 120000 and 60000 calls,
 * each too short to time. Prints a checksum. */
#include <stdio.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void tiny_add(int i)
{
    sink += (unsigned long)i;
}

__attribute__((noinline)) static void tiny_scale(int i)
{
    sink *= (unsigned long)i | 1;
}

__attribute__((noinline)) static void work(void)
{
    struct timespec t = {0, 2000000};
    while (nanosleep(&t, &t) != 0) {
    }
    for (int i = 0; i < 40000; i++) {
        tiny_add(i);
        if (i % 2 == 0)
            tiny_scale(i);
    }
}

int main(void)
{
    for (int k = 0; k < 3; k++)
        work();
    printf("%lu\n", sink);
    return 0;
}
