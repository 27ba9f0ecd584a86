/* The call sites' frames as two prefix trees (track/sites/stacktrie.h).
 *
 * A new stack walks the inner tree from frames[0] as far as it has the frames (a of them) and
 * the outer tree from frames[n-1] (b of them). When a + b >= n the stack is made of nodes that
 * exist already. Otherwise the frames between, the gap, become new nodes: a gap of one frame goes
 * into both trees, so that whichever side later stacks share finds it (a program's f_i calling
 * many g_j: the first stack through f_i leaves it in the outer tree for the next ones); a longer
 * gap is split in the middle. (Of the splits tried on python3-torch's 447,360 stacks, this one
 * made the fewest nodes, 409,850; a gap of up to two frames in both trees, 470,607; every gap
 * split, 523,595; a gap all in one tree, 773,889 or 1,072,378.) A node costs 12 bytes and a slot
 * or two of the index that finds a node's children; a site costs the 8 bytes that name its two
 * nodes.
 *
 * Nodes are made under a lock, only when a site is new; they are written before the site that
 * names them is published, and never change, so reading a stack takes no lock. The index of
 * children is read only under the lock, so it is replaced when it grows, without successors. */
#include "common/config.h"
#include "common/pages.h"
#include "track/runtime.h"
#include "track/sites/stacktrie.h"

#include <pthread.h>
#include <stdatomic.h>

struct tp_trie_node *tp_trie_nodes_;
static uint32_t max_nodes;
static _Atomic uint32_t nnodes;
/* Keyed by (parent, return address): node number + 1 in the low TP_TRIE_ID_BITS (0 = empty), the
 * key's hash's low bits above, compared before the node is read. */
static uint32_t *kids;
static _Atomic uint64_t kid_slots;
static int kid_shift;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int ran_out; /* a node could not be made: the trees are full */
static TP_TLS int putting;  /* this thread is making nodes: a signal handler's malloc gets none */

/* When the trees cannot be mapped: the roots and the overflow site's one frame. */
static struct tp_trie_node fallback_nodes[3] = {
    [TP_TRIE_OVERFLOW] = {0, 0, TP_TRIE_INNER | 1u << TP_TRIE_ID_BITS}};

/* The last stack put, with the nodes of its paths: a program makes its new sites in bursts of
 * alike stacks (a loop, a module's import), and the frames a stack shares with the last one at
 * either end are found there without a probe of the index. Nodes never change: a path stays
 * right. Under the lock. */
static struct {
    uintptr_t f[TP_MAX_STACK];
    uint32_t in[TP_MAX_STACK + 1], out[TP_MAX_STACK + 1];
    int n, a, b; /* frames; depths of the paths in in[] and out[] */
} last;

#define KIDS_MIN_BITS 10

/* A node's key is hashed as its whole path from the root (each frame mixed into its parent's
 * hash): the slots of a stack's every depth are then known before any node is read, and a new
 * stack's walk asks for them all at once instead of one cache miss after another. */
#define SEED_INNER 0x243f6a8885a308d3ull
#define SEED_OUTER 0x13198a2e03707344ull
static inline uint64_t path_mix(uint64_t h, uintptr_t pc)
{
    h = (h ^ (uint64_t)pc) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

static inline uint32_t kid_tag(uint64_t h)
{
    return (uint32_t)h << TP_TRIE_ID_BITS; /* low bits: the slot is of the top ones */
}

/* The child of parent for frame pc, whose path hashes to h; 0 for none. */
static uint32_t find_kid(uint32_t parent, uintptr_t pc, uint64_t h)
{
    uint64_t mask = atomic_load_explicit(&kid_slots, memory_order_relaxed) - 1;
    for (uint64_t i = h >> kid_shift;; i = (i + 1) & mask) {
        uint32_t v = kids[i], id = (v & TP_TRIE_ID_MASK) - 1;
        if (!v)
            return 0; /* no root is anyone's child */
        if ((v & ~TP_TRIE_ID_MASK) == kid_tag(h) && tp_trie_pc(id) == pc &&
            tp_trie_parent(id) == parent)
            return id;
    }
}

static void put_kid(uint32_t *tab, int shift, uint64_t mask, uint32_t node, uint64_t h)
{
    uint64_t i = h >> shift;
    while (tab[i])
        i = (i + 1) & mask;
    tab[i] = kid_tag(h) | (node + 1);
}

/* Three quarters full: twice the slots, the nodes put in again, their path hashes worked out in
 * the order they were made (a parent is always older than its children) in a scratch array, the
 * old slots given back (nobody reads them without the lock). */
static int kids_grow(void)
{
    uint64_t slots = atomic_load_explicit(&kid_slots, memory_order_relaxed);
    uint32_t n = atomic_load_explicit(&nnodes, memory_order_relaxed);
    uint32_t *tab = tp_pages_map(sizeof *tab * 2 * slots, 0);
    uint64_t *h = tp_pages_map(sizeof *h * n, 0);
    if (!tab || !h) {
        if (tab)
            tp_pages_unmap(tab, sizeof *tab * 2 * slots);
        return -1;
    }
    h[TP_TRIE_INNER] = SEED_INNER;
    h[TP_TRIE_OUTER] = SEED_OUTER;
    for (uint32_t k = 3; k < n; k++) { /* 2: the overflow site's, never looked for */
        h[k] = path_mix(h[tp_trie_parent(k)], tp_trie_pc(k));
        put_kid(tab, kid_shift - 1, 2 * slots - 1, k, h[k]);
    }
    tp_pages_unmap(h, sizeof *h * n);
    tp_pages_unmap(kids, sizeof *kids * slots);
    kids = tab;
    kid_shift--;
    atomic_store_explicit(&kid_slots, 2 * slots, memory_order_relaxed);
    return 0;
}

static uint32_t add_kid(uint32_t parent, uintptr_t pc, int depth, uint64_t h)
{
    uint32_t n = atomic_load_explicit(&nnodes, memory_order_relaxed);
    uint64_t slots = atomic_load_explicit(&kid_slots, memory_order_relaxed);
    if (n >= max_nodes || ((uint64_t)(n - 2) * 4 >= slots * 3 && kids_grow() < 0 &&
                           (uint64_t)(n - 2) * 16 >= slots * 15)) {
        atomic_store_explicit(&ran_out, 1, memory_order_relaxed);
        return 0;
    }
    tp_trie_nodes_[n] = (struct tp_trie_node){(uint32_t)pc, (uint32_t)((uint64_t)pc >> 32),
                                              parent | (uint32_t)depth << TP_TRIE_ID_BITS};
    atomic_store_explicit(&nnodes, n + 1, memory_order_relaxed);
    put_kid(kids, kid_shift, atomic_load_explicit(&kid_slots, memory_order_relaxed) - 1, n, h);
    return n;
}

int tp_trie_init(uint32_t max)
{
    if (max > TP_TRIE_MAX_NODES)
        max = TP_TRIE_MAX_NODES;
    tp_trie_nodes_ = max >= 3 ? tp_pages_map(sizeof *tp_trie_nodes_ * max, 1) : NULL;
    kids = tp_pages_map(sizeof *kids << KIDS_MIN_BITS, 0);
    if (!tp_trie_nodes_ || !kids) {
        if (tp_trie_nodes_)
            tp_pages_unmap(tp_trie_nodes_, sizeof *tp_trie_nodes_ * max);
        if (kids)
            tp_pages_unmap(kids, sizeof *kids << KIDS_MIN_BITS);
        tp_trie_nodes_ = fallback_nodes;
        max_nodes = 3;
        atomic_store(&nnodes, 3);
        kids = NULL;
        atomic_store(&kid_slots, 0);
        return -1;
    }
    max_nodes = max;
    last.n = last.a = last.b = 0;
    atomic_store(&ran_out, 0);
    kid_shift = 64 - KIDS_MIN_BITS;
    atomic_store(&kid_slots, 1u << KIDS_MIN_BITS);
    /* The roots (depth 0), and the overflow site's stack: one frame, 0, in the inner tree. */
    tp_trie_nodes_[TP_TRIE_OVERFLOW].up = TP_TRIE_INNER | 1u << TP_TRIE_ID_BITS;
    atomic_store(&nnodes, 3);
    putting = 0;
    return 0;
}

/* Walk a tree along frames f[first], f[first + step], ... from path[d] (path[0] is the root, and
 * path[1..d] the nodes of the first d frames; h[k] the hash of the first k frames' path): the
 * nodes met go to path[d + 1..]; returns how many frames the tree has. */
static int walk(const uintptr_t *f, int first, int step, int n, uint32_t *path, int d,
                const uint64_t *h)
{
    while (d < n) {
        uint32_t c = find_kid(path[d], f[first + step * d], h[d + 1]);
        if (!c)
            break;
        path[++d] = c;
    }
    return d;
}

/* The path hashes of f[first], f[first + step], ... (n of them) from seed, each depth's slot
 * asked for at once. */
static void path_hashes(const uintptr_t *f, int first, int step, int n, uint64_t seed, uint64_t *h)
{
    h[0] = seed;
    for (int d = 0; d < n; d++) {
        h[d + 1] = path_mix(h[d], f[first + step * d]);
        __builtin_prefetch(&kids[h[d + 1] >> kid_shift]);
    }
}

/* The first d nodes of path that the last stack's path has for the same frames. */
static int from_last(const uintptr_t *f, int n, int inner, uint32_t *path)
{
    int d = 0, most = inner ? last.a : last.b;
    while (d < n && d < most &&
           (inner ? f[d] == last.f[d] : f[n - 1 - d] == last.f[last.n - 1 - d]))
        d++;
    const uint32_t *lp = inner ? last.in : last.out;
    for (int i = 1; i <= d; i++)
        path[i] = lp[i];
    path[0] = inner ? TP_TRIE_INNER : TP_TRIE_OUTER;
    return d;
}

static uint64_t put_locked(const uintptr_t *f, int n)
{
    uint32_t in[TP_MAX_STACK + 1], out[TP_MAX_STACK + 1];
    uint64_t hin[TP_MAX_STACK + 1], hout[TP_MAX_STACK + 1];
    path_hashes(f, n - 1, -1, n, SEED_OUTER, hout);
    path_hashes(f, 0, 1, n, SEED_INNER, hin);
    /* the outer tree first, then the inner one only as far as the outer one leaves: a stack
     * made of nodes that exist costs n probes at most */
    int b = walk(f, n - 1, -1, n, out, from_last(f, n, 0, out), hout);
    int a = walk(f, 0, 1, n - b, in, from_last(f, n - b, 1, in), hin);
    if (a + b < n) {
        int lo = a, hi = n - b, gap = hi - lo;
        /* the inner tree takes frames [a, in_to), the outer one [out_from, n - b) */
        int in_to = gap == 1 ? hi : lo + (gap + 1) / 2, out_from = gap == 1 ? lo : in_to;
        for (; a < in_to; a++)
            if (!(in[a + 1] = add_kid(in[a], f[a], a + 1, hin[a + 1])))
                return 0;
        for (; n - b > out_from; b++)
            if (!(out[b + 1] = add_kid(out[b], f[n - 1 - b], b + 1, hout[b + 1])))
                return 0;
    }
    for (int i = 0; i < n; i++)
        last.f[i] = f[i];
    for (int i = 0; i <= a; i++)
        last.in[i] = in[i];
    for (int i = 0; i <= b; i++)
        last.out[i] = out[i];
    last.n = n;
    last.a = a;
    last.b = b;
    return tp_trie_ref(in[a], out[n - a]);
}

uint64_t tp_trie_put(const uintptr_t *f, int n)
{
    if (putting || !kids || n < 1 || n > TP_MAX_STACK)
        return 0;
    putting = 1;
    pthread_mutex_lock(&lock);
    uint64_t ref = put_locked(f, n);
    pthread_mutex_unlock(&lock);
    putting = 0;
    return ref;
}

int tp_trie_read(uint64_t ref, uintptr_t *outf)
{
    uint32_t in = (uint32_t)ref, out = (uint32_t)(ref >> 32);
    int k = tp_trie_depth(in), n = k + tp_trie_depth(out);
    for (int i = k - 1; i >= 0; i--, in = tp_trie_parent(in))
        outf[i] = tp_trie_pc(in);
    for (int i = k; i < n; i++, out = tp_trie_parent(out))
        outf[i] = tp_trie_pc(out);
    return n;
}

int tp_trie_full(void)
{
    return atomic_load_explicit(&ran_out, memory_order_relaxed);
}

uint32_t tp_trie_nodes(void)
{
    return atomic_load_explicit(&nnodes, memory_order_relaxed);
}

uint64_t tp_trie_resident(void)
{
    if (!kids)
        return 0;
    return (uint64_t)tp_trie_nodes() * sizeof *tp_trie_nodes_ +
           atomic_load_explicit(&kid_slots, memory_order_relaxed) * sizeof *kids;
}

void tp_trie_fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

void tp_trie_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

void tp_trie_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    putting = 0;
}
