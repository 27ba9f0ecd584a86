/* Many distinct call sites: the same malloc reached through recursion depths 0 to 39, so each
 * depth is its own stack (with TPROF_STACK=64). 40 x 10 allocations of 100 bytes, half freed. */
#include <stdlib.h>
#include <unistd.h>

static void *blocks[400];
static int nblocks;

static void descend(int depth)
{
    if (depth > 0) {
        descend(depth - 1);
        __asm__ volatile("" ::: "memory"); /* not a tail call: each depth keeps its frame */
        return;
    }
    blocks[nblocks] = malloc(100);
    nblocks++;
}

int main(void)
{
    for (int rep = 0; rep < 10; rep++)
        for (int d = 0; d < 40; d++)
            descend(d);
    for (int i = 0; i < nblocks; i += 2)
        free(blocks[i]);
    if (write(1, "done\n", 5) != 5)
        return 1;
    return 0;
}
