/* The conditions of a measurement of the machine's peaks, and the machine it was made on.
 *
 * A peak measured while other work held the CPUs is too low, and caching it makes every later
 * report wrong the same way (issue 27: the ridge point moved from 1.45 to 6-8 FLOP/byte with
 * the load). So each measuring thread times itself: its CPU time against its wall time
 * (CLOCK_THREAD_CPUTIME_ID) and the time it spent runnable but waiting for a CPU (the second
 * field of /proc/thread-self/schedstat). The identity of the machine (CPU model, kernel, the
 * CPUs this process may use, the load average) goes into the cache beside the figures, so that a
 * cache made on other hardware or with other CPUs is not used.
 *
 * Also the CPUs, cores and caches the measurements size themselves by. Everything here may run
 * in the profiled process at exit: no allocation (small files read with open/read into stack
 * buffers, sysfs cache sizes with stdio, as before). */
#include "report/peaks/peaks.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "common/clock.h"
#include "common/out/out.h"

void tp_calib_cond_init(struct tp_calib_cond *c)
{
    memset(c, 0, sizeof *c);
    c->oncpu = -1;
    c->runq = -1;
}

/* Reads a small /proc file into buf (NUL-terminated); its length, or -1. */
void tp_calib_tclock(struct tp_tclock *t)
{
    struct timespec ts;
    t->wall = tp_now_ns();
    t->cpu = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0
                 ? (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec
                 : 0;
    /* "on-CPU ns, run-queue delay ns, time slices": absent without CONFIG_SCHED_INFO */
    char buf[96];
    unsigned long long on = 0, wait = 0;
    t->has_runq = tp_read_small("/proc/thread-self/schedstat", buf, sizeof buf) > 0 &&
                  sscanf(buf, "%llu %llu", &on, &wait) == 2;
    t->runq = t->has_runq ? wait : 0;
}

void tp_calib_tclock_add(struct tp_tclock *sum, const struct tp_tclock *a,
                         const struct tp_tclock *b)
{
    sum->wall += b->wall >= a->wall ? b->wall - a->wall : 0;
    sum->cpu += b->cpu >= a->cpu ? b->cpu - a->cpu : 0;
    sum->runq += b->runq >= a->runq ? b->runq - a->runq : 0;
    sum->has_runq = sum->has_runq && a->has_runq && b->has_runq;
}

void tp_calib_cond_span(struct tp_calib_cond *c, const struct tp_tclock *a,
                        const struct tp_tclock *b)
{
    if (b->wall <= a->wall)
        return;
    double wall = (double)(b->wall - a->wall);
    double on = b->cpu >= a->cpu ? (double)(b->cpu - a->cpu) / wall : 0;
    tp_calib_cond_thread(
        c, on > 1 ? 1 : on,
        a->has_runq && b->has_runq && b->runq >= a->runq ? (double)(b->runq - a->runq) / wall : -1);
}

void tp_calib_cond_thread(struct tp_calib_cond *c, double oncpu, double runq)
{
    if (oncpu >= 0 && (c->oncpu < 0 || oncpu < c->oncpu))
        c->oncpu = oncpu;
    if (runq >= 0 && runq > c->runq)
        c->runq = runq > 1 ? 1 : runq;
}

void tp_calib_cond_merge(struct tp_calib_cond *into, const struct tp_calib_cond *c)
{
    tp_calib_cond_thread(into, c->oncpu, c->runq);
    if (c->threads > into->threads) {
        into->threads = c->threads;
        into->speedup = c->speedup;
    }
}

int tp_calib_quiet(const struct tp_calib_cond *c, char *why, size_t n)
{
    if (n)
        why[0] = 0;
    if (c->oncpu >= 0 && c->oncpu < TP_QUIET_ONCPU) {
        snprintf(why, n, "the measuring threads had %.0f%% of their CPUs", 100 * c->oncpu);
        return 0;
    }
    if (c->runq > TP_QUIET_RUNQ) {
        snprintf(why, n, "the measuring threads waited for a CPU %.0f%% of their time",
                 100 * c->runq);
        return 0;
    }
    if (c->threads > 1 && c->speedup > 0 && c->speedup < TP_QUIET_SPEEDUP) {
        snprintf(why, n, "%d threads ran only %.2f times as fast as one", c->threads, c->speedup);
        return 0;
    }
    return 1;
}

/* For the test suite only, never a setting: the tests cannot make a machine quiet, so the ones
 * that need a quiet (or a given busy) measurement say what share of their CPUs the measuring
 * threads had (negative: they say nothing). Their library tests/victims/libtpcalib.so, preloaded
 * before libtprof.so or into the tprof executable, defines it; weak and default-visibility so that
 * the dynamic linker binds it there (in the PIE executable too, through the GOT). No normal
 * process has a symbol of that name: the reference stays null and what was measured stands. */
extern double tprof_calib_oncpu(void) __attribute__((weak, visibility("default")));

/* The test suite's on-CPU share, when it gives one, replaces the measured one and clears the
 * other conditions: what it says is the whole of the measurement's conditions. */
int tp_calib_judge(struct tp_calib_cond *c, char *why, size_t n)
{
    double oncpu = tprof_calib_oncpu ? tprof_calib_oncpu() : -1;
    if (oncpu >= 0) {
        c->oncpu = oncpu;
        c->runq = -1;
        c->speedup = 0;
    }
    return tp_calib_quiet(c, why, n);
}

/* ---- the machine ---- */

void tp_calib_cpu_list(char *out, size_t n)
{
    cpu_set_t set;
    size_t len = 0;
    if (!n)
        return;
    out[0] = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        int w = last > c ? snprintf(out + len, n - len, "%s%d-%d", len ? "," : "", c, last)
                         : snprintf(out + len, n - len, "%s%d", len ? "," : "", c);
        if (w < 0 || (size_t)w >= n - len) {
            out[0] = 0; /* too many ranges for the buffer: unknown rather than cut */
            return;
        }
        len += (size_t)w;
        c = last;
    }
}

double tp_calib_loadavg(void)
{
    char buf[128];
    double l;
    return tp_read_small("/proc/loadavg", buf, sizeof buf) > 0 && sscanf(buf, "%lf", &l) == 1 ? l
                                                                                              : -1;
}

void tp_calib_kernel(char *out, size_t n)
{
    struct utsname u;
    if (n)
        snprintf(out, n, "%s", uname(&u) == 0 ? u.release : "");
}

int tp_calib_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < 4096 ? (int)n : 1;
}

/* A small sysfs number, read without stdio (no allocation: this runs in the profiled process). */
static long sysfs_long(const char *path)
{
    char buf[32];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0)
        return -1;
    buf[r] = 0;
    char *end;
    long v = strtol(buf, &end, 10);
    return end == buf ? -1 : v;
}

int tp_calib_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return tp_calib_cpus();
    enum { MAXC = CPU_SETSIZE };
    static long key[MAXC]; /* package << 32 | core of each core seen; the caller is one thread */
    int n = 0;
    for (int c = 0; c < MAXC; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        char p[96];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
        long pkg = sysfs_long(p);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/core_id", c);
        long core = sysfs_long(p);
        if (pkg < 0 || core < 0)
            return tp_calib_cpus(); /* no topology: every CPU counts as a core */
        long k = pkg << 32 | (core & 0xffffffff);
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = key[i] == k;
        if (!seen)
            key[n++] = k;
    }
    return n > 0 ? n : tp_calib_cpus();
}

size_t tp_calib_llc_bytes(void)
{
    size_t best = 0;
    for (int i = 0; i < 16; i++) {
        char path[128], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        if (fgets(buf, sizeof buf, f)) {
            unsigned long long v = 0;
            char unit = 0;
            if (sscanf(buf, "%llu%c", &v, &unit) >= 1) {
                if (unit == 'K')
                    v <<= 10;
                else if (unit == 'M')
                    v <<= 20;
                else if (unit == 'G')
                    v <<= 30;
                if (v > best)
                    best = (size_t)v;
            }
        }
        fclose(f);
    }
    return best;
}
