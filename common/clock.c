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

/* A TSC reading and a CLOCK_MONOTONIC reading taken at one moment: of three tries, the one whose
 * two TSC readings around clock_gettime are closest (an interrupt or a preemption between them
 * would skew the pair). *width: how many ticks apart those two readings were. */
static void clock_pair(uint64_t *tsc, uint64_t *ns, uint64_t *width)
{
    *width = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t a = read_tsc(), n = tp_now_ns(), b = read_tsc();
        if (b >= a && b - a < *width) {
            *width = b - a;
            *tsc = a + (b - a) / 2;
            *ns = n;
        }
    }
    if (*width == UINT64_MAX) { /* the TSC went back: no better pair than a plain one */
        *width = 0;
        *tsc = read_tsc();
        *ns = tp_now_ns();
    }
}

static uint64_t width0;

void tp_clock_init(void)
{
    if (inited)
        return;
    inited = 1;
    tp_clock_use_tsc = tsc_invariant();
    if (tp_clock_use_tsc)
        clock_pair(&tsc0, &ns0, &width0);
}

/* The ratio's error is at most the two pairs' widths over the baseline between them: a baseline
 * 1000 times their widths keeps it under 0.1%, which a process reaches in tens of microseconds.
 * Only a shorter one is stretched, and never past 2 ms (pairs that wide come from a machine too
 * busy for a better ratio). A fixed 2 ms stretch cost every short process 2 ms at exit: a script
 * that runs a thousand helpers, two seconds. */
#define RATIO_BASELINE_WIDTHS 1000
#define RATIO_MAX_STRETCH_NS  2000000

uint64_t tp_ticks_to_ns(uint64_t ticks)
{
    if (!tp_clock_use_tsc)
        return ticks;
    uint64_t t1, n1, width1;
    clock_pair(&t1, &n1, &width1);
    while (t1 > tsc0 && t1 - tsc0 < RATIO_BASELINE_WIDTHS * (width0 + width1) &&
           n1 - ns0 < RATIO_MAX_STRETCH_NS)
        clock_pair(&t1, &n1, &width1);
    if (t1 <= tsc0 || n1 <= ns0)
        return ticks;
    return (uint64_t)((long double)ticks * (long double)(n1 - ns0) / (long double)(t1 - tsc0));
}
