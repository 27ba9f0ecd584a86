/* A program with no instrumented function that calls a tiny export of libtpprefix.so through
 * the PLT 1000 times (tests/demote_line.sh): its demotion line comes from the host's cache with
 * nothing measured, or from this run's measurement when the cache has none. */
#include <stdio.h>

void lp_tiny_norm(int i);

int main(void)
{
    for (int i = 0; i < 1000; i++)
        lp_tiny_norm(i);
    puts("done");
    return 0;
}
