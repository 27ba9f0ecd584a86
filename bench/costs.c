/* What one malloc/free pair of bench/churn pays for each kind of work tprof's hot path does,
 * measured without tprof: the churn loop (1,024 live blocks, sizes 64 B - 4 MiB log-uniform, the
 * first byte touched) with, beside each malloc and each free,
 *
 *   native  nothing
 *   locked  three locked adds to a line of their own (tprof's global and per-site live counts and
 *           the table's claim or removal are locked instructions)
 *   plain   the same three adds as plain loads and stores
 *   table   a read-modify-write of the 16-byte slot that a hash of the block's address picks in a
 *           64 KiB table (tprof's live-block table at churn's size)
 *
 * The loop runs in a thread of its own, as churn's workers do (glibc gives it an arena of its own).
 * The modes run round-robin for --rounds rounds; the best time of each is printed as ns per pair
 * and as the difference to native. This is how bench/RESULTS.md says which of these the overhead
 * of TPROF_STACK=1 is made of (and which it is not).
 *
 *   costs [--ops N] [--rounds R] */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "churn_mix.h"

#define LIVE 1024
#define TABLE_SLOTS 4096
enum { NATIVE, LOCKED, PLAIN, TABLE, MODES };
static const char *const mode_name[MODES] = {"native", "locked", "plain", "table"};

static _Atomic uint64_t counters[3] __attribute__((aligned(64)));
static struct {
    uint64_t key, val;
} table[TABLE_SLOTS];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The work done beside one malloc or free of p, as the mode says. noinline: a call, as tprof's
 * shim makes one, and the compiler cannot merge the work into the loop. */
static __attribute__((noinline)) void beside(int mode, void *p, uint64_t n)
{
    switch (mode) {
    case LOCKED:
        for (int i = 0; i < 3; i++)
            atomic_fetch_add_explicit(&counters[i], n, memory_order_relaxed);
        break;
    case PLAIN:
        for (int i = 0; i < 3; i++)
            atomic_store_explicit(&counters[i],
                                  atomic_load_explicit(&counters[i], memory_order_relaxed) + n,
                                  memory_order_relaxed);
        break;
    case TABLE: {
        uint64_t h = ((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull) >> 52; /* 12 bits: 4,096 */
        table[h].key ^= (uintptr_t)p;
        table[h].val += n;
        break;
    }
    default:
        break;
    }
}

static double run(int mode, long ops)
{
    static char *slot[LIVE];
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < LIVE; k++) {
        size_t n = churn_size(churn_next(&s), 6, 22);
        slot[k] = malloc(n);
        if (!slot[k])
            return -1;
        slot[k][0] = 1;
    }
    double t0 = now();
    for (long i = 0; i < ops; i++) {
        size_t k = (size_t)(churn_next(&s) % LIVE);
        beside(mode, slot[k], 1);
        free(slot[k]);
        size_t n = churn_size(churn_next(&s), 6, 22);
        char *p = malloc(n);
        if (!p)
            return -1;
        beside(mode, p, n);
        p[0] = 1;
        slot[k] = p;
    }
    double t = now() - t0;
    for (int k = 0; k < LIVE; k++)
        free(slot[k]);
    return t / (double)ops * 1e9;
}

struct job {
    long ops, rounds;
    double best[MODES];
    int failed;
};

static void *worker(void *arg)
{
    struct job *j = arg;
    for (int m = 0; m < MODES; m++)
        j->best[m] = 1e30;
    for (long r = 0; r < j->rounds; r++)
        for (int m = 0; m < MODES; m++) {
            double ns = run(m, j->ops);
            if (ns < 0) {
                j->failed = 1;
                return NULL;
            }
            if (ns < j->best[m])
                j->best[m] = ns;
        }
    return NULL;
}

static long number(const char *flag, const char *v)
{
    char *end;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || x < 1 || x > 1000000000L) {
        fprintf(stderr, "costs: %s wants a whole number from 1 to 10^9, got '%s'\n", flag,
                v ? v : "");
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    long ops = 1000000, rounds = 7;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ops"))
            ops = number("--ops", i + 1 < argc ? argv[++i] : NULL);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = number("--rounds", i + 1 < argc ? argv[++i] : NULL);
        else {
            fprintf(stderr, "costs: unknown flag %s (--ops --rounds)\n", argv[i]);
            return 2;
        }
    }
    struct job job = {ops, rounds, {0}, 0};
    pthread_t t;
    if (pthread_create(&t, NULL, worker, &job) || pthread_join(t, NULL)) {
        fprintf(stderr, "costs: cannot run a thread\n");
        return 1;
    }
    if (job.failed) {
        fprintf(stderr, "costs: out of memory\n");
        return 1;
    }
    const double *best = job.best;
    printf("ns per malloc/free pair, best of %ld rounds of %ld pairs\n", rounds, ops);
    for (int m = 0; m < MODES; m++)
        printf("%-7s %7.1f  %+6.1f\n", mode_name[m], best[m], best[m] - best[NATIVE]);
    return 0;
}
