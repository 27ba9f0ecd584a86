/* The annotation API: nested regions with FLOPs and bytes, step markers, and misuse (an end
 * without a begin, a NULL name, work outside any region). Builds and runs unchanged, as no-ops,
 * without tprof: its output is the same. `v_api active` prints whether tprof is loaded. */
#include <stdio.h>
#include <string.h>
#include <tprof.h>

static volatile double sink;

static void work(int n)
{
    for (int i = 0; i < n; i++)
        sink += i * 0.5;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "active")) {
        printf("active %d\n", tprof_active());
        return 0;
    }
    tprof_add_flops(123); /* no region open: dropped */
    tprof_region_end("never_begun");
    tprof_region_begin(NULL);
    tprof_region_end(NULL);
    for (int step = 0; step < 6; step++) {
        tprof_region_begin("attention");
        tprof_add_flops(1000);
        tprof_add_bytes(400);
        work(20000);
        tprof_region_begin("qk_matmul");
        tprof_add_flops(5000);
        work(50000);
        tprof_region_end("qk_matmul");
        tprof_region_end("attention");
        tprof_step();
    }
    printf("sum %.1f\n", (double)sink);
    return 0;
}
