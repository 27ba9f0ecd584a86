#include "common/pages.h"
#include <sys/mman.h>

void *tp_pages_map(size_t bytes, int reserve_only)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (reserve_only ? MAP_NORESERVE : 0);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void tp_pages_unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}
