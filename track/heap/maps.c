/* The program's mappings by call site and file, tprof's own, and the threads' stacks (see
 * track/heap/heap.h): what the memory ledger (ledger.c) needs to say whose a range of the
 * address space is. The kernel's /proc/self/smaps knows what is resident but not who mapped it.
 *
 * Ranges are kept sorted by address in a fixed table, so that the ledger finds those within one
 * of the kernel's areas by binary search; an unmap of part of a range trims or splits it, as the
 * kernel does. Mappings are made seldom (a model's file, an arena of an interpreter's allocator),
 * so a spin lock and a table moved by memmove are cheap enough; the lock is only tried a bounded
 * number of times, so that a signal handler's munmap never waits for the code it interrupted. */
#include "track/heap/heap.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_MAPS   16384
#define MAX_STACKS 4096

static struct tp_map maps[MAX_MAPS];
static size_t nmaps;
static struct tp_map_agg aggs[TP_MAPS_MAX_AGGS];
static size_t naggs;
static uintptr_t stacks[MAX_STACKS];
static _Atomic size_t nstacks;
static _Atomic uint64_t lost;
static atomic_flag lock = ATOMIC_FLAG_INIT;

static int take(void)
{
    for (int i = 0; i < 100000; i++)
        if (!atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
            return 1;
    atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
    return 0;
}

static void give(void)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
}

size_t tp_maps_after(const struct tp_map *m, size_t n, uintptr_t p)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid].hi <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first kept range whose end is past p. Under the lock. */
static size_t first_after(uintptr_t p)
{
    return tp_maps_after(maps, nmaps, p);
}

/* Put [lo, hi) of agg in its place. Under the lock; the range overlaps none kept. */
static int insert(uintptr_t lo, uintptr_t hi, int agg)
{
    if (nmaps == MAX_MAPS) {
        atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
        return 0;
    }
    size_t i = first_after(lo);
    memmove(&maps[i + 1], &maps[i], (nmaps - i) * sizeof *maps);
    maps[i] = (struct tp_map){lo, hi, agg};
    nmaps++;
    return 1;
}

/* Take [lo, hi) out of every range, as munmap does: a range within it goes, one across an end
 * is trimmed, one around it is split. Each agg loses the bytes; an agg whose range went whole
 * counts an unmap. Under the lock. */
static void cut(uintptr_t lo, uintptr_t hi)
{
    size_t i = first_after(lo);
    while (i < nmaps && maps[i].lo < hi) {
        struct tp_map *m = &maps[i];
        uintptr_t a = m->lo > lo ? m->lo : lo, b = m->hi < hi ? m->hi : hi;
        struct tp_map_agg *g = m->agg >= 0 ? &aggs[m->agg] : NULL;
        if (g)
            g->live -= g->live >= b - a ? b - a : g->live;
        if (a == m->lo && b == m->hi) { /* all of it */
            if (g)
                g->unmaps++;
            memmove(m, m + 1, (nmaps - i - 1) * sizeof *maps);
            nmaps--;
            continue;
        }
        if (a == m->lo) { /* its head */
            m->lo = b;
        } else if (b == m->hi) { /* its tail */
            m->hi = a;
        } else { /* its middle: two ranges */
            uintptr_t end = m->hi;
            int agg = m->agg;
            m->hi = a;
            insert(b, end, agg);
        }
        i++;
    }
}

/* The agg of site and file (path, "" for anonymous memory), made if new; -1 when full. */
static int agg_of(uint32_t site, const char *path)
{
    for (size_t i = 0; i < naggs; i++)
        if (aggs[i].site == site && !strcmp(aggs[i].path, path))
            return (int)i;
    if (naggs == TP_MAPS_MAX_AGGS)
        return -1;
    struct tp_map_agg *g = &aggs[naggs];
    memset(g, 0, sizeof *g);
    g->site = site;
    g->file = *path != 0;
    snprintf(g->path, sizeof g->path, "%s", path);
    return (int)naggs++;
}

/* fd's path, "" when it has none to read (the caller's mmap said the file was fd). */
static void fd_path(int fd, char *out, size_t n)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(link, out, n - 1);
    out[k > 0 ? k : 0] = 0;
    if (k > 0 && !*out)
        snprintf(out, n, "?");
}

static uintptr_t page_end(uintptr_t p, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t m = page > 0 ? (uintptr_t)page - 1 : 4095;
    return (p + len + m) & ~m;
}

void tp_maps_mmap(uintptr_t p, size_t len, int prot, int flags, int fd, uint64_t offset,
                  uint32_t site)
{
    char path[192] = "";
    if (!(flags & MAP_ANONYMOUS) && fd >= 0)
        fd_path(fd, path, sizeof path);
    if (!(flags & MAP_ANONYMOUS) && !*path)
        snprintf(path, sizeof path, "?");
    uintptr_t hi = page_end(p, len);
    if (!take())
        return;
    cut(p, hi); /* MAP_FIXED over what was there */
    int a = agg_of(site, path);
    if (a < 0) {
        atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
    } else if (insert(p, hi, a)) {
        struct tp_map_agg *g = &aggs[a];
        if (!g->maps)
            g->offset = offset;
        g->maps++;
        g->mapped += hi - p;
        g->live += hi - p;
        g->prot = prot;
        g->flags = flags;
    }
    give();
}

void tp_maps_own(uintptr_t p, size_t len)
{
    uintptr_t hi = page_end(p, len);
    if (!take())
        return;
    cut(p, hi);
    insert(p, hi, TP_MAPS_OWN);
    give();
}

void tp_maps_munmap(uintptr_t p, size_t len)
{
    uintptr_t hi = page_end(p, len);
    if (!take())
        return;
    cut(p, hi);
    give();
}

void tp_maps_mremap(uintptr_t old, size_t oldlen, uintptr_t p, size_t len)
{
    uintptr_t ohi = page_end(old, oldlen), hi = page_end(p, len);
    if (!take())
        return;
    size_t i = first_after(old);
    int agg = i < nmaps && maps[i].lo <= old ? maps[i].agg : -2; /* -2: not ours to follow */
    if (agg != -2) {
        struct tp_map_agg *g = agg >= 0 ? &aggs[agg] : NULL;
        uint64_t unmaps = g ? g->unmaps : 0;
        cut(old, ohi);
        cut(p, hi);
        if (insert(p, hi, agg) && g) {
            g->unmaps = unmaps; /* moved, not unmapped */
            g->live += hi - p;
            if (hi - p > ohi - old)
                g->mapped += (hi - p) - (ohi - old);
        }
    }
    give();
}

void tp_maps_mprotect(uintptr_t p, size_t len, int prot)
{
    (void)len;
    if (!take())
        return;
    size_t i = first_after(p);
    if (i < nmaps && maps[i].lo <= p && maps[i].agg >= 0)
        aggs[maps[i].agg].prot = prot;
    give();
}

void tp_maps_advise(uintptr_t p, size_t len)
{
    uintptr_t hi = page_end(p, len);
    if (!take())
        return;
    for (size_t i = first_after(p); i < nmaps && maps[i].lo < hi; i++) {
        uintptr_t a = maps[i].lo > p ? maps[i].lo : p, b = maps[i].hi < hi ? maps[i].hi : hi;
        if (maps[i].agg >= 0)
            aggs[maps[i].agg].advised += b - a;
    }
    give();
}

void tp_maps_stack(uintptr_t sp)
{
    size_t i = atomic_fetch_add_explicit(&nstacks, 1, memory_order_relaxed);
    if (i < MAX_STACKS)
        stacks[i] = sp;
}

size_t tp_maps_copy(struct tp_map *out, size_t cap)
{
    if (!take())
        return 0;
    size_t n = nmaps < cap ? nmaps : cap;
    memcpy(out, maps, n * sizeof *out);
    give();
    return n;
}

size_t tp_maps_aggs(struct tp_map_agg *out, size_t cap)
{
    if (!take())
        return 0;
    size_t n = naggs < cap ? naggs : cap;
    memcpy(out, aggs, n * sizeof *out);
    give();
    return n;
}

size_t tp_maps_stacks(uintptr_t *out, size_t cap)
{
    size_t n = atomic_load(&nstacks);
    n = n < MAX_STACKS ? n : MAX_STACKS;
    n = n < cap ? n : cap;
    memcpy(out, stacks, n * sizeof *out);
    for (size_t i = 1; i < n; i++) /* few; an insertion sort */
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            uintptr_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

uint64_t tp_maps_lost(void)
{
    return atomic_load(&lost);
}

void tp_maps_fork_child(void)
{
    /* the parent's mappings are the child's too; of its threads only the forking one is */
    atomic_flag_clear(&lock);
}
