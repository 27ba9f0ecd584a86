/* Every aligned allocator: alignment kept, bytes exact (tests/heap_aligned.sh). */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static int aligned(void *p, size_t a) { return ((uintptr_t)p % a) == 0; }

/* glibc's own entry point, which tprof does not see: its free is an "unknown free". */
extern void *__libc_malloc(size_t);

int main(void)
{
    void *p1 = NULL;
    if (posix_memalign(&p1, 64, 1000) || !aligned(p1, 64)) return 2;
    void *bad = (void *)1;
    if (posix_memalign(&bad, 3, 10) != 22 || bad != (void *)1) return 3; /* EINVAL, untouched */
    void *p2 = aligned_alloc(128, 2048);
    if (!p2 || !aligned(p2, 128)) return 4;
    void *p3 = memalign(256, 3000);
    if (!p3 || !aligned(p3, 256)) return 5;
    void *p4 = valloc(4000);
    if (!p4 || !aligned(p4, 4096)) return 6;
    void *p5 = pvalloc(5000);
    if (!p5 || !aligned(p5, 4096)) return 7;
    void *p6 = calloc(10, 100);
    if (!p6 || malloc_usable_size(p6) < 1000) return 8;
    for (int i = 0; i < 1000; i++)
        if (((char *)p6)[i]) return 9;
    free(p1); free(p2); free(p3); free(p4); free(p5); free(p6);
    free(__libc_malloc(77));
    return write(1, "ok\n", 3) == 3 ? 0 : 1;
}
