/* One helper that calls malloc, inlined at two lines of one function: two call sites, each with
 * the helper (inlined, at its own line) and the line of the call in the function. The MARK
 * comments are what tests/heap_inline.sh looks the lines up by. Built with -O2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *volatile keep[2];

static inline __attribute__((always_inline)) void *grab(size_t n)
{
    char *p = malloc(n); /* MARK:grab */
    if (p)
        memset(p, 1, n);
    return p;
}

__attribute__((noinline)) void build(void)
{
    keep[0] = grab(1000); /* MARK:first */
    keep[1] = grab(3000); /* MARK:second */
}

int main(void)
{
    build(); /* MARK:main */
    free(keep[0]);
    puts("ok");
    return 0;
}
