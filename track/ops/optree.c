/* The op-stack table behind the op-time flame graph. Lock-free open addressing: a node's key
 * packs (parent + 1, op + 1), is claimed once by compare-and-swap and never removed, so a node's
 * index is stable and the frames of ops.c can keep it while the op runs. Ops open and close on
 * many threads at once (OpenMP regions, BLAS pools); the counters are atomics. This file only
 * records: naming the nodes' ops for the report is ops_collect.c's. */
#include "track/ops/ops.h"

#include "common/pages.h"
#include "track/runtime.h"

struct node {
    _Atomic uint64_t key; /* 0: free */
    _Atomic uint64_t calls, total, self, flops;
};

int tp_optree_on;
static struct node *nodes;
static uint32_t mask;
static uint32_t limit; /* nodes allowed: three quarters of the slots */
static _Atomic uint32_t used;
static _Atomic uint64_t dropped; /* calls under a full table */

void tp_optree_init(void)
{
    /* the HTML report draws the op-time flame graph too, and the pprof profile of op time is
     * these stacks */
    if (!tp_cfg.folded && !tp_cfg.html && !tp_cfg.pprof_time)
        return;
    /* Distinct op paths are few in practice (tens to a few thousand); 64 Ki slots take 2.5 MiB
     * of address space (40 bytes each), touched only where nodes land. */
    uint32_t slots = 1u << 16;
    void *p = tp_pages_map(slots * sizeof *nodes, 0);
    if (!p) {
        tp_warn("cannot map the op-stack table; no op-time stacks (TPROF_FOLDED, TPROF_HTML, "
                "TPROF_PPROF_TIME)");
        return;
    }
    nodes = p;
    mask = slots - 1;
    limit = slots / 4 * 3;
    tp_optree_on = 1;
}

void tp_optree_fork_child(void)
{
    if (!tp_optree_on)
        return;
    /* The child reports its own calls; nodes stay (open frames refer to them), counts restart. */
    for (uint32_t i = 0; i <= mask; i++) {
        atomic_store(&nodes[i].calls, 0);
        atomic_store(&nodes[i].total, 0);
        atomic_store(&nodes[i].self, 0);
        atomic_store(&nodes[i].flops, 0);
    }
    atomic_store(&dropped, 0);
}

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

int tp_optree_child(int parent, int id)
{
    if (parent == TP_OPTREE_FULL || id < 0)
        return TP_OPTREE_FULL;
    uint64_t key = ((uint64_t)(uint32_t)(parent + 1) << 32) | (uint32_t)(id + 1);
    for (uint32_t i = (uint32_t)mix(key) & mask, n = 0; n <= mask; i = (i + 1) & mask, n++) {
        uint64_t k = atomic_load_explicit(&nodes[i].key, memory_order_acquire);
        if (k == key)
            return (int)i;
        if (k == 0) {
            if (atomic_load_explicit(&used, memory_order_relaxed) >= limit)
                return TP_OPTREE_FULL;
            uint64_t zero = 0;
            if (atomic_compare_exchange_strong(&nodes[i].key, &zero, key)) {
                atomic_fetch_add(&used, 1);
                return (int)i;
            }
            if (zero == key)
                return (int)i;
        }
    }
    return TP_OPTREE_FULL;
}

void tp_optree_add(int node, uint64_t total, uint64_t self, uint64_t flops)
{
    if (node == TP_OPTREE_FULL) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        return;
    }
    if (node < 0 || (uint32_t)node > mask)
        return;
    struct node *n = &nodes[node];
    atomic_fetch_add_explicit(&n->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n->total, total, memory_order_relaxed);
    atomic_fetch_add_explicit(&n->self, self, memory_order_relaxed);
    if (flops)
        atomic_fetch_add_explicit(&n->flops, flops, memory_order_relaxed);
}

uint32_t tp_optree_slots(void)
{
    return tp_optree_on ? mask + 1 : 0;
}

/* A free slot reads as op -1 under parent -1 (a key of 0 unpacked), which ends a walk up. */
int tp_optree_read(uint32_t i, struct tp_optree_node *out)
{
    uint64_t key = atomic_load(&nodes[i].key);
    out->parent = (int)(key >> 32) - 1;
    out->op = (int)(key & 0xffffffffu) - 1;
    out->calls = atomic_load(&nodes[i].calls);
    out->total = atomic_load(&nodes[i].total);
    out->self = atomic_load(&nodes[i].self);
    out->flops = atomic_load(&nodes[i].flops);
    return key != 0;
}

uint64_t tp_optree_dropped(void)
{
    return atomic_load(&dropped);
}
