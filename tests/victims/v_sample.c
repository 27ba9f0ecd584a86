/* Victim with three sites whose truth is known (tests/heap_sample_gone.sh; written for the sampled
 * heap mode, whose reports tests/fixtures/sampled.json keeps), and the cases the global figures
 * must survive: blocks freed by another thread, realloc of growing and shrinking blocks, the
 * aligned family. It prints the truth it made, the global figures in the allocator's usable sizes
 * (malloc_usable_size), for the test to compare. */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t live, peak, nalloc, nfree, nbytes;

static void took(void *p, size_t n)
{
    if (!p)
        exit(3);
    memset(p, 1, n);
    live += malloc_usable_size(p);
    if (live > peak)
        peak = live;
    nalloc++;
    nbytes += n;
}

static void gave(void *p)
{
    live -= malloc_usable_size(p);
    nfree++;
    free(p);
}

#define NA 4000
#define NB 100000
#define NC 24
static void *a[NA], *c[NC];

/* 4,000 blocks of 1,000 bytes, all live at once (the peak), then freed. */
static void site_a(void)
{
    for (int i = 0; i < NA; i++)
        took(a[i] = malloc(1000), 1000);
}

/* 100,000 blocks of 40 bytes, each freed at once. */
static void site_b(void)
{
    for (int i = 0; i < NB; i++) {
        void *p = malloc(40);
        took(p, 40);
        gave(p);
    }
}

/* 24 blocks of 256 KiB, half of them leaked. */
static void site_c(void)
{
    for (int i = 0; i < NC; i++)
        took(c[i] = malloc(256 << 10), 256 << 10);
}

/* Blocks allocated here and freed by another thread: sampled and not, the worker cannot tell. */
#define NX 3000
static void *x[NX];
static void *freer(void *arg)
{
    (void)arg;
    for (int i = 0; i < NX; i++)
        free(x[i]); /* counted by the main thread: live is its own figure */
    return NULL;
}

static void cross_thread(void)
{
    for (int i = 0; i < NX; i++)
        took(x[i] = malloc(200 + (size_t)i % 300), 200 + (size_t)i % 300);
    for (int i = 0; i < NX; i++) {
        live -= malloc_usable_size(x[i]);
        nfree++;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, freer, NULL) || pthread_join(t, NULL))
        exit(4);
}

/* realloc across the mean, up and down, and the aligned family. */
static void realloc_aligned(void)
{
    for (int i = 0; i < 200; i++) {
        void *p = malloc(100);
        took(p, 100);
        size_t old = malloc_usable_size(p);
        void *q = realloc(p, 300 << 10);
        if (!q)
            exit(5);
        live -= old, nfree++;
        took(q, 300 << 10);
        old = malloc_usable_size(q);
        void *r = realloc(q, 64);
        if (!r)
            exit(5);
        live -= old, nfree++;
        took(r, 64);
        gave(r);
    }
    for (int i = 0; i < 300; i++) {
        void *p;
        if (posix_memalign(&p, 64, 5000) != 0)
            exit(6);
        took(p, 5000);
        void *q = aligned_alloc(4096, 8192);
        took(q, 8192);
        void *r = memalign(256, 777);
        took(r, 777);
        gave(p), gave(q), gave(r);
    }
}

int main(void)
{
    site_a();
    site_b();
    for (int i = 0; i < NA; i++)
        gave(a[i]);
    site_c();
    for (int i = 0; i < NC / 2; i++)
        gave(c[i]);
    cross_thread();
    realloc_aligned();
    printf("truth allocs=%llu frees=%llu bytes=%llu peak=%llu live=%llu\n",
           (unsigned long long)nalloc, (unsigned long long)nfree, (unsigned long long)nbytes,
           (unsigned long long)peak, (unsigned long long)live);
    return 0;
}
