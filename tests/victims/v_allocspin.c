/* A main thread that makes N malloc/free pairs (argv[1]) while S other threads (argv[2]) spin,
 * alive the whole time, like an OpenMP pool's workers waiting for work. The pairs are made inside
 * libtpslowalloc.so's counting window when that library is loaded. Prints "ok". */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int stop;

static void *spin(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    int s = argc > 2 ? atoi(argv[2]) : 1;
    pthread_t t[8];
    if (s > 8)
        s = 8;
    for (int i = 0; i < s; i++)
        pthread_create(&t[i], NULL, spin, NULL);
    void (*win)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "tpslow_window");
    if (win)
        win(1);
    for (long i = 0; i < n; i++) {
        void *volatile p = malloc(48 + (size_t)(i & 15));
        free(p);
    }
    if (win)
        win(0);
    atomic_store(&stop, 1);
    for (int i = 0; i < s; i++)
        pthread_join(t[i], NULL);
    puts("ok");
    return 0;
}
