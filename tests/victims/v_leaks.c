/* A program whose only leaks are known, beside what system libraries keep: a thread started and
 * joined (the dynamic loader's DTV for it), optionally stdio output (its buffer) and libraries
 * loaded by name (their constructors' state), one 3 MiB leak from leak_me and, with "two", two
 * 1000-byte leaks from suppress_me.
 *
 * v_leaks [stdio] [two] [dlopen LIB]...: prints "dtv <bytes>" (the size of the started thread's
 * DTV as the loader allocated it, read back from the thread's TCB on x86-64, else 0), then "ok". */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEAK (3u << 20)

static size_t dtv_bytes;

static void *worker(void *arg)
{
#if defined(__x86_64__)
    /* tcbhead_t: the TCB pointer, then the DTV, which points one slot past its length slot. */
    void **tcb;
    __asm__ volatile("mov %%fs:0, %0" : "=r"(tcb));
    const size_t *dtv = tcb[1];
    dtv_bytes = (dtv[-2] + 2) * 2 * sizeof(void *);
#endif
    return arg;
}

void *leak_me(size_t n)
{
    char *p = malloc(n);
    if (p)
        p[0] = 1;
    return p;
}

void *suppress_me(size_t n)
{
    char *p = malloc(n);
    if (p)
        p[0] = 2;
    return p;
}

int main(int argc, char **argv)
{
    int use_stdio = 0;
    static void *keep[4];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "stdio"))
            use_stdio = 1;
        else if (!strcmp(argv[i], "two"))
            for (int k = 1; k <= 2; k++)
                keep[k] = suppress_me(1000);
        else if (!strcmp(argv[i], "dlopen") && i + 1 < argc)
            (void)dlopen(argv[++i], RTLD_NOW);
    }
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
        return 2;
    keep[0] = leak_me(LEAK);
    char line[64];
    int n = snprintf(line, sizeof line, "dtv %zu\nok\n", dtv_bytes);
    if (use_stdio)
        return printf("%s", line) == n ? 0 : 1;
    return write(1, line, (size_t)n) == n ? 0 : 1;
}
