/* The op table: records found by id, names found through an index, both growing.
 *
 * Records live in chunks of TP_OPS_CHUNK, each one mapping from the kernel (never the program's
 * allocator: ops are interned inside hooks) that holds the chunk's records and their latency
 * histograms; a chunk's pages cost memory only once touched. A record's address goes into
 * tp_op_ptr (release) before its id is handed out, and no record ever moves, so an id stays
 * valid for the whole run (the hooks cache them) and tp_op_rec() reads with no lock.
 *
 * The name index is open addressing over op id + 1. Inserts happen under the intern lock only;
 * past three quarters full, it is copied into one twice the size, which is published whole
 * (release) and the old one left mapped: a lookup without the lock reads one complete index,
 * and one that misses a name inserted meanwhile finds it under the lock.
 *
 * A new chunk is made only while the op table and the call-site table together hold less than
 * TPROF_MEMORY_BUDGET (the site table, which grows by itself, counts its own bytes only), and
 * ids stop at TPROF_MAX_OPS when it is set. Past either, a new name gets no id: the report is
 * partial and names what was lost. */
#include "track/ops/ops.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "common/histo/histo.h"
#include "common/pages.h"
#include "track/runtime.h"
#include "track/sites/sites.h"
#include "track/steps/steps.h"

struct opidx {
    uint64_t mask;
    _Atomic int slot[]; /* op id + 1, 0 empty */
};

#define IDX_MIN_SLOTS 1024
#define IDX_MAX_GENS  24
#define LOST_SLOTS    (1u << 14) /* distinct refused names told apart (by their hash) */

struct tp_op_rec *_Atomic tp_op_dir[TP_OPS_MAX_IDS / TP_OPS_CHUNK];
struct tp_op_rec *_Atomic *tp_op_ptr;
_Atomic int tp_op_nrecs;
int tp_op_ids;
_Atomic uint64_t tp_ops_dropped;

static _Atomic(struct opidx *) index_;
static struct opidx *gens[IDX_MAX_GENS];
static int ngens;
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
/* A chunk: its records (page-rounded), their shape slots, their histograms (8-byte strides). */
static size_t recs_bytes, shapes_bytes, histo_stride, chunk_bytes;
static _Atomic int limit;        /* enum tp_ops_limit */
static uint64_t *lost;           /* hashes of refused names (LOST_SLOTS), mapped on the first */
static _Atomic uint64_t nlost;   /* distinct refused names, each kept one stored before */
static _Atomic int lost_inexact; /* more names were refused than nlost tells apart */
static char *lost_names[TP_OPS_LOST_NAMES];

static size_t idx_bytes(uint64_t nslots)
{
    return sizeof(struct opidx) + nslots * sizeof(_Atomic int);
}

static struct opidx *idx_new(uint64_t nslots)
{
    if (ngens == IDX_MAX_GENS)
        return NULL;
    struct opidx *x = tp_pages_map(idx_bytes(nslots), 0);
    if (!x)
        return NULL;
    x->mask = nslots - 1;
    gens[ngens++] = x;
    return x;
}

void tp_ops_table_init(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    tp_op_ids = tp_cfg.max_ops ? (int)tp_cfg.max_ops : TP_OPS_MAX_IDS;
    recs_bytes = (TP_OPS_CHUNK * sizeof(struct tp_op_rec) + page - 1) / page * page;
    shapes_bytes =
        (TP_OPS_CHUNK * TP_OPS_MAX_SHAPES * sizeof(struct tp_shape_rec) + page - 1) / page * page;
    histo_stride = (tp_histo_bytes() + 7) / 8 * 8;
    chunk_bytes = recs_bytes + shapes_bytes + TP_OPS_CHUNK * histo_stride;
    struct opidx *x = idx_new(IDX_MIN_SLOTS);
    atomic_store_explicit(&index_, x, memory_order_release);
    tp_op_ptr = tp_pages_map((size_t)tp_op_ids * sizeof *tp_op_ptr, 1);
    if (!x || !tp_op_ptr) {
        tp_warn("cannot allocate the op table; ops are off");
        tp_op_ids = 0;
    }
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static int find(const struct opidx *x, const char *name, uint64_t h)
{
    for (uint64_t i = 0; i <= x->mask; i++) {
        int v = atomic_load_explicit(&x->slot[(h + i) & x->mask], memory_order_acquire);
        if (!v)
            return -1;
        struct tp_op_rec *r = tp_op_rec(v - 1);
        if (r->hash == h && !strcmp(r->name, name))
            return v - 1;
    }
    return -1;
}

static void idx_put(struct opidx *x, uint64_t h, int v)
{
    for (uint64_t i = 0;; i++) {
        _Atomic int *slot = &x->slot[(h + i) & x->mask];
        if (!atomic_load_explicit(slot, memory_order_relaxed)) {
            atomic_store_explicit(slot, v, memory_order_release);
            return;
        }
    }
}

/* Room in the index for one more name (intern lock held): a copy twice the size, filled before
 * it is published. */
static int idx_room(int n)
{
    struct opidx *x = atomic_load(&index_);
    if ((uint64_t)(n + 1) <= (x->mask + 1) / 4 * 3)
        return 0;
    struct opidx *y = idx_new(2 * (x->mask + 1));
    if (!y)
        return -1;
    for (int i = 0; i < n; i++)
        idx_put(y, tp_op_rec(i)->hash, i + 1);
    atomic_store_explicit(&index_, y, memory_order_release);
    return 0;
}

uint64_t tp_ops_resident(void)
{
    uint64_t r = 0;
    int n = atomic_load(&tp_op_nrecs);
    for (int c = 0; c * TP_OPS_CHUNK < n; c++)
        r += tp_pages_resident(atomic_load(&tp_op_dir[c]), chunk_bytes);
    for (int i = 0; i < ngens; i++)
        r += idx_bytes(gens[i]->mask + 1);
    return r + (uint64_t)n * sizeof *tp_op_ptr; /* the names (short strings) are not counted */
}

/* Chunk c for id n (intern lock held), within the cap and the budget. */
static int chunk_room(int n)
{
    int c = n / TP_OPS_CHUNK;
    if (atomic_load_explicit(&tp_op_dir[c], memory_order_relaxed))
        return 0;
    struct tp_sites_state st;
    tp_sites_state(&st);
    /* the first chunk always: a program with ops has a few */
    if (c > 0 && tp_ops_resident() + st.resident + recs_bytes > st.budget) {
        limit = TP_OPS_BUDGET;
        return -1;
    }
    struct tp_op_rec *p = tp_pages_map(chunk_bytes, 1);
    if (!p) {
        limit = TP_OPS_NO_MEMORY;
        return -1;
    }
    atomic_store_explicit(&tp_op_dir[c], p, memory_order_release);
    return 0;
}

/* A name refused (intern lock held): counted once per name, the first few kept. Past half the
 * hashes' table, names are no longer told apart and the count becomes a lower bound. */
static void refuse(const char *name, uint64_t h)
{
    atomic_fetch_add(&tp_ops_dropped, 1);
    if (atomic_load(&nlost) >= LOST_SLOTS / 2 ||
        (!lost && !(lost = tp_pages_map(LOST_SLOTS * sizeof *lost, 0)))) {
        atomic_store(&lost_inexact, 1);
        return;
    }
    uint64_t key = h ? h : 1;
    for (uint64_t i = 0; i < LOST_SLOTS; i++) {
        uint64_t *s = &lost[(h + i) & (LOST_SLOTS - 1)];
        if (*s == key)
            return;
        if (!*s) {
            *s = key;
            uint64_t k = atomic_load(&nlost);
            if (k < TP_OPS_LOST_NAMES)
                lost_names[k] = tp_strdup(name);
            atomic_store_explicit(&nlost, k + 1, memory_order_release);
            return;
        }
    }
}

/* Op names and kinds live as long as the process, and in mapped pages like the records that
 * point to them: no allocation goes through the program's malloc, and a leak checker that scans
 * the heap but not these pages never takes them for leaks. Called under intern_lock. */
static char *arena_strdup(const char *str)
{
    enum { ARENA = 1 << 16 };
    static char *at, *end;
    size_t len = strlen(str) + 1;
    if (!at || (size_t)(end - at) < len) {
        size_t sz = len > ARENA ? len : ARENA;
        char *p = tp_pages_map(sz, 0);
        if (!p)
            return NULL;
        at = p;
        end = p + sz;
    }
    char *out = memcpy(at, str, len);
    at += len;
    return out;
}

static int insert(const char *name, const char *kind, enum tp_op_source src, uint64_t h)
{
    int n = atomic_load(&tp_op_nrecs);
    if (n >= tp_op_ids)
        limit = TP_OPS_MAX_OPS;
    /* full stays full, as the call-site table does: a refusal costs no look at the memory */
    if (limit != TP_OPS_GROWING || chunk_room(n) < 0 || idx_room(n) < 0) {
        if (limit == TP_OPS_GROWING)
            limit = TP_OPS_NO_MEMORY;
        refuse(name, h);
        return -1;
    }
    char *c = (char *)atomic_load(&tp_op_dir[n / TP_OPS_CHUNK]);
    int k = n % TP_OPS_CHUNK;
    struct tp_op_rec *r = (struct tp_op_rec *)c + k;
    r->name = arena_strdup(name);
    r->kind = arena_strdup(kind ? kind : "op");
    r->src = src;
    r->never_step = tp_lifeunit_never_step(name);
    r->hash = h;
    r->shapes = (struct tp_shape_rec *)(c + recs_bytes) + (size_t)k * TP_OPS_MAX_SHAPES;
    r->histo = tp_histo_at(c + recs_bytes + shapes_bytes + (size_t)k * histo_stride);
    if (!r->name || !r->kind)
        return -1;
    atomic_store_explicit(&tp_op_ptr[n], r, memory_order_release);
    atomic_store(&tp_op_nrecs, n + 1);
    idx_put(atomic_load(&index_), h, n + 1);
    return n;
}

_Atomic int tp_ops_plt_any;

int tp_op_intern(const char *name, const char *kind, enum tp_op_source src)
{
    if (!tp_op_ids || !name)
        return -1;
    uint64_t h = hash_name(name);
    int id = find(atomic_load_explicit(&index_, memory_order_acquire), name, h);
    if (id >= 0)
        return id;
    struct tp_own g = tp_own_begin();
    pthread_mutex_lock(&intern_lock);
    id = find(atomic_load(&index_), name, h);
    if (id < 0) {
        id = insert(name, kind, src, h);
        if (id >= 0 && src == TP_SRC_PLT)
            atomic_store_explicit(&tp_ops_plt_any, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&intern_lock);
    tp_own_end(g);
    return id;
}

int tp_ops_count(void)
{
    return atomic_load_explicit(&tp_op_nrecs, memory_order_acquire);
}

int tp_ops_id_limit(void)
{
    return tp_op_ids;
}

uint64_t tp_ops_budget(void)
{
    struct tp_sites_state st;
    tp_sites_state(&st);
    return st.budget;
}

void tp_ops_lost(struct tp_ops_lost *out)
{
    out->limit = (enum tp_ops_limit)atomic_load(&limit);
    out->lookups = atomic_load(&tp_ops_dropped);
    out->names = atomic_load_explicit(&nlost, memory_order_acquire);
    out->names_inexact = atomic_load(&lost_inexact);
    out->first = (const char *const *)lost_names;
    out->nfirst = (int)(out->names < TP_OPS_LOST_NAMES ? out->names : TP_OPS_LOST_NAMES);
    out->ops = atomic_load(&tp_op_nrecs);
}

void tp_ops_fork_prepare(void)
{
    pthread_mutex_lock(&intern_lock);
}

void tp_ops_fork_parent(void)
{
    pthread_mutex_unlock(&intern_lock);
}

/* The child reports its own work: every chunk's histograms start empty, their pages given back
 * (the records' counters are zeroed by the caller). */
void tp_ops_table_fork_child(void)
{
    pthread_mutex_init(&intern_lock, NULL);
    int n = atomic_load(&tp_op_nrecs);
    for (int c = 0; c * TP_OPS_CHUNK < n; c++) {
        char *p = (char *)atomic_load(&tp_op_dir[c]);
        tp_pages_zero(p + recs_bytes + shapes_bytes, chunk_bytes - recs_bytes - shapes_bytes);
        for (int i = c * TP_OPS_CHUNK; i < n && i < (c + 1) * TP_OPS_CHUNK; i++)
            tp_histo_at(tp_op_rec(i)->histo);
    }
}
