/* Threads that ran the program's code (track/steps/steps.h says how they are counted and why). */
#include "track/steps/steps.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

TP_TLS int tp_thread_counted;
static _Atomic uint64_t counted, proc_max;

/* No look at /proc here: this runs inside the allocation hook, where three system calls per new
 * thread would be paid for a figure the first op's and the report's looks already give. */
void tp_thread_first(void)
{
    tp_thread_counted = 1;
    atomic_fetch_add(&counted, 1);
}

/* "Threads:" of /proc/self/status, 0 when it cannot be read. */
static uint64_t proc_threads(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t n = 0;
    ssize_t k;
    while (n < sizeof buf - 1 && (k = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)k;
    close(fd);
    buf[n] = 0;
    const char *p = strstr(buf, "\nThreads:");
    if (!p)
        return 0;
    p += 9;
    while (*p == ' ' || *p == '\t')
        p++;
    uint64_t v = 0;
    while (*p >= '0' && *p <= '9')
        v = v * 10 + (uint64_t)(*p++ - '0');
    return v;
}

void tp_threads_sample(void)
{
    struct tp_own g = tp_own_begin(); /* the program's errno stays its own */
    uint64_t v = proc_threads();
    tp_own_end(g);
    uint64_t own = tp_own_threads();
    v = v > own ? v - own : 0;
    uint64_t m = atomic_load(&proc_max);
    while (v > m && !atomic_compare_exchange_weak(&proc_max, &m, v)) {
    }
}

uint64_t tp_threads_ran(void)
{
    tp_threads_sample();
    uint64_t c = atomic_load(&counted), m = atomic_load(&proc_max);
    return c > m ? c : m;
}

void tp_threads_fork_child(void)
{
    atomic_store(&counted, 1);
    atomic_store(&proc_max, 1);
    tp_thread_counted = 1;
    tp_own_threads_fork_child();
    tp_cpu_fork_child();
}
