/* More call sites than the first call-site index holds (3,072): 64 functions f_a each call 64
 * functions g_b through one pointer table, and g_b calls malloc, so every (a, b) is its own
 * stack: 4,096 sites, two allocations each of (a + b) % 97 + 1 bytes, the first of the two
 * freed. No stdio: nothing else allocates once main runs. With an argument T, T threads do the
 * same at once, from one barrier: they find the same 4,096 new stacks together while the table
 * grows (each site then has 2T allocations, T frees). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define N 64
static __thread void **blocks; /* 2 * N * N of this thread's */
static __thread int nblocks;
static volatile int reps = 2;

#define REP8(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7)
#define REP64(M)                                                                                   \
    REP8(M, 0) REP8(M, 1) REP8(M, 2) REP8(M, 3) REP8(M, 4) REP8(M, 5) REP8(M, 6) REP8(M, 7)
#define IDX(x) (0##x) /* two octal digits: 0 to 63 */

#define DEF_G(x)                                                                                   \
    static __attribute__((noinline)) void g_##x(size_t n)                                          \
    {                                                                                              \
        blocks[nblocks++] = malloc(n);                                                             \
        __asm__ volatile("" ::: "memory");                                                         \
    }
REP64(DEF_G)
#define REF_G(x) g_##x,
static void (*const gs[N])(size_t) = {REP64(REF_G)};

#define DEF_F(x)                                                                                   \
    static __attribute__((noinline)) void f_##x(void)                                              \
    {                                                                                              \
        for (int b = 0; b < N; b++)                                                                \
            gs[b]((size_t)((IDX(x) + b) % 97 + 1));                                                \
        __asm__ volatile("" ::: "memory");                                                         \
    }
REP64(DEF_F)
#define REF_F(x) f_##x,
static void (*const fs[N])(void) = {REP64(REF_F)};

static pthread_barrier_t start;

/* Every (a, b) twice, then the first of each pair freed. */
static void *run(void *threaded)
{
    void *mine[2 * N * N];
    blocks = mine;
    if (threaded)
        pthread_barrier_wait(&start);
    for (int rep = 0; rep < reps; rep++) /* a bound the compiler cannot unroll by */
        for (int a = 0; a < N; a++)
            fs[a]();
    for (int i = 0; i < N * N; i++)
        free(blocks[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 0;
    pthread_t th[16];
    if (threads < 1 || threads > 16) {
        run(NULL);
    } else {
        pthread_barrier_init(&start, NULL, (unsigned)threads);
        for (int t = 0; t < threads; t++)
            if (pthread_create(&th[t], NULL, run, &start) != 0)
                return 1;
        for (int t = 0; t < threads; t++)
            pthread_join(th[t], NULL);
    }
    if (write(1, "done\n", 5) != 5)
        return 1;
    return 0;
}
