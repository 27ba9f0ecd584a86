/* Four threads one after another, each ending at once: none allocates or enters an op, and no
 * two are alive together. Prints "ok". */
#include <pthread.h>
#include <stdio.h>

static void *nothing(void *arg)
{
    return arg;
}

int main(void)
{
    for (int i = 0; i < 4; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, nothing, NULL) != 0)
            return 1;
        pthread_join(t, NULL);
    }
    puts("ok");
    return 0;
}
