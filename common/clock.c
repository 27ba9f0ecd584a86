#include "common/clock.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int tp_clock_use_tsc;
static int inited;
static uint64_t tsc0, ns0;

/* constant_tsc and nonstop_tsc in /proc/cpuinfo: the TSC ticks at one rate in every P- and
 * C-state. Read with read(2): this runs inside malloc at start-up, where stdio must not. */
static int tsc_invariant(void)
{
#if defined(__x86_64__)
    static char buf[16384];
    int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    return strstr(buf, " constant_tsc") && strstr(buf, " nonstop_tsc");
#else
    return 0;
#endif
}

static uint64_t read_tsc(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    return 0;
#endif
}

void tp_clock_init(void)
{
    if (inited)
        return;
    inited = 1;
    tp_clock_use_tsc = tsc_invariant();
    tsc0 = read_tsc();
    ns0 = tp_now_ns();
}

uint64_t tp_ticks_to_ns(uint64_t ticks)
{
    if (!tp_clock_use_tsc)
        return ticks;
    uint64_t t1 = read_tsc(), n1 = tp_now_ns();
    /* Too short a baseline for a good ratio: stretch it to 2 ms once. */
    if (n1 - ns0 < 2000000) {
        while (tp_now_ns() - ns0 < 2000000)
            ;
        t1 = read_tsc();
        n1 = tp_now_ns();
    }
    if (t1 <= tsc0)
        return ticks;
    return (uint64_t)((long double)ticks * (long double)(n1 - ns0) / (long double)(t1 - tsc0));
}

const char *tp_clock_name(void)
{
    return tp_clock_use_tsc ? "tsc" : "monotonic";
}
