/* 4 threads x 250,000 malloc/free pairs: the totals must be exact under contention. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS 4
#define PAIRS 250000

static void *worker(void *arg)
{
    size_t base = (size_t)arg;
    for (int i = 0; i < PAIRS; i++) {
        char *p = malloc(base + (size_t)(i % 64));
        p[0] = 1;
        free(p);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (size_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(16 + i * 100));
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return write(1, "ok\n", 3) == 3 ? 0 : 1;
}
