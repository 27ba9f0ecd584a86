/* tprof's own allocations (track/rawalloc.h): the real allocator and the bootstrap arena. */
#include "track/rawalloc.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

struct tp_raw_fns tp_raw;
_Atomic int tp_raw_state;
__attribute__((tls_model("initial-exec"))) __thread int tp_raw_resolving;

/* ---- the bootstrap arena ----
 *
 * It serves what dlsym allocates before the real allocator is known: a bump allocator in one
 * static array, so that free() tells its blocks from the real allocator's with one range check.
 * Its blocks are never given back. (tprof's own libraries, elfutils, allocate from their own libc
 * in a namespace of their own, track/sym/dwlib.c: nothing of theirs reaches the shims.) The .bss
 * costs nothing until touched. */

_Alignas(64) unsigned char tp_boot_arena[TP_BOOT_SIZE];
static _Atomic size_t boot_used;

/* Each block is preceded by its size, so realloc can copy it out. */
void *tp_boot_alloc(size_t n, size_t align)
{
    if (align < 16)
        align = 16;
    if (n > TP_BOOT_SIZE)
        return NULL;
    for (;;) {
        size_t used = atomic_load(&boot_used);
        size_t start = (used + 16 + align - 1) & ~(align - 1);
        if (start + n > TP_BOOT_SIZE)
            return NULL; /* dlsym needs a few hundred bytes */
        if (atomic_compare_exchange_weak(&boot_used, &used, start + n)) {
            memcpy(tp_boot_arena + start - sizeof(size_t), &n, sizeof n);
            return tp_boot_arena + start;
        }
    }
}

size_t tp_boot_size(const void *p)
{
    size_t n;
    memcpy(&n, (const unsigned char *)p - sizeof(size_t), sizeof n);
    return n;
}

/* ---- resolving the real functions ---- */

void tp_raw_resolve(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&tp_raw_state, &expect, 1)) {
        /* Another thread resolves; wait (happens at most once, at start-up). */
        while (atomic_load(&tp_raw_state) != 2)
            ;
        return;
    }
    tp_raw_resolving = 1;
    /* The four core functions first: every later lookup can then allocate normally. */
    tp_raw.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    tp_raw.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    tp_raw.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    tp_raw.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    tp_raw.reallocarray = (void *(*)(void *, size_t, size_t))dlsym(RTLD_NEXT, "reallocarray");
    tp_raw.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    tp_raw.aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    tp_raw.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    tp_raw.valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
    tp_raw.pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
    tp_raw.usable_size = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
    tp_raw_resolving = 0;
    atomic_store(&tp_raw_state, 2);
}

/* ---- tprof's own allocations: the real allocator, never recorded ---- */

void *tp_alloc(size_t n)
{
    if (!tp_raw_ready())
        return tp_boot_alloc(n, 16);
    return tp_raw.malloc(n);
}

void *tp_calloc(size_t n, size_t m)
{
    if (!tp_raw_ready()) {
        if (m && n > SIZE_MAX / m)
            return NULL;
        return tp_boot_alloc(n * m, 16); /* static storage is zeroed */
    }
    return tp_raw.calloc(n, m);
}

void tp_free(void *p)
{
    if (!p)
        return;
    if (tp_boot_owns(p))
        return; /* bootstrap blocks stay */
    if (tp_raw_ready())
        tp_raw.free(p);
}

void *tp_realloc(void *p, size_t n)
{
    if (!tp_raw_ready())
        return NULL;
    if (p && tp_boot_owns(p)) {
        void *q = tp_raw.malloc(n);
        if (q) {
            size_t old = tp_boot_size(p);
            memcpy(q, p, old < n ? old : n);
        }
        return q;
    }
    return tp_raw.realloc(p, n);
}

char *tp_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = tp_alloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}
