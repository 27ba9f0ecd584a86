/* Many call sites behind a deep shared stack, as bench/big_gen.py's program but smaller: main
 * calls 256 functions f_x, each calls 256 functions g_y through one pointer table, and g_y reaches
 * malloc through five more frames (h1..h5), so that at TPROF_STACK=8 each (x, y) is its own stack
 * [h5 h4 h3 h2 h1 g_y f_x main]: 65,536 sites, one allocation each of (x + y) % 64 + 16 bytes; all
 * but every 16th block (in the order made) freed before main returns. No stdio: nothing else
 * allocates once main runs. */
#include <stdlib.h>
#include <unistd.h>

#define N 256
static void *blocks[N * N];
static int nblocks;

#define REP16(M, p)                                                                                \
    M(p##0)                                                                                        \
    M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7) M(p##8) M(p##9) M(p##a) M(p##b)        \
        M(p##c) M(p##d) M(p##e) M(p##f)
#define REP256(M)                                                                                  \
    REP16(M, 0)                                                                                    \
    REP16(M, 1) REP16(M, 2) REP16(M, 3) REP16(M, 4) REP16(M, 5) REP16(M, 6) REP16(M, 7)            \
        REP16(M, 8) REP16(M, 9) REP16(M, a) REP16(M, b) REP16(M, c) REP16(M, d) REP16(M, e)        \
            REP16(M, f)
#define IDX(x) (0x##x) /* two hex digits: 0 to 255 */

static __attribute__((noinline)) void h5(size_t n)
{
    blocks[nblocks++] = malloc(n);
    __asm__ volatile("" ::: "memory");
}
#define DEF_H(k, next)                                                                             \
    static __attribute__((noinline)) void h##k(size_t n)                                           \
    {                                                                                              \
        h##next(n);                                                                                \
        __asm__ volatile("" ::: "memory");                                                         \
    }
DEF_H(4, 5)
DEF_H(3, 4)
DEF_H(2, 3)
DEF_H(1, 2)

#define DEF_G(x)                                                                                   \
    static __attribute__((noinline)) void g_##x(size_t n)                                          \
    {                                                                                              \
        h1(n);                                                                                     \
        __asm__ volatile("" ::: "memory");                                                         \
    }
REP256(DEF_G)
#define REF_G(x) g_##x,
static void (*const gs[N])(size_t) = {REP256(REF_G)};

#define DEF_F(x)                                                                                   \
    static __attribute__((noinline)) void f_##x(void)                                              \
    {                                                                                              \
        for (int y = 0; y < N; y++)                                                                \
            gs[y]((size_t)((IDX(x) + y) % 64 + 16));                                               \
        __asm__ volatile("" ::: "memory");                                                         \
    }
REP256(DEF_F)
#define REF_F(x) f_##x,
static void (*const fs[N])(void) = {REP256(REF_F)};

int main(void)
{
    for (int x = 0; x < N; x++)
        fs[x]();
    for (int k = 0; k < nblocks; k++)
        if (k % 16)
            free(blocks[k]);
    if (write(1, "done\n", 5) != 5)
        return 1;
    return 0;
}
