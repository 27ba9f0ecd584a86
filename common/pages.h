/* Zeroed anonymous memory straight from the kernel, for tprof's own tables: it never goes
 * through an allocator (the program's, which tprof interposes, or libc's), so a table can be
 * made inside a malloc hook, and a reserve-only mapping costs address space, not memory, until
 * a page is touched. */
#ifndef TPROF_COMMON_PAGES_H
#define TPROF_COMMON_PAGES_H
#include <stddef.h>

/* bytes of zeroed read-write pages, or NULL. With reserve_only, no swap is reserved
 * (MAP_NORESERVE): for tables sized for the worst case and mostly never touched. */
void *tp_pages_map(size_t bytes, int reserve_only);
void tp_pages_unmap(void *p, size_t bytes);
/* Of the bytes at p (page-aligned), how many are resident (mincore; no allocation): what a table
 * mapped for the worst case really costs. 0 when it cannot be told. */
size_t tp_pages_resident(const void *p, size_t bytes);
/* Zero the private pages at p (page-aligned), giving their memory back to the kernel. */
void tp_pages_zero(void *p, size_t bytes);
#endif
