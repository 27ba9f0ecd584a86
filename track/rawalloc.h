/* tprof's own allocations: the real allocator (the next malloc in the lookup chain, found with
 * dlsym RTLD_NEXT: glibc, or an allocator preloaded after us), never recorded, and the static
 * bootstrap arena that serves what dlsym itself allocates before the real allocator is known.
 * preload/hook/hook_malloc.c interposes the malloc family over the same pointers. */
#ifndef TPROF_RAWALLOC_H
#define TPROF_RAWALLOC_H

#include <stdatomic.h>
#include <stddef.h>

/* The real functions; a pointer is NULL when the next allocator lacks that function. */
struct tp_raw_fns {
    void *(*malloc)(size_t);
    void (*free)(void *);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void *(*reallocarray)(void *, size_t, size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
    size_t (*usable_size)(void *);
};
/* Hidden: the shims reach them PC-relative, without a load through the GOT. */
extern __attribute__((visibility("hidden"))) struct tp_raw_fns tp_raw;

extern __attribute__((
    visibility("hidden"))) _Atomic int tp_raw_state; /* 0 not yet, 1 being looked up, 2 known */
extern __attribute__((tls_model("initial-exec"))) __thread int tp_raw_resolving;
void tp_raw_resolve(void);

/* Are the real functions known? Looks them up on first use; 0 only on the thread inside that
 * lookup (dlsym allocates), which must use the bootstrap arena. */
static inline int tp_raw_ready(void)
{
    if (__builtin_expect(atomic_load_explicit(&tp_raw_state, memory_order_acquire) == 2, 1))
        return 1;
    if (tp_raw_resolving)
        return 0;
    tp_raw_resolve();
    return 1;
}

/* The real allocator, never recorded. Safe in any state, including before init. */
void *tp_alloc(size_t n);
void *tp_calloc(size_t n, size_t m);
void *tp_realloc(void *p, size_t n);
void tp_free(void *p);
char *tp_strdup(const char *s);

/* The bootstrap arena: a block of n bytes aligned to align (NULL when full), whether p is one of
 * its blocks (inline: free() asks on every call), and that block's size. Its blocks are never
 * given back. */
#define TP_BOOT_SIZE (64 * 1024)
extern __attribute__((visibility("hidden"))) unsigned char tp_boot_arena[TP_BOOT_SIZE];
void *tp_boot_alloc(size_t n, size_t align);
size_t tp_boot_size(const void *p);
static inline int tp_boot_owns(const void *p)
{
    return (const unsigned char *)p >= tp_boot_arena &&
           (const unsigned char *)p < tp_boot_arena + TP_BOOT_SIZE;
}

#endif
