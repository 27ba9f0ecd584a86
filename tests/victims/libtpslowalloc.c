/* Test helper, preloaded after libtprof.so (LD_PRELOAD=libtprof.so:libtpslowalloc.so): a slow
 * allocator below tprof. Its malloc and free call the next ones (glibc's) and then spin until
 * the calling thread has had TPSLOW_NS more nanoseconds of CPU (0 or unset: no spin), so that
 * every call costs a known amount of CPU however often the thread is preempted. While the
 * window is open (tpslow_window, asked by the victim through dlsym), each call's wall time and
 * CPU time are measured around the whole call and summed; at exit the sums go to TPSLOW_FILE as
 * "calls N\nwall_ns W\ncpu_ns C\n". The window keeps tprof's own start-up and report out. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);
static uint64_t spin_ns;
static _Atomic int window, resolving;
static _Atomic uint64_t calls, wall_ns, cpu_ns;
/* dlsym may allocate before the next functions are known: served from here, never freed */
static char boot[4096] __attribute__((aligned(16)));
static size_t boot_used;

static uint64_t now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int resolve(void)
{
    if (next_malloc)
        return 1;
    if (atomic_exchange(&resolving, 1))
        return 0;
    next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    const char *s = getenv("TPSLOW_NS");
    spin_ns = s ? strtoull(s, NULL, 10) : 0;
    return next_malloc != NULL;
}

static void spin(void)
{
    if (!spin_ns)
        return;
    uint64_t end = now(CLOCK_THREAD_CPUTIME_ID) + spin_ns;
    while (now(CLOCK_THREAD_CPUTIME_ID) < end) {
    }
}

static void count(uint64_t w0, uint64_t c0)
{
    atomic_fetch_add(&calls, 1);
    atomic_fetch_add(&wall_ns, now(CLOCK_MONOTONIC) - w0);
    atomic_fetch_add(&cpu_ns, now(CLOCK_THREAD_CPUTIME_ID) - c0);
}

void tpslow_window(int on)
{
    atomic_store(&window, on);
}

void *malloc(size_t n)
{
    if (!resolve()) {
        size_t at = (boot_used + 15) & ~(size_t)15;
        if (at + n > sizeof boot)
            return NULL;
        boot_used = at + n;
        return boot + at;
    }
    if (!atomic_load_explicit(&window, memory_order_relaxed)) {
        void *p = next_malloc(n);
        spin();
        return p;
    }
    uint64_t w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
    void *p = next_malloc(n);
    spin();
    count(w0, c0);
    return p;
}

void free(void *p)
{
    if (!p || ((char *)p >= boot && (char *)p < boot + sizeof boot))
        return;
    if (!resolve())
        return;
    if (!atomic_load_explicit(&window, memory_order_relaxed)) {
        next_free(p);
        spin();
        return;
    }
    uint64_t w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
    next_free(p);
    spin();
    count(w0, c0);
}

__attribute__((destructor)) static void report(void)
{
    const char *f = getenv("TPSLOW_FILE");
    if (!f)
        return;
    int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    char line[160];
    int n = snprintf(line, sizeof line, "calls %llu\nwall_ns %llu\ncpu_ns %llu\n",
                     (unsigned long long)atomic_load(&calls),
                     (unsigned long long)atomic_load(&wall_ns),
                     (unsigned long long)atomic_load(&cpu_ns));
    if (write(fd, line, (size_t)n) < 0) {
    }
    close(fd);
}
