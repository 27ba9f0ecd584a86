#include "common/pages.h"
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

size_t tp_pages_resident(const void *p, size_t bytes)
{
    unsigned char vec[4096];
    size_t page = (size_t)sysconf(_SC_PAGESIZE), got = 0;
    if (!p || page == 0 || ((uintptr_t)p & (page - 1)))
        return 0;
    /* in chunks of what vec describes: a table's pages without a buffer from the allocator */
    for (size_t off = 0; off < bytes; off += sizeof vec * page) {
        size_t len = bytes - off < sizeof vec * page ? bytes - off : sizeof vec * page;
        if (mincore((unsigned char *)p + off, len, vec) != 0)
            return 0;
        for (size_t i = 0; i < (len + page - 1) / page; i++)
            got += vec[i] & 1;
    }
    return got * page;
}

void tp_pages_zero(void *p, size_t bytes)
{
    if (p && madvise(p, bytes, MADV_DONTNEED) != 0)
        memset(p, 0, bytes);
}
