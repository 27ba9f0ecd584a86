/* Waiting in hooked calls and spin samples, per op and per thread (track/ops/ops.h). */
#include "track/ops/ops.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "report/analyze/analyze.h"
#include "track/sym/sym.h"
#include "track/runtime.h"

/* Threads with a slot of figures; past that a thread's waits still go to its ops, and only its
 * own line in threads[] lacks them. A slot is claimed by a thread at its first wait or sample
 * (from the signal handler too: no key, no destructor) and kept for the report, ended or not, as
 * threads[] keeps the ended threads (track/steps/cpu.c). */
#define MAX_THREADS 1024
/* OpenMP runtimes' executable segments kept (one or two per runtime loaded). */
#define MAX_RANGES 8

static struct slot {
    _Atomic int64_t tid; /* 0 free */
    _Atomic uint64_t ticks, spin;
} slots[MAX_THREADS];

static TP_TLS struct slot *mine;
static TP_TLS int depth; /* inside a hooked waiting call */

static struct range {
    _Atomic uintptr_t lo, hi;
} ranges[MAX_RANGES];
static _Atomic int nranges;

/* This thread's slot, claimed on first use; NULL when the table is full. Async-signal-safe. */
static struct slot *my_slot(void)
{
    if (tp_likely(mine != NULL))
        return mine;
    int64_t tid = (int64_t)gettid();
    for (int i = 0; i < MAX_THREADS; i++) {
        int64_t expect = 0;
        if (atomic_load_explicit(&slots[i].tid, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&slots[i].tid, &expect, tid)) {
            mine = &slots[i];
            return mine;
        }
    }
    return NULL;
}

uint64_t tp_wait_enter(void)
{
    if (depth++ || tp_guard || tp_own_thread || !tp_running())
        return 0;
    return tp_ticks();
}

void tp_wait_leave(uint64_t t0, unsigned kind)
{
    depth--;
    if (!t0)
        return;
    int e = errno;
    uint64_t t = tp_ticks(), d = t > t0 ? t - t0 : 0;
    tp_ops_on_wait(d, kind);
    struct slot *s = my_slot();
    if (s)
        atomic_fetch_add_explicit(&s->ticks, d, memory_order_relaxed);
    errno = e;
}

enum tp_sample_class tp_wait_classify(uintptr_t pc)
{
    if (depth)
        return TP_SAMPLE_INWAIT;
    int n = atomic_load_explicit(&nranges, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (pc >= atomic_load_explicit(&ranges[i].lo, memory_order_relaxed) &&
            pc < atomic_load_explicit(&ranges[i].hi, memory_order_relaxed))
            return TP_SAMPLE_SPIN;
    return TP_SAMPLE_WORK;
}

void tp_wait_remap_modules(void)
{
    atomic_store(&nranges, 0);
    tp_wait_map_modules();
}

void tp_wait_thread_sample(enum tp_sample_class c)
{
    if (c != TP_SAMPLE_SPIN)
        return; /* an in-wait sample's time is already the hooked call's */
    struct slot *s = my_slot();
    if (s)
        atomic_fetch_add_explicit(&s->spin, 1, memory_order_relaxed);
}

/* The range [lo, hi) added unless already there: 1 when the table is full. Ranges are only ever
 * added: the handler reads a count and the ranges below it, each written before the count that
 * covers it. */
static int add_range(uintptr_t lo, uintptr_t hi)
{
    int n = atomic_load(&nranges);
    for (int i = 0; i < n; i++)
        if (atomic_load(&ranges[i].lo) == lo && atomic_load(&ranges[i].hi) == hi)
            return 0;
    if (n >= MAX_RANGES)
        return 1;
    atomic_store(&ranges[n].lo, lo);
    atomic_store(&ranges[n].hi, hi);
    atomic_store_explicit(&nranges, n + 1, memory_order_release);
    return 0;
}

/* A runtime's segment (an OpenMP runtime's code is all waiting and scheduling). */
static int add_segment(const struct tp_code_segment *s, void *arg)
{
    (void)arg;
    return s->name && tp_spin_module(s->name) ? add_range(s->lo, s->hi) : 0;
}

/* A spin function a module exports (ggml_barrier), by its symbol's value and size. */
static int add_functions(const struct tp_module *m, void *arg)
{
    (void)arg;
    const char *name;
    uintptr_t lo, hi;
    for (size_t i = 0; (name = tp_spin_function(i)) != NULL; i++)
        if (tp_modmap_function(m, name, &lo, &hi) == 0 && add_range(lo, hi))
            return 1;
    return 0;
}

void tp_wait_map_modules(void)
{
    struct tp_own g = tp_own_begin();
    tp_modmap_each_code(add_segment, NULL);
    tp_modmap_each(add_functions, NULL);
    tp_own_end(g);
}

/* A thread's figures: the slots with its id (two, when the id of an ended thread was given to a
 * later one: then their sum). */
static void thread_figures(int64_t tid, uint64_t *ticks, uint64_t *spin)
{
    *ticks = *spin = 0;
    for (int i = 0; i < MAX_THREADS; i++)
        if (atomic_load(&slots[i].tid) == tid) {
            *ticks += atomic_load(&slots[i].ticks);
            *spin += atomic_load(&slots[i].spin);
        }
}

void tp_wait_collect(struct tp_report *r)
{
    uint64_t period = r->samples.hz ? 1000000000ull / r->samples.hz : 0;
    for (size_t i = 0; i < r->nthreads; i++) {
        struct tp_thread *t = &r->threads[i];
        uint64_t ticks, spin;
        thread_figures(t->tid, &ticks, &spin);
        t->wait_spin_ns = spin * period;
        t->wait_spin_method = period ? strdup("samples") : NULL;
        t->wait_ns = tp_ticks_to_ns(ticks) + t->wait_spin_ns;
    }
}

void tp_wait_fork_child(void)
{
    /* The child's one thread is this one; the others' slots are the parent's. */
    for (int i = 0; i < MAX_THREADS; i++) {
        atomic_store(&slots[i].ticks, 0);
        atomic_store(&slots[i].spin, 0);
        atomic_store(&slots[i].tid, 0);
    }
    if (mine)
        atomic_store(&mine->tid, (int64_t)gettid());
}
