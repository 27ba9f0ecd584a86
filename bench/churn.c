/* Allocation churn with ML-like sizes, for measuring what an allocation profiler adds.
 *
 * Each thread keeps a working set of live blocks. One operation frees a random slot and allocates
 * a new block into it, then touches the block's first byte. Sizes are log-uniform between --min
 * and --max (default 64 B to 4 MiB: tensors, activations and small bookkeeping). The random
 * sequence is fixed (xorshift64, seeded per thread), so every run does the same work. stdout gets
 * one line, the operations done; time and memory are measured from outside.
 *
 *   churn [--ops N] [--threads T] [--live L] [--min BYTES] [--max BYTES] [--rss]
 *
 * --rss writes "peak_rss_kb N" on stderr as main's last act: the process's high-water mark while
 * the program ran, before any exit-time work of a preloaded profiler.
 *
 * With --ops 0 the working set is filled and freed only: `--live 1000000 --min 16 --max 64 --ops 0`
 * holds a million small blocks at once, for the profiler's memory per live block. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "churn_mix.h"

#define MAX_THREADS 64

static long n_ops = 2000000;
static long n_live = 1024;
static unsigned lg_min = 6, lg_max = 22; /* sizes in [2^lg_min, 2^lg_max) */

static char *fresh(uint64_t r)
{
    char *p = malloc(churn_size(r, lg_min, lg_max));
    if (!p) {
        fprintf(stderr, "churn: out of memory\n");
        exit(1);
    }
    p[0] = 1;
    return p;
}

static void *worker(void *arg)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(uintptr_t)arg;
    char **slot = calloc((size_t)n_live, sizeof *slot);
    if (!slot) {
        fprintf(stderr, "churn: out of memory\n");
        exit(1);
    }
    for (long k = 0; k < n_live; k++)
        slot[k] = fresh(churn_next(&s));
    for (long i = 0; i < n_ops; i++) {
        uint64_t r = churn_next(&s);
        size_t k = (size_t)(r % (uint64_t)n_live);
        free(slot[k]);
        slot[k] = fresh(churn_next(&s));
    }
    for (long k = 0; k < n_live; k++)
        free(slot[k]);
    free(slot);
    return NULL;
}

/* A whole non-negative number within [lo, hi], or exit with one line naming the flag. */
static long number(const char *flag, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "churn: %s %s: expected a whole number in [%ld, %ld]\n", flag, v, lo, hi);
        exit(2);
    }
    return x;
}

static unsigned log2_of(const char *flag, long bytes)
{
    unsigned e = 0;
    while (((long)1 << e) < bytes)
        e++;
    if (((long)1 << e) != bytes) {
        fprintf(stderr, "churn: %s %ld: expected a power of two\n", flag, bytes);
        exit(2);
    }
    return e;
}

int main(int argc, char **argv)
{
    long threads = 1;
    long lo = 64, hi = 4 << 20;
    int want_rss = 0;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (!strcmp(flag, "--rss")) {
            want_rss = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "churn: %s needs a value\n", flag);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(flag, "--ops"))
            n_ops = number(flag, v, 0, 1L << 40);
        else if (!strcmp(flag, "--threads"))
            threads = number(flag, v, 1, MAX_THREADS);
        else if (!strcmp(flag, "--live"))
            n_live = number(flag, v, 1, 1L << 30);
        else if (!strcmp(flag, "--min"))
            lo = number(flag, v, 1, 1L << 40);
        else if (!strcmp(flag, "--max"))
            hi = number(flag, v, 2, 1L << 40);
        else {
            fprintf(stderr, "churn: unknown flag %s (--ops --threads --live --min --max --rss)\n",
                    flag);
            return 2;
        }
    }
    lg_min = log2_of("--min", lo);
    lg_max = log2_of("--max", hi);
    if (lg_min >= lg_max) {
        fprintf(stderr, "churn: --min %ld must be below --max %ld\n", lo, hi);
        return 2;
    }

    pthread_t t[MAX_THREADS];
    for (long i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1))) {
            fprintf(stderr, "churn: cannot create thread %ld\n", i + 1);
            return 1;
        }
    for (long i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    printf("%ld operations\n", n_ops * threads);
    if (want_rss) {
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) == 0)
            fprintf(stderr, "peak_rss_kb %ld\n", ru.ru_maxrss);
    }
    return 0;
}
