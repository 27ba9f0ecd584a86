/* The annotation API: nested regions with FLOPs and bytes, step markers. Runs unchanged, as
 * no-ops, without tprof. */
#include <stdio.h>
#include <tprof.h>

static volatile double sink;

static void work(int n)
{
    for (int i = 0; i < n; i++)
        sink += i * 0.5;
}

int main(void)
{
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
    printf("active %d\n", tprof_active());
    return 0;
}
