#include "common/clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

int tp_clock_use_tsc;
static int inited;
static uint64_t tsc0, ns0;

/* The invariant TSC bit (CPUID leaf 0x80000007, EDX bit 8): the TSC ticks at one rate in every
 * P- and C-state. It is what Linux shows as constant_tsc and nonstop_tsc in /proc/cpuinfo, asked
 * of the CPU directly: reading that file costs every process a system call and the kernel's text
 * for each core. */
static int tsc_invariant(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
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
