/* OpenMP (libgomp) under tprof: 4 threads of a parallel for, each iteration allocating and freeing
 * a known size from work_item() and calling the instrumented op omp_block_forward; then a
 * reduction. The totals are exact whatever the schedule: 20,000 allocations of 64 + i % 256
 * bytes, 20,000 op calls, nothing live at exit. Built with -fopenmp -finstrument-functions. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEMS 20000

static double omp_block_forward(const float *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * 0.5;
    return s;
}

static double work_item(int i)
{
    size_t n = 64 + (size_t)(i % 256);
    float *p = malloc(n);
    if (!p)
        abort();
    memset(p, 0, n);
    p[0] = (float)i;
    double s = omp_block_forward(p, (int)(n / sizeof *p));
    free(p);
    return s;
}

int main(void)
{
    omp_set_num_threads(4);
    double total = 0;
#pragma omp parallel for reduction(+ : total) schedule(dynamic, 64)
    for (int i = 0; i < ITEMS; i++)
        total += work_item(i);
    printf("total %.1f threads %d\n", total, omp_get_max_threads());
    return 0;
}
