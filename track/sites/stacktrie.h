/* The call sites' frames, shared between sites (track/sites/stacktrie.c): two prefix trees of return
 * addresses, one keyed from the frame that called the allocator (frames[0], the inner tree) and
 * one from the outermost frame kept (frames[n-1], the outer tree). A site's stack is a node of
 * each: the inner node's path from its root gives frames[0..k), the outer node's path frames
 * [k..n). Stacks share their inner part (allocator wrappers, a library's own frames) and their
 * outer part (main, a training loop), so a new site usually costs no node at all. */
#ifndef TPROF_STACKTRIE_H
#define TPROF_STACKTRIE_H

#include <stdint.h>

/* A node, 12 bytes: its return address (two halves, so that the node is one piece of memory
 * with no padding: reading a stack touches a line per node, not two), and its parent's number
 * with its depth (frames from its root) in the top bits. Numbers 0 and 1 are the two roots. */
#define TP_TRIE_ID_BITS   25
#define TP_TRIE_ID_MASK   ((1u << TP_TRIE_ID_BITS) - 1)
#define TP_TRIE_MAX_NODES (TP_TRIE_ID_MASK - 1)
#define TP_TRIE_INNER     0u
#define TP_TRIE_OUTER     1u
#define TP_TRIE_OVERFLOW  2u /* the overflow site's one frame, 0, in the inner tree */
struct tp_trie_node {
    uint32_t pc_lo, pc_hi, up;
};
extern struct tp_trie_node *tp_trie_nodes_;

static inline uintptr_t tp_trie_pc(uint32_t node)
{
    const struct tp_trie_node *x = &tp_trie_nodes_[node];
    return (uintptr_t)x->pc_lo | (uintptr_t)((uint64_t)x->pc_hi << 32);
}
static inline uint32_t tp_trie_parent(uint32_t node)
{
    return tp_trie_nodes_[node].up & TP_TRIE_ID_MASK;
}
static inline int tp_trie_depth(uint32_t node)
{
    return (int)(tp_trie_nodes_[node].up >> TP_TRIE_ID_BITS);
}

/* A stack as the two nodes: inner in the low half, outer in the high half. 0 is no stack (the
 * outer root is 1, so no stack of one frame or more packs to 0). */
static inline uint64_t tp_trie_ref(uint32_t inner, uint32_t outer)
{
    return inner | (uint64_t)outer << 32;
}
static inline int tp_trie_frames(uint64_t ref)
{
    return tp_trie_depth((uint32_t)ref) + tp_trie_depth((uint32_t)(ref >> 32));
}

/* Is stack ref the n frames f[]? Reads only nodes, which are written before the stack that
 * names them is published and never change: no lock. */
static inline int tp_trie_same(uint64_t ref, const uintptr_t *f, int n)
{
    uint32_t in = (uint32_t)ref, out = (uint32_t)(ref >> 32);
    int k = tp_trie_depth(in);
    if (k + tp_trie_depth(out) != n)
        return 0;
    for (int i = k - 1; i >= 0; i--, in = tp_trie_parent(in))
        if (tp_trie_pc(in) != f[i])
            return 0;
    for (int i = k; i < n; i++, out = tp_trie_parent(out))
        if (tp_trie_pc(out) != f[i])
            return 0;
    return 1;
}

/* The frames of stack ref into out[] (room for every frame); returns how many. */
int tp_trie_read(uint64_t ref, uintptr_t *out);

/* Map room for max_nodes nodes (reserved, touched as used). -1 when it cannot be mapped. */
int tp_trie_init(uint32_t max_nodes);
/* The stack of the n frames f[] (1 <= n <= TP_MAX_STACK), made of the nodes the trees already
 * have and as few new ones as it takes; 0 when the nodes have run out (or on a re-entry from a
 * signal handler while this thread makes nodes). Takes the trees' lock: only for a new site. */
uint64_t tp_trie_put(const uintptr_t *f, int n);
/* What the trees hold in memory: the nodes made and the index that finds a node's children. */
uint64_t tp_trie_resident(void);
uint32_t tp_trie_nodes(void);
/* Has a node been refused for want of room (the trees are full)? */
int tp_trie_full(void);
/* Across fork, the lock is held (so that a child never starts with the trees half changed). */
void tp_trie_fork_prepare(void);
void tp_trie_fork_parent(void);
void tp_trie_fork_child(void);

#endif
