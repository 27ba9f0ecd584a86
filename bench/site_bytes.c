/* What the call-site table holds for bench/big_gen.py's stacks ([h5 h4 h3 h2 h1 g_y f_x main],
 * N x N of them, fake addresses), found through the allocation path as under LD_PRELOAD, one
 * thread: bytes a site, part by part (tp_sites_bytes). Linked with the library's track/ layer.
 *   bench/site_bytes [N] [BUDGET]     default 1000 (10^6 sites), 64 MiB */
#include <stdio.h>
#include <stdlib.h>

#include "track/heap/heap.h"
#include "track/sites/sites.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    uint64_t budget = argc > 2 ? strtoull(argv[2], NULL, 0) : 64ull << 20;
    tp_heap_init(NULL, NULL);
    tp_sites_init(8, 0, budget, NULL);
    void *raw[8];
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++) {
            for (int k = 0; k < 5; k++)
                raw[k] = (void *)(0x1000 + (uintptr_t)k * 16);
            raw[5] = (void *)(0x200000 + (uintptr_t)y * 16);
            raw[6] = (void *)(0x400000 + (uintptr_t)x * 16);
            raw[7] = (void *)0x900;
            tp_heap_alloc((void *)(0x10000000 + ((uintptr_t)x * (uintptr_t)n + (uintptr_t)y) * 16),
                          16, NULL, raw, 8);
        }
    struct tp_sites_bytes b;
    struct tp_sites_state st;
    tp_sites_bytes(&b);
    tp_sites_state(&st);
    double s = b.sites ? b.sites : 1;
    printf("sites %u (dropped %llu, limit %d), budget %llu, nodes %u\n", b.sites,
           (unsigned long long)tp_sites_dropped(), (int)st.limit, (unsigned long long)st.budget,
           b.nodes);
    printf("records %.2f  stacks %.2f  hashes %.2f  index %.2f  trie %.2f  tally %.2f  "
           "= %.2f bytes a site (%llu bytes)\n",
           b.records / s, b.stacks / s, b.hashes / s, b.index / s, b.trie / s, b.tally / s,
           (double)st.resident / s, (unsigned long long)st.resident);
    return 0;
}
