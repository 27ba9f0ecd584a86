/* What tprof's stack walk leaves in the program's heap: the first allocation of main, whose walk
 * reads the unwind rules of the program and libc (libdw's blocks, kept for good), must grow the
 * main arena's in-use bytes by exactly its own chunk. tprof's start-up work is done by then (it
 * runs in a constructor), glibc's per-thread cache included. Prints the growth and the chunk:
 * glibc's chunk is the usable size plus its 8-byte header. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) void *site(size_t n)
{
    return malloc(n);
}

int main(void)
{
    size_t before = mallinfo2().uordblks;
    void *p = site(1000);
    size_t after = mallinfo2().uordblks;
    if (!p)
        return 1;
    printf("%zu %zu\n", after - before, malloc_usable_size(p) + 8);
    free(p);
    return 0;
}
