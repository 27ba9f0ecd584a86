/* Victim for the global peak with two threads (tests/heap_peak2.sh): the main thread and one
 * other take turns under a barrier, alone or both at once, so that the true peak is known
 * whatever the interleaving: a phase where both threads run only allocates or only frees, so its
 * largest live figure is at its end or its start. 300 rounds of blocks from 16 B to 300 KiB
 * (some of their own mapping), frees by the other thread included. At the end every block is
 * freed and the second thread is left waiting: what is live at exit besides (its thread's
 * DTV) was live at the peak too. It prints the peak in requested bytes and in usable sizes
 * (malloc_usable_size), with write(2): no stdout buffer of its own. The second thread's first
 * call is a free of a block the main thread made for it. With the argument "join" the second
 * thread ends before the report (tprof then counts it from its hooks only). */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 300
#define PER    40
static pthread_barrier_t bar;
static void *blk[2][2 * PER];
static size_t req[2], use[2]; /* each thread's live bytes, requested and usable */
static uint64_t seed[2] = {12345, 67890};

static size_t next_size(int t)
{
    seed[t] = seed[t] * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t r = seed[t] >> 33;
    return r % 97 == 0 ? 140000 + r % 160000 : 16 + r % 4000;
}

static size_t sizes[2][2 * PER];
static void take(int t, int i)
{
    size_t n = next_size(t);
    void *p = malloc(n);
    if (!p)
        exit(3);
    memset(p, t + 1, n < 64 ? n : 64);
    blk[t][i] = p;
    sizes[t][i] = n;
    req[t] += n;
    use[t] += malloc_usable_size(p);
}

static void give(int owner, int i)
{
    use[owner] -= malloc_usable_size(blk[owner][i]);
    req[owner] -= sizes[owner][i];
    free(blk[owner][i]);
    blk[owner][i] = NULL;
}

static size_t peak_req, peak_use;
/* Thread t's part of round r; both run it, the barriers keep the phases apart. */
static void round_of(int t, int r)
{
    int n0 = 1 + (r * 7) % PER; /* the first part: a varying number of blocks, at most PER */
    if (t == 0)
        for (int i = 0; i < n0; i++)
            take(0, i); /* main alone */
    pthread_barrier_wait(&bar);
    if (t == 1)
        for (int i = 0; i < n0; i++)
            take(1, i); /* the other alone */
    pthread_barrier_wait(&bar);
    for (int i = n0; i < n0 + PER; i++)
        take(t, i); /* both at once, only allocating */
    pthread_barrier_wait(&bar);
    if (t == 0 && req[0] + req[1] > peak_req)
        peak_req = req[0] + req[1]; /* the round's largest: the other thread waits */
    if (t == 0 && use[0] + use[1] > peak_use)
        peak_use = use[0] + use[1];
    if (t == 0)
        for (int i = 0; i < n0 + PER; i += 2)
            give(1, i); /* main frees half of the other's blocks */
    pthread_barrier_wait(&bar);
    for (int i = 0; i < n0 + PER; i++)
        if (blk[t][i])
            give(t, i); /* both at once, only freeing */
    pthread_barrier_wait(&bar);
}

static int joined; /* "join": the second thread ends before the report instead */
static void *other(void *arg)
{
    (void)arg;
    give(1, 0); /* this thread's first call is a free: it is still counted when it allocates */
    for (int r = 0; r < ROUNDS; r++)
        round_of(1, r);
    pthread_barrier_wait(&bar);
    while (!joined)
        pause(); /* still alive at exit */
    return NULL;
}

int main(int argc, char **argv)
{
    joined = argc > 1 && strcmp(argv[1], "join") == 0;
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t th;
    take(1, 0); /* for the other thread to free */
    if (pthread_create(&th, NULL, other, NULL) != 0)
        return 2;
    for (int r = 0; r < ROUNDS; r++)
        round_of(0, r);
    pthread_barrier_wait(&bar);
    if (joined && pthread_join(th, NULL) != 0)
        return 5;
    char line[128];
    int k = snprintf(line, sizeof line, "truth peak_req=%zu peak_use=%zu live=%zu\n", peak_req,
                     peak_use, req[0] + req[1]);
    if (write(1, line, (size_t)k) != k)
        return 4;
    return 0;
}
