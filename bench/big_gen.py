#!/usr/bin/env python3
"""Write the C sources of bench/big.sh's generated program: N x N distinct call sites (default
1000 x 1000 = 10^6) with a deep-library stack. main calls f_i (N functions in the executable),
each f_i calls every g_j (N functions in libbigsites.so) through one pointer table, and g_j
reaches malloc through five more library frames (h1..h5), so that at TPROF_STACK=8 every (i, j)
is its own stack: [h5 h4 h3 h2 h1 g_j f_i main]. The library's functions are static: an
exported one called from inside it would go through the PLT, which tprof hooks as an op. Each site allocates once, (i + j) % 64 + 16
bytes; all but every 16th block are freed before main returns. Prints the time main returns
(CLOCK_REALTIME, seconds) on stderr, for the report time."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
out = sys.argv[2] if len(sys.argv) > 2 else "."
with open(out + "/bigsites_lib.c", "w") as f:
    # static: calls inside the library are direct (an exported one would go through the PLT,
    # which tprof hooks as an op by default)
    f.write("#include <stdlib.h>\n#include <stddef.h>\n")
    f.write("void **big_blocks;\nlong big_nblocks;\n")
    f.write("__attribute__((noinline)) static void *h5(size_t n) { void *p = malloc(n); "
            "big_blocks[big_nblocks++] = p; return p; }\n")
    for k in range(4, 0, -1):
        f.write("__attribute__((noinline)) static void *h%d(size_t n) { void *p = h%d(n); "
                "__asm__ volatile(\"\" ::: \"memory\"); return p; }\n" % (k, k + 1))
    for j in range(n):
        f.write("__attribute__((noinline)) static void g_%d(size_t n) { h1(n); "
                "__asm__ volatile(\"\" ::: \"memory\"); }\n" % j)
    f.write("void (*const big_g[%d])(size_t) = {%s};\n" % (n, ",".join("g_%d" % j for j in range(n))))
with open(out + "/bigsites_main.c", "w") as f:
    f.write("""#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define N %d
extern void (*const big_g[N])(size_t);
extern void **big_blocks;
extern long big_nblocks;
""" % n)
    for i in range(n):
        f.write("__attribute__((noinline)) static void f_%d(void) { for (int j = 0; j < N; j++) "
                "big_g[j]((size_t)((%d + j) %% 64 + 16)); __asm__ volatile(\"\" ::: \"memory\"); }\n"
                % (i, i))
    f.write("static void (*const fs[N])(void) = {%s};\n" % ",".join("f_%d" % i for i in range(n)))
    f.write("""int main(void)
{
    big_blocks = calloc((size_t)N * N, sizeof *big_blocks);
    if (!big_blocks)
        return 1;
    for (int i = 0; i < N; i++)
        fs[i]();
    for (long k = 0; k < big_nblocks; k++)
        if (k % 16)
            free(big_blocks[k]);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(stderr, "main returns at %.6f\\n", (double)ts.tv_sec + ts.tv_nsec / 1e9);
    return 0;
}
""")
