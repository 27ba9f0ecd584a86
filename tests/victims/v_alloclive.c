/* A thread that makes N malloc/free pairs of 64 KiB (argv[1]) inside libtpslowalloc.so's counting
 * window, then stays blocked, alive when main returns and the report is written. Prints "ok". */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

static sem_t done, never;
static long n;

static void *worker(void *arg)
{
    (void)arg;
    for (long i = 0; i < n; i++) {
        void *volatile p = malloc(64 * 1024);
        free(p);
    }
    sem_post(&done);
    sem_wait(&never);
    return NULL;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 100;
    sem_init(&done, 0, 0);
    sem_init(&never, 0, 0);
    void (*win)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "tpslow_window");
    if (win)
        win(1);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    sem_wait(&done);
    if (win)
        win(0);
    puts("ok");
    return 0;
}
