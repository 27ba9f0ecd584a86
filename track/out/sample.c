/* CPU-time samples of the program counter (see track/out/out.h).
 *
 * ITIMER_PROF rather than a POSIX timer: its signal goes to the thread that was running when
 * the tick came (a process CPU-time timer_create() signal goes to the main thread on kernels
 * before 6.3, even when it sleeps in pthread_join), and a program that profiles itself with it
 * (gprof) simply takes it over. Unlike a POSIX timer it survives exec: every exec shim ends the
 * report first (tp_sample_stop), so only a raw execve system call would carry it over.
 *
 * The signal is new to the program, so its system calls could see EINTR. The handler is
 * installed with SA_RESTART, which restarts read, write, wait and the like; the calls that are
 * never restarted (poll, epoll_wait, nanosleep, sem_timedwait, ...) sleep, and a sleeping thread
 * uses no CPU time: the tick lands on the running thread, which is not in such a call. Only a
 * thread of a program that blocks SIGPROF in its running threads could pass it to a sleeping
 * one. TPROF_SAMPLE_HZ=0 turns sampling off.
 *
 * The handler touches nothing but atomics and this table: samples taken inside tprof (the guard
 * is set) are only counted; those inside an op (on this thread, or on a thread working for an op
 * another thread runs) go to that op's CPU and spin figures (track/ops/wait.c) and are counted per
 * op and address, so that the report names the functions each op's time ran in (its kernels:
 * ggml's mul_mat in ggml_vec_dot_f16, with no rebuild); the others are counted per address.
 * Addresses are named when a report is written. */
#include "track/out/out.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/pages.h"
#include "report/report.h"
#include "track/ops/ops.h"
#include "common/clock.h"
#include "track/runtime.h"
#include "track/sym/sym.h"

#define SLOT_BITS 14
#define NSLOTS    (1u << SLOT_BITS)
#define PROBES    32
#define TOP       10 /* functions kept in the report */

struct slot {
    _Atomic uintptr_t pc;
    _Atomic uint64_t n;
};

static struct slot *slots; /* mapped at start: the handler never allocates */
/* The samples inside ops, keyed by address << OP_BITS | (op id + 1); an op id or an address too
 * large for the key is counted in lost_in. */
#define OP_BITS 16
static struct slot *inslots;
static _Atomic uint64_t lost_in;
static _Atomic int active; /* our handler and timer are installed */
static _Atomic uint64_t total, in_ops, outside, outside_spin, lost, in_tprof;
/* The samples on threads other than the main one, and of those the ones outside every op: the
 * time outside every op counts those threads' time only as far as they did not work for an op
 * another thread ran (report/analyze/outside.c). */
static _Atomic uint64_t others, others_outside;
static TP_TLS int thread_role; /* 0 not known yet, 1 the main thread, 2 another */
/* libtprof.so's own code: a sample there is tprof's work (a hook, the counting of a demoted
 * op), never the program's, and is named as no program function. */
static uintptr_t own_lo, own_hi;
static int hz;
static int taken_over;         /* the program set SIGPROF's action itself while we sampled */
static struct sigaction saved; /* SIGPROF's action before ours */
static tp_sigaction_fn ksig;

static void on_prof(int sig, siginfo_t *si, void *ucv);

static uintptr_t pc_of(const void *ucv)
{
    const ucontext_t *uc = ucv;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

static void record(struct slot *table, uintptr_t pc, _Atomic uint64_t *lost_n)
{
    uint32_t h = (uint32_t)(((uint64_t)pc * 0x9E3779B97F4A7C15ull) >> (64 - SLOT_BITS));
    for (uint32_t i = 0; i < PROBES; i++) {
        struct slot *s = &table[(h + i) & (NSLOTS - 1)];
        uintptr_t k = atomic_load_explicit(&s->pc, memory_order_relaxed), expect = 0;
        if (k == 0 && (atomic_compare_exchange_strong(&s->pc, &expect, pc) || expect == pc))
            k = pc;
        if (k == pc) {
            atomic_fetch_add_explicit(&s->n, 1, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(lost_n, 1, memory_order_relaxed);
}

static void record_in_op(uintptr_t pc, int id1)
{
    if (inslots && id1 < (1 << OP_BITS) && pc < ((uintptr_t)1 << (64 - OP_BITS)))
        record(inslots, pc << OP_BITS | (uintptr_t)id1, &lost_in);
    else
        atomic_fetch_add_explicit(&lost_in, 1, memory_order_relaxed);
}

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    int e = errno;
    if (atomic_load_explicit(&active, memory_order_relaxed)) {
        uintptr_t pc = pc_of(ucv);
        atomic_fetch_add_explicit(&total, 1, memory_order_relaxed);
        if (pc >= own_lo && pc < own_hi) {
            atomic_fetch_add_explicit(&in_tprof, 1, memory_order_relaxed);
        } else if (!tp_guard &&
                   pc) { /* else tprof's own work: neither the program's ops nor others */
            enum tp_sample_class c = tp_wait_classify(pc);
            tp_wait_thread_sample(c);
            if (!thread_role) /* gettid and getpid are async-signal-safe */
                thread_role = (pid_t)syscall(SYS_gettid) == getpid() ? 1 : 2;
            int other = thread_role == 2;
            if (other)
                atomic_fetch_add_explicit(&others, 1, memory_order_relaxed);
            int id1 = tp_ops_on_sample((int)c);
            if (id1) {
                atomic_fetch_add_explicit(&in_ops, 1, memory_order_relaxed);
                record_in_op(pc, id1);
            } else {
                if (other)
                    atomic_fetch_add_explicit(&others_outside, 1, memory_order_relaxed);
                atomic_fetch_add_explicit(&outside, 1, memory_order_relaxed);
                if (c == TP_SAMPLE_SPIN)
                    atomic_fetch_add_explicit(&outside_spin, 1, memory_order_relaxed);
                record(slots, pc, &lost);
            }
        }
        /* The heap over time of a program with no op (and inside long ops): a tick is a point
         * that costs the allocator nothing (track/out/series.c). */
        tp_series_heap(tp_ops_current(), tp_ticks());
    }
    errno = e;
}

/* The executable segments of the module holding this function: libtprof.so's code. */
static int own_text(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t me = (uintptr_t)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo && me < hi) {
            own_lo = lo;
            own_hi = hi;
            return 1;
        }
    }
    return 0;
}

void tp_sample_start(int rate, tp_sigaction_fn ks)
{
    struct sigaction cur, sa;
    struct itimerval it;
    if (rate <= 0 || !ks || atomic_load(&active))
        return;
    if (ks(SIGPROF, NULL, &cur) < 0 || (cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
        return;
    if (getitimer(ITIMER_PROF, &it) < 0 || it.it_value.tv_sec || it.it_value.tv_usec)
        return;
    if (!slots && !(slots = tp_pages_map(sizeof(struct slot) * NSLOTS, 0)))
        return;
    if (!inslots) /* without it, the ops' samples are only counted */
        inslots = tp_pages_map(sizeof(struct slot) * NSLOTS, 0);
    if (!own_hi)
        dl_iterate_phdr(own_text, (void *)(uintptr_t)&own_text);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ksig = ks;
    saved = cur;
    hz = rate;
    atomic_store(&active, 1);
    if (ks(SIGPROF, &sa, NULL) < 0) {
        atomic_store(&active, 0);
        return;
    }
    long us = 1000000L / rate;
    it.it_interval.tv_sec = us / 1000000L;
    it.it_interval.tv_usec = us % 1000000L;
    it.it_value = it.it_interval;
    if (setitimer(ITIMER_PROF, &it, NULL) < 0) {
        ks(SIGPROF, &saved, NULL);
        atomic_store(&active, 0);
    }
}

void tp_sample_stop(void)
{
    struct sigaction cur;
    if (!atomic_exchange(&active, 0))
        return;
    int e = errno;
    if (ksig(SIGPROF, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
        cur.sa_sigaction == on_prof) {
        /* A tick generated before the timer stopped may still be pending (for the process, or
         * for this thread if it blocks SIGPROF; valgrind delivers late): under the program's
         * action, SIG_DFL, it would end the process. With SIGPROF blocked here, the timer
         * stopped and no tick to come, any pending one is taken before the action goes back. */
        sigset_t prof, was;
        struct itimerval off;
        struct timespec now = {0, 0};
        sigemptyset(&prof);
        sigaddset(&prof, SIGPROF);
        pthread_sigmask(SIG_BLOCK, &prof, &was);
        memset(&off, 0, sizeof off);
        setitimer(ITIMER_PROF, &off, NULL);
        while (sigtimedwait(&prof, NULL, &now) == SIGPROF)
            ;
        ksig(SIGPROF, &saved, NULL);
        pthread_sigmask(SIG_SETMASK, &was, NULL);
    } else {
        taken_over = 1;
    }
    errno = e;
}

void tp_sample_yield(void)
{
    if (atomic_load(&active)) {
        tp_sample_stop();
        taken_over = 1;
    }
}

uint64_t tp_sample_period_ns(void)
{
    return hz > 0 ? 1000000000ull / (uint64_t)hz : 0;
}

int tp_sample_view(struct sigaction *old)
{
    if (!atomic_load(&active))
        return 0;
    *old = saved;
    return 1;
}

void tp_sample_fork_child(void)
{
    atomic_store(&total, 0);
    atomic_store(&in_ops, 0);
    atomic_store(&others, 0);
    atomic_store(&others_outside, 0);
    thread_role = 0; /* the forking thread is the child's main thread */
    atomic_store(&outside, 0);
    atomic_store(&outside_spin, 0);
    atomic_store(&in_tprof, 0);
    atomic_store(&lost, 0);
    atomic_store(&lost_in, 0);
    if (slots)
        tp_pages_zero(slots,
                      sizeof(struct slot) * NSLOTS); /* a child that only execs touches none */
    if (inslots)
        tp_pages_zero(inslots, sizeof(struct slot) * NSLOTS);
    if (atomic_exchange(&active, 0)) {
        struct sigaction cur;
        if (ksig(SIGPROF, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
            cur.sa_sigaction == on_prof)
            ksig(SIGPROF, &saved, NULL);
    }
    hz = 0;
}

/* One sampled function: the first address of its symbol (or of its module when no symbol
 * covers the samples), an address in it and its samples. */
struct fn {
    uintptr_t key, pc;
    uint64_t n;
};

static int by_key(const void *a, const void *b)
{
    const struct fn *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int by_count(const void *a, const void *b)
{
    const struct fn *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* The sampled addresses, one entry per address with the first address of its function (or of
 * its module when no symbol covers it), sorted by function: *count entries. */
static struct fn *addresses(size_t *count)
{
    size_t k = 0;
    *count = 0;
    for (uint32_t i = 0; i < NSLOTS; i++)
        k += atomic_load(&slots[i].n) != 0;
    struct fn *f = k ? calloc(k, sizeof *f) : NULL;
    if (!f)
        return NULL;
    size_t m = 0;
    for (uint32_t i = 0; i < NSLOTS && m < k; i++) {
        uint64_t n = atomic_load(&slots[i].n);
        uintptr_t pc = atomic_load(&slots[i].pc), start = 0, bias, lo = 0, hi;
        char name[8];
        char path[8];
        if (!n)
            continue;
        if (tp_symtab_lookup(pc, name, sizeof name, &start) < 0) {
            start = 0;
            if (tp_symtab_module(pc, path, sizeof path, &bias, &lo, &hi) == 0)
                start = lo;
        }
        f[m++] = (struct fn){start, pc, n};
    }
    qsort(f, m, sizeof *f, by_key);
    *count = m;
    return f;
}

/* The addresses a[0..n) put together per function, most samples first. *count entries. */
static struct fn *functions(const struct fn *a, size_t n, size_t *count)
{
    struct fn *f = n ? calloc(n, sizeof *f) : NULL;
    size_t w = 0;
    for (size_t i = 0; f && i < n; i++) {
        if (w && f[w - 1].key == a[i].key)
            f[w - 1].n += a[i].n;
        else
            f[w++] = a[i];
    }
    if (f)
        qsort(f, w, sizeof *f, by_count);
    *count = w;
    return f;
}

/* Describe function f from its addresses among a[0..n) (sorted by function). */
static void describe(const struct fn *f, const struct fn *a, size_t n, struct tp_outside_fn *o)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].key < f->key)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < n && a[end].key == f->key)
        end++;
    struct tp_sampled_pc *pcs = calloc(end > lo ? end - lo : 1, sizeof *pcs);
    if (!pcs)
        return;
    size_t k = 0;
    for (size_t i = lo; i < end; i++)
        pcs[k++] = (struct tp_sampled_pc){a[i].pc, a[i].n};
    if (!k)
        pcs[k++] = (struct tp_sampled_pc){f->pc, f->n};
    tp_outside_describe(o, pcs, k);
    free(pcs);
}

/* One function an op's samples landed in. */
struct opfn {
    int id;
    uintptr_t start, pc; /* its first address (0: none known), one sampled address in it */
    uint64_t n;
};

static int by_op_fn(const void *a, const void *b)
{
    const struct opfn *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int by_op_count(const void *a, const void *b)
{
    const struct opfn *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The function at pc by the symbol tables, demangled; its module's name in brackets when no
 * symbol covers it. */
static char *function_name(uintptr_t pc)
{
    char raw[512], name[600], path[512];
    uintptr_t start = 0, bias, lo, hi;
    if (tp_symtab_lookup(pc, raw, sizeof raw, &start) == 0) {
        tp_symtab_demangle(raw, name, sizeof name);
        return strdup(name);
    }
    if (tp_symtab_module(pc, path, sizeof path, &bias, &lo, &hi) == 0) {
        const char *base = strrchr(path, '/');
        snprintf(name, sizeof name, "[%s]", base ? base + 1 : path);
        return strdup(name);
    }
    return strdup("[unknown]");
}

/* The report's op of op id, by name (the report's ops are those with calls, in any order). */
static struct tp_op *report_op(struct tp_report *r, int id)
{
    const char *name = tp_ops_name(id);
    for (size_t i = 0; name && i < r->nops; i++)
        if (r->ops[i].name && !strcmp(r->ops[i].name, name))
            return &r->ops[i];
    return NULL;
}

/* Each op's kernels: its samples per function, the TP_KERNELS with the most. */
static void collect_kernels(struct tp_report *r)
{
    size_t k = 0;
    for (uint32_t i = 0; i < NSLOTS; i++)
        k += atomic_load(&inslots[i].n) != 0;
    struct opfn *f = k ? calloc(k, sizeof *f) : NULL;
    if (!f)
        return;
    size_t m = 0;
    for (uint32_t i = 0; i < NSLOTS && m < k; i++) {
        uint64_t n = atomic_load(&inslots[i].n);
        uintptr_t key = atomic_load(&inslots[i].pc), pc = key >> OP_BITS, start = 0, bias, lo = 0,
                  hi;
        char name[8], path[8];
        if (!n)
            continue;
        if (tp_symtab_lookup(pc, name, sizeof name, &start) < 0) {
            start = 0;
            if (tp_symtab_module(pc, path, sizeof path, &bias, &lo, &hi) == 0)
                start = lo; /* the module's samples with no symbol, together */
        }
        f[m++] = (struct opfn){(int)(key & ((1u << OP_BITS) - 1)) - 1, start, pc, n};
    }
    qsort(f, m, sizeof *f, by_op_fn);
    size_t w = 0;
    for (size_t i = 0; i < m; i++) {
        if (w && f[w - 1].id == f[i].id && f[w - 1].start == f[i].start && f[i].start)
            f[w - 1].n += f[i].n;
        else
            f[w++] = f[i];
    }
    qsort(f, w, sizeof *f, by_op_count);
    for (size_t i = 0; i < w;) {
        size_t end = i;
        uint64_t all = 0;
        while (end < w && f[end].id == f[i].id)
            all += f[end++].n;
        struct tp_op *o = report_op(r, f[i].id);
        size_t keep = end - i < TP_KERNELS ? end - i : TP_KERNELS;
        if (o && !o->kernels && (o->kernels = calloc(keep, sizeof *o->kernels))) {
            for (size_t j = 0; j < keep; j++) {
                struct tp_kernel *kn = &o->kernels[o->nkernels];
                kn->name = function_name(f[i + j].pc);
                if (!kn->name)
                    break;
                kn->samples = f[i + j].n;
                kn->share = (double)f[i + j].n / (double)all;
                o->nkernels++;
            }
        }
        i = end;
    }
    free(f);
}

void tp_sample_collect(struct tp_report *r)
{
    struct tp_samples *s = &r->samples;
    s->hz = (uint64_t)hz;
    s->total = atomic_load(&total);
    s->in_ops = atomic_load(&in_ops);
    s->outside_ops = atomic_load(&outside);
    s->other_threads = atomic_load(&others);
    s->other_threads_outside = atomic_load(&others_outside);
    free(s->method);
    s->method = hz ? strdup("the program counter every 1/hz s of CPU time (SIGPROF); a "
                            "function's share of the samples estimates its share of the CPU "
                            "time outside every op")
                   : NULL;
    s->outside_spin = atomic_load(&outside_spin);
    s->in_tprof = atomic_load(&in_tprof);
    if (taken_over)
        tp_report_note(r, "the program used SIGPROF itself: tprof's CPU-time samples of "
                          "where the time outside ops goes stopped there");
    if (inslots && s->in_ops)
        collect_kernels(r);
    if (atomic_load(&lost_in))
        tp_report_note(r,
                       "%llu CPU-time samples inside ops found no room in their table: their "
                       "ops' kernels leave them out",
                       (unsigned long long)atomic_load(&lost_in));
    if (!slots || !s->outside_ops)
        return;
    size_t na, n;
    struct fn *a = addresses(&na);
    struct fn *f = functions(a, na, &n);
    size_t keep = n < TOP ? n : TOP;
    r->outside_ops = keep ? calloc(keep, sizeof *r->outside_ops) : NULL;
    if (!r->outside_ops)
        keep = 0;
    for (size_t i = 0; i < keep; i++) {
        struct tp_outside_fn *o = &r->outside_ops[i];
        describe(&f[i], a, na, o);
        o->samples = f[i].n;
        o->share = (double)f[i].n / (double)s->outside_ops;
    }
    r->noutside_ops = keep;
    free(f);
    free(a);
    if (atomic_load(&lost))
        tp_report_note(r, "%llu CPU-time samples outside ops found no room in their table",
                       (unsigned long long)atomic_load(&lost));
}
