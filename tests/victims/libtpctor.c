/* A library whose constructor allocates two calls deep. The program's libraries are initialised
 * before libtprof.so (which depends on libc alone, and is initialised last but the program):
 * tests/lib_ctor.sh checks that this block still gets its whole stack. */
#include <stdlib.h>

void *tpctor_block;

static __attribute__((noinline)) void *ctor_inner(size_t n)
{
    void *p = malloc(n);
    __asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays */
    return p;
}

static __attribute__((noinline)) void *ctor_outer(size_t n)
{
    void *p = ctor_inner(n);
    __asm__ volatile("" ::: "memory");
    return p;
}

__attribute__((constructor)) static void tpctor_init(void)
{
    tpctor_block = ctor_outer(777);
}
