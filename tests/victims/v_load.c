/* Load: 8 threads x 10^6 mixed operations — malloc, calloc, realloc, aligned allocations, and
 * frees of blocks allocated by another thread. Prints its own counts; the report must agree. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define SLOTS 64
#define MAILBOX 4096

static long ops_per_thread = 1000000;

struct mailbox {
    pthread_mutex_t lock;
    void *p[MAILBOX];
    int n;
};
static struct mailbox box[THREADS];
static long allocs[THREADS], frees[THREADS];

void *load_malloc(size_t n) { return malloc(n); }
void *load_calloc(size_t n) { return calloc(1, n); }
void *load_realloc(void *p, size_t n) { return realloc(p, n); }
void *load_aligned(size_t n) { void *p = NULL; return posix_memalign(&p, 64, n) ? NULL : p; }
void load_free(void *p) { free(p); }

/* Hand a block to the next thread, which frees it; returns 0 if its mailbox is full. */
static int post(int to, void *p)
{
    struct mailbox *b = &box[to];
    int ok = 0;
    pthread_mutex_lock(&b->lock);
    if (b->n < MAILBOX) {
        b->p[b->n++] = p;
        ok = 1;
    }
    pthread_mutex_unlock(&b->lock);
    return ok;
}

static void drain(int me)
{
    struct mailbox *b = &box[me];
    void *local[MAILBOX];
    pthread_mutex_lock(&b->lock);
    int n = b->n;
    memcpy(local, b->p, sizeof(void *) * (size_t)n);
    b->n = 0;
    pthread_mutex_unlock(&b->lock);
    for (int i = 0; i < n; i++) {
        load_free(local[i]);
        frees[me]++;
    }
}

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    void *slot[SLOTS] = {0};
    uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(me + 1);
    for (long i = 0; i < ops_per_thread; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int k = (int)(s % SLOTS);
        size_t n = 16 + (size_t)((s >> 20) % 4096);
        void *p = slot[k];
        switch ((s >> 40) % 5) {
        case 0: slot[k] = load_malloc(n); allocs[me]++; break;
        case 1: slot[k] = load_calloc(n); allocs[me]++; break;
        case 2: slot[k] = load_aligned(n); allocs[me]++; break;
        case 3: /* realloc: a free and an allocation when p exists, an allocation if not */
            slot[k] = load_realloc(p, n);
            allocs[me]++;
            if (p)
                frees[me]++;
            p = NULL;
            break;
        default: slot[k] = load_malloc(n); allocs[me]++; break;
        }
        if (p) {
            if (!post((me + 1) % THREADS, p)) {
                load_free(p);
                frees[me]++;
            }
        }
        if ((i & 255) == 0)
            drain(me);
    }
    for (int k = 0; k < SLOTS; k++)
        if (slot[k]) {
            load_free(slot[k]);
            frees[me]++;
        }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        ops_per_thread = atol(argv[1]);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_mutex_init(&box[i].lock, NULL);
    for (intptr_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        drain(i);
    long a = 0, f = 0;
    for (int i = 0; i < THREADS; i++) {
        a += allocs[i];
        f += frees[i];
    }
    printf("allocs %ld frees %ld\n", a, f);
    return 0;
}
