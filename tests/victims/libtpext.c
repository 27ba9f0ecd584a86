/* A C extension module in small, for tests/heap_roles.sh: PyInit_tpext keeps its module state
 * (256 bytes), ext_keep mallocs a block of its own (and leaks it). */
#include <stdlib.h>
#include <string.h>

void *PyInit_tpext(void)
{
    char *state = malloc(256);
    if (state)
        memset(state, 1, 256);
    return state;
}

void *ext_keep(size_t n)
{
    char *p = malloc(n);
    if (p)
        memset(p, 2, n);
    return p;
}
