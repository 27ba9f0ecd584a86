/* The main thread inside an op (an annotated region, "held") while a second thread sleeps
 * 200 ms outside every op; then the main thread leaves the op. Prints "ok". */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <tprof.h>

static void *sleeper(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 200000000};
    while (nanosleep(&ts, &ts) != 0) {
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    tprof_region_begin("held");
    if (pthread_create(&t, NULL, sleeper, NULL) != 0)
        return 1;
    pthread_join(t, NULL);
    tprof_region_end("held");
    puts("ok");
    return 0;
}
