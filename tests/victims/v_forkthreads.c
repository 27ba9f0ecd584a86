/* fork from a threaded program: a thread allocates without pause while main forks; each child
 * allocates, frees and exits. No deadlock, every child reports. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILDREN 20
static atomic_int stop;

void *busy_alloc(size_t n) { return malloc(n); }
void *child_alloc(size_t n) { return malloc(n); }

static void *spinner(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        free(busy_alloc(64));
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, spinner, NULL);
    int ok = 0;
    for (int i = 0; i < CHILDREN; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            void *p = child_alloc(3000);
            free(p);
            exit(7);
        }
        int st;
        waitpid(pid, &st, 0);
        ok += WIFEXITED(st) && WEXITSTATUS(st) == 7;
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("children ok %d\n", ok);
    return ok == CHILDREN ? 0 : 1;
}
