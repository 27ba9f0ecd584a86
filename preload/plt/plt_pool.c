/* The PLT stubs past the built-in ones, and the index of slots by name (see plt_pool.h).
 *
 * A program with more hooked functions than libtprof.so's text has stubs for (a big C++ library
 * matched by a glob, a generated library) gets more, in pages mapped next to each other and made
 * executable once written (never writable and executable at once). Each is 16 bytes: the slot
 * number into r11 and an indirect jump through the pointer to the common entry kept in the
 * reservation's first page, as the built-in ones do with a direct jump. Their memory and the
 * slots' tables count against TPROF_MEMORY_BUDGET with the call-site and op tables; where the
 * kernel refuses executable memory (a W^X policy), no more are made. Either way the report says
 * how many functions were not hooked and is marked partial. */
#include "preload/plt/plt_pool.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/pages.h"
#include "track/ops/ops.h"
#include "track/sites/sites.h"

#define STUB_SIZE 16
#define CHUNK     1024 /* stubs made at once: 16 KiB */

_Atomic uintptr_t *tp_plt_ctarget;
uint8_t *tp_plt_cdslot;

static unsigned char *base; /* the reservation: the entry's address, then the stubs */
static size_t page, pool_max;
static uint32_t made; /* stubs made */
static enum tp_plt_pool_limit limit;
static uint64_t refused_budget;

int tp_plt_pool_init(uintptr_t entry)
{
    tp_plt_ctarget = tp_pages_map((size_t)TP_PLT_MAX_SLOTS * sizeof *tp_plt_ctarget, 1);
    tp_plt_cdslot = tp_pages_map(TP_PLT_MAX_SLOTS, 1);
    if (!tp_plt_ctarget || !tp_plt_cdslot)
        return -1;
    page = (size_t)sysconf(_SC_PAGESIZE);
    pool_max = TP_PLT_MAX_SLOTS;
    void *p = mmap(NULL, page + pool_max * STUB_SIZE, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED || mprotect(p, page, PROT_READ | PROT_WRITE) != 0) {
        if (p != MAP_FAILED)
            munmap(p, page + pool_max * STUB_SIZE);
        limit = TP_PLT_POOL_NO_EXEC;
        return 0;
    }
    memcpy(p, &entry, sizeof entry);
    mprotect(p, page, PROT_READ);
    base = p;
    return 0;
}

uintptr_t tp_plt_pool_stub(uint32_t j)
{
    return (uintptr_t)base + page + (uintptr_t)j * STUB_SIZE;
}

int tp_plt_pool_has(uintptr_t a)
{
    uint32_t n = __atomic_load_n(&made, __ATOMIC_ACQUIRE);
    return base && a >= (uintptr_t)base + page && a < (uintptr_t)base + page + n * STUB_SIZE;
}

/* movl $slot, %r11d; jmp *entry(%rip); int3 x 4 */
static void write_stub(unsigned char *s, uint32_t slot)
{
    int32_t disp = (int32_t)((intptr_t)base - (intptr_t)(s + 12));
    s[0] = 0x41;
    s[1] = 0xbb;
    memcpy(s + 2, &slot, 4);
    s[6] = 0xff;
    s[7] = 0x25;
    memcpy(s + 8, &disp, 4);
    memset(s + 12, 0xcc, 4);
}

static int refuse(enum tp_plt_pool_limit why)
{
    limit = why;
    return -1;
}

/* One more chunk of stubs, within the budget; 0 or -1. */
static int grow_chunk(uint32_t first, size_t slot_bytes)
{
    uint32_t room = (uint32_t)(pool_max - first - made);
    uint32_t n = room < CHUNK ? room : CHUNK;
    struct tp_sites_state st;
    tp_sites_state(&st);
    uint64_t per = STUB_SIZE + slot_bytes + sizeof *tp_plt_ctarget + sizeof *tp_plt_cdslot;
    uint64_t mine = (uint64_t)(made + n) * per;
    if (mine + tp_ops_resident() + st.resident > st.budget) {
        refused_budget = st.budget;
        return refuse(TP_PLT_POOL_BUDGET);
    }
    /* the chunk starts where the last one ended, on a page boundary (CHUNK stubs fill whole
     * pages) */
    unsigned char *at = base + page + (size_t)made * STUB_SIZE;
    size_t len = ((size_t)n * STUB_SIZE + page - 1) / page * page;
    if (mprotect(at, len, PROT_READ | PROT_WRITE) != 0)
        return refuse(TP_PLT_POOL_NO_EXEC);
    for (uint32_t k = 0; k < n; k++)
        write_stub(at + (size_t)k * STUB_SIZE, first + made + k);
    if (mprotect(at, len, PROT_READ | PROT_EXEC) != 0) {
        mprotect(at, len, PROT_NONE);
        return refuse(TP_PLT_POOL_NO_EXEC);
    }
    __atomic_store_n(&made, made + n, __ATOMIC_RELEASE);
    return 0;
}

int tp_plt_pool_grow(uint32_t j, uint32_t first, size_t slot_bytes)
{
    if (!base)
        return refuse(TP_PLT_POOL_NO_EXEC);
    if (first >= pool_max || j >= pool_max - first)
        return refuse(TP_PLT_POOL_MAX);
    while (j >= made)
        if (grow_chunk(first, slot_bytes) < 0)
            return -1;
    return 0;
}

void tp_plt_pool_state(struct tp_plt_pool_state *st)
{
    st->limit = limit;
    st->stubs = made;
    st->budget = refused_budget;
}

/* ---- the index: open addressing on the name's hash, doubled when three quarters full ---- */

struct entry {
    uint64_t hash; /* 0: empty */
    const _Atomic uintptr_t *target;
    const char *name;
    int slot;
};
static struct entry *idx;
static size_t idx_cap, idx_used;

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ? h : 1;
}

int tp_plt_index_find(const char *name, uintptr_t target)
{
    if (!idx)
        return -1;
    uint64_t h = name_hash(name);
    for (size_t i = h & (idx_cap - 1);; i = (i + 1) & (idx_cap - 1)) {
        const struct entry *e = &idx[i];
        if (!e->hash)
            return -1;
        if (e->hash == h && atomic_load(e->target) == target && !strcmp(e->name, name))
            return e->slot;
    }
}

static void put(struct entry *t, size_t cap, const struct entry *e)
{
    size_t i = e->hash & (cap - 1);
    while (t[i].hash)
        i = (i + 1) & (cap - 1);
    t[i] = *e;
}

void tp_plt_index_put(const char *name, const _Atomic uintptr_t *target, int slot)
{
    if ((idx_used + 1) * 4 > idx_cap * 3) {
        size_t cap = idx_cap ? 2 * idx_cap : 1024;
        struct entry *t = tp_pages_map(cap * sizeof *t, 0);
        if (!t)
            return;
        for (size_t i = 0; i < idx_cap; i++)
            if (idx[i].hash)
                put(t, cap, &idx[i]);
        tp_pages_unmap(idx, idx_cap * sizeof *idx);
        idx = t;
        idx_cap = cap;
    }
    const struct entry e = {name_hash(name), target, name, slot};
    put(idx, idx_cap, &e);
    idx_used++;
}
