/* Per-thread CPU figures (track/steps/steps.h). */
#include "track/steps/steps.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/out/out.h"
#include "common/machine/machine.h"
#include "report/report.h"
#include "report/analyze/analyze.h"
#include "track/sym/sym.h"
#include "track/runtime.h"

/* Room for this many ended threads, one record each; past it a thread's figures are only added
 * to the sums (a pool restarted thousands of times must not grow tprof's memory). */
#define MAX_ENDED 1024

struct fig {
    int64_t tid;
    uint64_t wall_ns, cpu_ns, runq_ns, nvcsw, nivcsw, start_ticks;
    int sched; /* cpu_ns and runq_ns come from schedstat */
    char name[16];
};

static struct ended {
    _Atomic int ready;
    struct fig f;
} ended[MAX_ENDED];
static _Atomic uint32_t nended;
static _Atomic uint64_t lost_n, lost_cpu, lost_runq;
static _Atomic int no_schedstat; /* some thread's figures came without schedstat */

static TP_TLS uint64_t thread_start_ns;
TP_TLS uint64_t tp_cpu_ops_ticks, tp_cpu_hook_ticks;
static _Atomic uint64_t ops_ticks, hook_ticks; /* the threads' flushed shares */
/* Of ops_ticks, the main thread's: the time outside every op counts its sleep and no other
 * thread's (report/analyze/outside.c), so its share inside ops is kept apart. */
static _Atomic uint64_t main_ops_ticks;
static TP_TLS int thread_role; /* 0 not known yet, 1 the main thread, 2 another */
/* The CPU the thread that started tprof had used before (the dynamic linker, constructors): the
 * CPU figures cover the span of the wall time, from tprof's start. */
static int64_t base_tid;
static uint64_t base_cpu_ns, base_runq_ns, base_start_ticks;
static pthread_key_t end_key;
static int have_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* A small /proc file into buf, NUL-terminated; -1 when it cannot be read or is empty. */
static int read_text(const char *path, char *buf, size_t n)
{
    return tp_read_small(path, buf, n) > 0 ? 0 : -1;
}

static uint64_t ticks_ns(uint64_t ticks)
{
    long hz = sysconf(_SC_CLK_TCK);
    return ticks * (1000000000ull / (uint64_t)(hz > 0 ? hz : 100));
}

/* The figures of the task whose /proc directory is dir; -1 when it is gone. */
static int read_task(const char *dir, struct fig *f)
{
    char path[96], buf[4096];
    uint64_t cpu_ticks = 0;
    snprintf(path, sizeof path, "%s/stat", dir);
    if (read_text(path, buf, sizeof buf) < 0 ||
        tp_parse_stat_times(buf, &cpu_ticks, &f->start_ticks) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/schedstat", dir);
    f->sched = read_text(path, buf, sizeof buf) == 0 &&
               tp_parse_schedstat(buf, &f->cpu_ns, &f->runq_ns) == 0;
    if (!f->sched) {
        f->cpu_ns = ticks_ns(cpu_ticks);
        f->runq_ns = 0;
        atomic_store(&no_schedstat, 1);
    }
    snprintf(path, sizeof path, "%s/status", dir);
    if (read_text(path, buf, sizeof buf) == 0)
        (void)tp_parse_ctxt(buf, &f->nvcsw, &f->nivcsw);
    snprintf(path, sizeof path, "%s/comm", dir);
    if (read_text(path, f->name, sizeof f->name) == 0)
        f->name[strcspn(f->name, "\n")] = 0;
    return 0;
}

/* The key's destructor: the thread is ending; its figures, while the kernel still has them. */
static void thread_end(void *arg)
{
    (void)arg;
    struct tp_own g = tp_own_begin();
    tp_cpu_ops_flush();
    struct fig f = {0};
    char dir[64];
    f.tid = (int64_t)syscall(SYS_gettid);
    snprintf(dir, sizeof dir, "/proc/self/task/%lld", (long long)f.tid);
    if (read_task(dir, &f) == 0) {
        f.wall_ns = thread_start_ns ? tp_now_ns() - thread_start_ns : 0;
        uint32_t i = atomic_fetch_add(&nended, 1);
        if (i < MAX_ENDED) {
            ended[i].f = f;
            atomic_store_explicit(&ended[i].ready, 1, memory_order_release);
        } else {
            atomic_fetch_add(&lost_n, 1);
            atomic_fetch_add(&lost_cpu, f.cpu_ns);
            atomic_fetch_add(&lost_runq, f.runq_ns);
        }
    }
    tp_own_end(g);
}

void tp_cpu_ops_flush(void)
{
    if (!thread_role)
        thread_role = (pid_t)syscall(SYS_gettid) == getpid() ? 1 : 2;
    if (thread_role == 1)
        atomic_fetch_add_explicit(&main_ops_ticks, tp_cpu_ops_ticks, memory_order_relaxed);
    atomic_fetch_add_explicit(&ops_ticks, tp_cpu_ops_ticks, memory_order_relaxed);
    atomic_fetch_add_explicit(&hook_ticks, tp_cpu_hook_ticks, memory_order_relaxed);
    tp_cpu_ops_ticks = 0;
    tp_cpu_hook_ticks = 0;
}

static void make_key(void)
{
    have_key = pthread_key_create(&end_key, thread_end) == 0;
}

void tp_cpu_thread_begin(void)
{
    thread_start_ns = tp_now_ns();
    pthread_once(&key_once, make_key);
    if (have_key)
        (void)pthread_setspecific(end_key, (void *)1); /* any value but NULL: the destructor runs */
}

void tp_cpu_start(void)
{
    struct fig f = {0};
    char dir[64];
    base_tid = (int64_t)syscall(SYS_gettid);
    snprintf(dir, sizeof dir, "/proc/self/task/%lld", (long long)base_tid);
    if (read_task(dir, &f) == 0) {
        base_cpu_ns = f.cpu_ns;
        base_runq_ns = f.runq_ns;
        base_start_ticks = f.start_ticks;
    }
}

void tp_cpu_fork_child(void)
{
    thread_role = 0; /* the forking thread is the child's main thread */
    atomic_store(&main_ops_ticks, 0);
    base_tid = 0; /* the child's thread starts its CPU time at the fork, with the child's clock */
    for (uint32_t i = 0; i < MAX_ENDED; i++)
        atomic_store(&ended[i].ready, 0);
    atomic_store(&nended, 0);
    atomic_store(&lost_n, 0);
    atomic_store(&lost_cpu, 0);
    atomic_store(&lost_runq, 0);
    atomic_store(&ops_ticks, 0);
    atomic_store(&hook_ticks, 0);
    tp_cpu_ops_ticks = 0;
    tp_cpu_hook_ticks = 0;
}

/* ---- at the report ---- */

/* Was the task tid, started at start_ticks, among the ended records? (A thread id can be reused
 * by a later thread: the start time tells them apart.) */
static int in_ended(const struct tp_thread *t, size_t n, const uint64_t *starts, int64_t tid,
                    uint64_t start_ticks)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].exited && t[i].tid == tid && starts[i] == start_ticks)
            return 1;
    return 0;
}

static void fig_to_thread(const struct fig *f, int exited, struct tp_thread *t)
{
    t->tid = f->tid;
    t->name = f->name[0] ? strdup(f->name) : NULL;
    t->wall_ns = f->wall_ns;
    t->cpu_ns = f->cpu_ns;
    t->runq_ns = f->runq_ns;
    t->nvcsw = f->nvcsw;
    t->nivcsw = f->nivcsw;
    t->exited = exited;
}

/* Since when a live task has run: its start time (clock ticks after boot) against the boot
 * clock now, within the program's time (the main thread started before tprof loaded). */
static uint64_t live_wall(uint64_t start_ticks, uint64_t program_ns)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
        return program_ns;
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    uint64_t start = ticks_ns(start_ticks);
    uint64_t w = now > start ? now - start : 0;
    return w < program_ns ? w : program_ns;
}

/* Append the live tasks of /proc/self/task (not tprof's, not already ended) to t[*n], growing it
 * as needed; returns the array. */
static struct tp_thread *add_live(struct tp_thread *t, size_t *n, size_t *cap,
                                  const uint64_t *starts, size_t nended, uint64_t program_ns)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return t;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long long tid = strtoll(e->d_name, &end, 10);
        if (*end || tid <= 0 || tp_own_tid(tid))
            continue;
        struct fig f = {0};
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/self/task/%lld", tid);
        if (read_task(dir, &f) < 0 || in_ended(t, nended, starts, tid, f.start_ticks))
            continue;
        f.tid = tid;
        f.wall_ns = live_wall(f.start_ticks, program_ns);
        if (tid == base_tid && f.start_ticks == base_start_ticks) {
            f.cpu_ns = f.cpu_ns > base_cpu_ns ? f.cpu_ns - base_cpu_ns : 0;
            f.runq_ns = f.runq_ns > base_runq_ns ? f.runq_ns - base_runq_ns : 0;
        }
        if (*n == *cap) {
            size_t c = *cap ? 2 * *cap : 16;
            struct tp_thread *g = realloc(t, c * sizeof *g);
            if (!g)
                break;
            t = g;
            *cap = c;
        }
        memset(&t[*n], 0, sizeof t[*n]);
        fig_to_thread(&f, 0, &t[(*n)++]);
    }
    closedir(d);
    return t;
}

static int by_tid(const void *a, const void *b)
{
    const struct tp_thread *x = a, *y = b;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The CPUs the affinity mask allows, and the smallest cgroup v2 cpu.max on the way from the
 * process's cgroup up to the root (each level limits all below it). */
static void machine_cpus(struct tp_program *p)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        p->cpus_allowed = (uint64_t)CPU_COUNT(&set);
    double load[1];
    if (getloadavg(load, 1) == 1)
        p->load_avg = load[0];
    char buf[4096], path[4200];
    if (read_text("/proc/self/cgroup", buf, sizeof buf) < 0)
        return;
    char *cg = strstr(buf, "0::/"); /* the v2 line */
    if (!cg || (cg != buf && cg[-1] != '\n'))
        return;
    cg += 3;
    cg[strcspn(cg, "\n")] = 0;
    for (;;) {
        char line[128];
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", cg);
        double q = read_text(path, line, sizeof line) == 0 ? tp_parse_cpu_max(line) : 0;
        if (q > 0 && (p->cpu_quota == 0 || q < p->cpu_quota))
            p->cpu_quota = q;
        char *slash = strrchr(cg, '/');
        if (!slash || slash == cg)
            break;
        *slash = 0;
    }
}

static const char *const runtime_names[] = {"openblas", "openmp", "mkl"};

static int runtime_module(const struct tp_module *m, void *arg)
{
    unsigned *seen = arg;
    const char *k = m->name ? tp_thread_runtime(m->name) : NULL;
    for (unsigned i = 0; k && i < sizeof runtime_names / sizeof runtime_names[0]; i++)
        if (!strcmp(k, runtime_names[i]))
            *seen |= 1u << i;
    return 0;
}

/* The thread pools' runtimes loaded now, for the CPU verdict's advice: the setting of a runtime
 * the process does not load changes nothing (darknet was told of OPENBLAS_NUM_THREADS). */
static void thread_runtimes(struct tp_program *p)
{
    unsigned seen = 0;
    tp_modmap_each(runtime_module, &seen);
    char out[64] = "";
    for (unsigned i = 0; i < sizeof runtime_names / sizeof runtime_names[0]; i++)
        if (seen & (1u << i)) {
            size_t at = strlen(out);
            snprintf(out + at, sizeof out - at, "%s%s", at ? " " : "", runtime_names[i]);
        }
    free(p->thread_runtimes);
    p->thread_runtimes = strdup(out);
}

void tp_cpu_collect(struct tp_report *r)
{
    struct tp_program *p = &r->program;
    uint32_t k = atomic_load(&nended);
    size_t nend = k < MAX_ENDED ? k : MAX_ENDED, n = 0, cap = nend + 16;
    struct tp_thread *t = calloc(cap, sizeof *t);
    uint64_t *starts = calloc(nend ? nend : 1, sizeof *starts);
    if (!t || !starts) {
        free(t);
        free(starts);
        return;
    }
    for (size_t i = 0; i < nend; i++) {
        if (!atomic_load_explicit(&ended[i].ready, memory_order_acquire))
            continue; /* still being written: that thread is read live below */
        starts[n] = ended[i].f.start_ticks;
        fig_to_thread(&ended[i].f, 1, &t[n++]);
    }
    t = add_live(t, &n, &cap, starts, n, p->wall_ns);
    free(starts);
    qsort(t, n, sizeof *t, by_tid);
    p->cpu_ns = atomic_load(&lost_cpu);
    p->runq_ns = atomic_load(&lost_runq);
    for (size_t i = 0; i < n; i++) {
        p->cpu_ns += t[i].cpu_ns;
        p->runq_ns += t[i].runq_ns;
    }
    free(p->cpu_source);
    p->cpu_source = strdup(atomic_load(&no_schedstat) ? "stat" : "schedstat");
    if (atomic_load(&no_schedstat))
        p->runq_ns = 0;
    r->threads = t;
    r->nthreads = n;
    tp_cpu_ops_flush();
    uint64_t all = atomic_load(&ops_ticks), main = atomic_load(&main_ops_ticks);
    p->in_ops_ns = tp_ticks_to_ns(all);
    /* one tick-to-ns ratio for both (each conversion measures its own): the main thread's share
     * is never more than the sum */
    p->main_in_ops_ns =
        all ? (int64_t)((long double)p->in_ops_ns * (long double)main / (long double)all) : 0;
    p->hooks_ns = tp_ticks_to_ns(atomic_load(&hook_ticks));
    machine_cpus(p);
    thread_runtimes(p);
    uint64_t lost = atomic_load(&lost_n);
    /* program.threads (track/steps/threads.c) missed a thread that never allocated nor entered an op
     * and ended before the report while others were alive; threads[] lists it. Every thread
     * listed, or ended past the room, counts: program.threads is never fewer. */
    if ((uint64_t)n + lost > p->threads)
        p->threads = (uint64_t)n + lost;
    if (lost)
        tp_report_note(r,
                       "%llu threads ended past the room for %d in threads[]: their CPU and "
                       "run-queue figures are in the program's sums only",
                       (unsigned long long)lost, MAX_ENDED);
}
