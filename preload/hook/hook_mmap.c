/* The program's own mappings, interposed: mmap (and mmap64), munmap, mremap, mprotect and madvise,
 * each told to track/heap/maps.c with its call site, so that the memory ledger can say whose
 * the resident memory is (a model's weights mapped from a file, an interpreter's arenas).
 *
 * glibc's allocator and its loader map memory inside libc, never through these names: a large
 * malloc'd block is heap, a library's segments are the loader's, and neither is seen here. A
 * call made by tprof itself (its tables, its stubs: the caller is in libtprof.so or holds the
 * guard) is noted as tprof's own. Every shim forwards to the next definition (dlsym RTLD_NEXT),
 * or to the system call while none is known yet, and leaves the result and errno as the real
 * call set them. Before the program gives back 1 MiB or more (munmap, madvise DONTNEED or FREE)
 * the ledger may read the resident memory (track/heap/ledger.c), as a peak may end there. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/config.h"
#include "preload/main.h"
#include "preload/real.h"
#include "preload/shim.h"
#include "track/heap/heap.h"
#include "track/runtime.h"
#include "track/sites/sites.h"
#include "track/unwind/unwind.h"

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);
typedef int (*mprotect_fn)(void *, size_t, int);

static struct tp_real real_mmap = {"mmap"}, real_munmap = {"munmap"}, real_mremap = {"mremap"},
                      real_mprotect = {"mprotect"}, real_madvise = {"madvise"};

/* Whose call is this: 1 the program's (recorded with its site), 0 tprof's own, -1 neither
 * (tprof is not running: nothing is kept). */
static int whose(void *ra)
{
    if (tp_guard || tp_addr_is_ours((uintptr_t)ra))
        return 0;
    int s = atomic_load_explicit(&tp_state, memory_order_relaxed);
    if (s == TP_BOOT) {
        tp_preload_init();
        s = atomic_load_explicit(&tp_state, memory_order_relaxed);
    }
    return s == TP_RUNNING ? 1 : -1;
}

/* Note a mapping the program made at p; ra, fp: the shim's return and frame addresses. */
static __attribute__((noinline)) void note_map(void *p, size_t len, int prot, int flags, int fd,
                                               off_t off, void *ra, void *fp)
{
    void *raw[TP_MAX_STACK + TP_STACK_ROOM];
    struct tp_own g = tp_own_begin();
    int want = tp_sites_want();
    int got = want > 0 ? tp_unwind(raw, want - TP_STACK_ROOM + 1, ra, fp) : 0;
    uint32_t site = tp_site_find(raw, got, ra);
    tp_maps_mmap((uintptr_t)p, len, prot, flags, fd, (uint64_t)off, site);
    tp_own_end(g);
}

static void *call_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    mmap_fn real = (mmap_fn)tp_real_fn(&real_mmap);
    if (real)
        return real(addr, len, prot, flags, fd, off);
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

static void *mmap_shim(void *addr, size_t len, int prot, int flags, int fd, off_t off, void *ra,
                       void *fp)
{
    void *p = call_mmap(addr, len, prot, flags, fd, off);
    if (p == MAP_FAILED)
        return p;
    int e = errno, w = whose(ra);
    if (w > 0)
        note_map(p, len, prot, flags, fd, off, ra, fp);
    else if (w == 0)
        tp_maps_own((uintptr_t)p, len);
    errno = e;
    return p;
}

TP_EXPORT TP_NOINSTR void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mmap_shim(addr, len, prot, flags, fd, off, __builtin_return_address(0),
                     __builtin_frame_address(0));
}

TP_EXPORT TP_NOINSTR void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mmap_shim(addr, len, prot, flags, fd, off, __builtin_return_address(0),
                     __builtin_frame_address(0));
}

/* Memory is about to be given back: the ledger may read first (a peak may end here). */
static void giving_back(size_t len, void *ra)
{
    if (len >= TP_LEDGER_RELEASE && whose(ra) > 0) {
        int e = errno;
        tp_ledger_release(0, 0);
        errno = e;
    }
}

TP_EXPORT TP_NOINSTR int munmap(void *addr, size_t len)
{
    void *ra = __builtin_return_address(0);
    giving_back(len, ra);
    munmap_fn real = (munmap_fn)tp_real_fn(&real_munmap);
    int rc = real ? real(addr, len) : (int)syscall(SYS_munmap, addr, len);
    if (rc == 0 && whose(ra) >= 0) {
        int e = errno;
        tp_maps_munmap((uintptr_t)addr, len);
        errno = e;
    }
    return rc;
}

TP_EXPORT TP_NOINSTR void *mremap(void *old, size_t oldlen, size_t len, int flags, ...)
{
    void *want = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        want = va_arg(ap, void *);
        va_end(ap);
    }
    void *ra = __builtin_return_address(0);
    if (len < oldlen)
        giving_back(oldlen - len, ra);
    mremap_fn real = (mremap_fn)tp_real_fn(&real_mremap);
    void *p = real ? real(old, oldlen, len, flags, want)
                   : (void *)syscall(SYS_mremap, old, oldlen, len, flags, want);
    if (p != MAP_FAILED && whose(ra) >= 0) {
        int e = errno;
        tp_maps_mremap((uintptr_t)old, oldlen, (uintptr_t)p, len);
        errno = e;
    }
    return p;
}

TP_EXPORT TP_NOINSTR int mprotect(void *addr, size_t len, int prot)
{
    mprotect_fn real = (mprotect_fn)tp_real_fn(&real_mprotect);
    int rc = real ? real(addr, len, prot) : (int)syscall(SYS_mprotect, addr, len, prot);
    if (rc == 0 && whose(__builtin_return_address(0)) > 0) {
        int e = errno;
        tp_maps_mprotect((uintptr_t)addr, len, prot);
        errno = e;
    }
    return rc;
}

TP_EXPORT TP_NOINSTR int madvise(void *addr, size_t len, int advice)
{
    void *ra = __builtin_return_address(0);
    int gives = advice == MADV_DONTNEED || advice == MADV_FREE;
    if (gives)
        giving_back(len, ra);
    mprotect_fn real = (mprotect_fn)tp_real_fn(&real_madvise);
    int rc = real ? real(addr, len, advice) : (int)syscall(SYS_madvise, addr, len, advice);
    if (rc == 0 && gives && whose(ra) > 0) {
        int e = errno;
        tp_maps_advise((uintptr_t)addr, len);
        errno = e;
    }
    return rc;
}
