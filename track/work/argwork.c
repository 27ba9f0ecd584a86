/* Work of instrumented ops from their arguments (see track/work/work.h). */
#include "track/work/work.h"
#include "track/sym/sym.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "common/config.h"
#include "report/report.h"
#include "track/ops/ops.h"
#include "track/runtime.h"

#define BITS 10

enum { EMPTY, NONE, BAD, READY };

/* A slot is claimed by its ra under the lock, filled, then published by state (release). */
struct slot {
    _Atomic uintptr_t ra;
    _Atomic int state;
    uintptr_t fn;
    const struct tp_work_fn *w;
    struct tp_argset set;
};

static struct slot table[1u << BITS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* Across fork the lock is held, so that no thread is inside libdw (whose own libc's locks would
 * stay held in the child) when the process is copied. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

static void at_fork(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_parent);
}
static _Atomic uint64_t failed, full, unknown;
static unsigned char warned[TP_WORK_MAX_FNS];

/* This thread's shapes built so far (tp_shape_key.token). */
static TP_TLS uint64_t tokens;

/* Bumped by tp_argwork_forget: every thread's memo below is void. */
static _Atomic unsigned forgets;

/* This thread's last call: the function and call site (its slot, without the table's probe),
 * its values and work, and its shape: a kernel is mostly called again and again with the same
 * sizes, and then its formulas need not run, nor its shape be built again. */
static TP_TLS struct {
    const struct slot *s;
    uintptr_t fn, ra;
    unsigned forgets;
    int valid; /* v, flops, bytes and shape are those of a call of s */
    int64_t v[TP_WORK_MAX_VARS];
    uint64_t flops, bytes;
    struct tp_shape_key shape;
} last;

static inline uint32_t hash(uintptr_t ra)
{
    return (uint32_t)(((uint64_t)ra * 0x9E3779B97F4A7C15ull) >> (64 - BITS));
}

/* The work entry for fn by the name the program knows it (demangled), or as the symbol says. */
static const struct tp_work_fn *entry_of(uintptr_t fn, char *name, size_t n)
{
    char raw[512];
    uintptr_t start = 0;
    if (tp_symtab_lookup(fn, raw, sizeof raw, &start) < 0 || start != fn)
        return NULL;
    tp_symtab_demangle(raw, name, n);
    const struct tp_work_fn *w = tp_names_work(name);
    return w ? w : tp_names_work(raw);
}

/* One line, once per entry, for a function whose parameters cannot be read; none for a built-in
 * entry, which the user did not ask for. */
static int warned_builtin;

static void say_once(const struct tp_work_fn *w, const char *why)
{
    const struct tp_work_set *u = tp_cfg.work;
    size_t i = TP_WORK_MAX_FNS;
    for (int k = 0; u && k < u->n; k++)
        if (w == &u->fn[k])
            i = (size_t)k;
    if (i < TP_WORK_MAX_FNS && !warned[i]) {
        warned[i] = 1;
        tp_warn("TPROF_WORK: %s: %s; %s gets no FLOPs or bytes", w->name, why, w->name);
    } else if (i == TP_WORK_MAX_FNS && !tp_dw_ready() && !warned_builtin) {
        /* a built-in entry is quiet about a program built without -g, not about this */
        warned_builtin = 1;
        tp_warn("work entries: %s; %s and any other op with a built-in entry get no FLOPs or "
                "bytes",
                why, w->name);
    }
}

static void fill(struct slot *s, uintptr_t fn, uintptr_t ra)
{
    char name[512], why[300];
    s->fn = fn;
    s->w = entry_of(fn, name, sizeof name);
    if (!s->w) {
        atomic_store_explicit(&s->state, NONE, memory_order_release);
        return;
    }
    if (tp_argloc_resolve(ra, s->w, &s->set, why, sizeof why) < 0) {
        say_once(s->w, why);
        atomic_store_explicit(&s->state, BAD, memory_order_release);
        return;
    }
    atomic_store_explicit(&s->state, READY, memory_order_release);
}

/* The slot of ra, resolved now if no thread did yet; NULL when the table is full. */
static struct slot *slot_of(uintptr_t fn, uintptr_t ra)
{
    uint32_t h = hash(ra), mask = (1u << BITS) - 1;
    for (uint32_t i = 0; i <= mask; i++) {
        struct slot *s = &table[(h + i) & mask];
        uintptr_t k = atomic_load_explicit(&s->ra, memory_order_acquire);
        if (k == ra && atomic_load_explicit(&s->state, memory_order_acquire) != EMPTY)
            return s;
        if (k && k != ra)
            continue;
        /* free, or ours but being filled: settle it under the lock */
        struct tp_own o = tp_own_begin();
        pthread_once(&fork_once, at_fork);
        pthread_mutex_lock(&lock);
        k = atomic_load_explicit(&s->ra, memory_order_acquire);
        if (k == 0 || (k == ra && atomic_load(&s->state) == EMPTY)) {
            atomic_store_explicit(&s->ra, ra, memory_order_release);
            fill(s, fn, ra);
        }
        pthread_mutex_unlock(&lock);
        tp_own_end(o);
        if (k && k != ra)
            continue;
        return s;
    }
    atomic_fetch_add_explicit(&full, 1, memory_order_relaxed);
    return NULL;
}

static void fill_shape(const struct tp_work_fn *w, const int64_t *v, struct tp_shape_key *shape);

/* ra's slot when it is not the one of the last call: then the memo starts over with it. */
static __attribute__((noinline)) const struct slot *other_slot(uintptr_t fn, uintptr_t ra)
{
    const struct slot *s = slot_of(fn, ra);
    if (!s || s->fn != fn || atomic_load_explicit(&s->state, memory_order_acquire) != READY)
        return NULL;
    last.s = s;
    last.fn = fn;
    last.ra = ra;
    last.forgets = atomic_load_explicit(&forgets, memory_order_relaxed);
    last.valid = 0;
    return s;
}

/* New values for the memo: the formulas run, the shape is built. 0 when a formula fails. */
static __attribute__((noinline)) int remember(const struct slot *s, int64_t *v)
{
    for (int i = s->set.n; i < TP_WORK_MAX_VARS; i++)
        v[i] = 0;
    last.valid = 0;
    if (tp_work_eval(s->w, v, &last.flops, &last.bytes) < 0) {
        atomic_fetch_add_explicit(&failed, 1, memory_order_relaxed);
        return 0;
    }
    memcpy(last.v, v, sizeof last.v);
    fill_shape(s->w, v, &last.shape);
    last.shape.token = ++tokens; /* a key of its own until the values change */
    last.valid = 1;
    return 1;
}

int tp_argwork_enter(uintptr_t fn, uintptr_t ra, const uint64_t *regs, uint64_t *flops,
                     uint64_t *bytes, struct tp_shape_key *shape)
{
    const struct slot *s = last.s;
    if (tp_unlikely(!s || last.fn != fn || last.ra != ra ||
                    last.forgets != atomic_load_explicit(&forgets, memory_order_relaxed))) {
        s = other_slot(fn, ra);
        if (!s)
            return 0;
    }
    int64_t v[TP_WORK_MAX_VARS];
    int n = s->set.n;
    if (tp_unlikely(!tp_argloc_read(&s->set, regs, v))) {
        atomic_fetch_add_explicit(&unknown, 1, memory_order_relaxed);
        return 0;
    }
    uint64_t differ = !last.valid;
    for (int i = 0; i < n; i++)
        differ |= (uint64_t)(last.v[i] ^ v[i]);
    if (differ && !remember(s, v))
        return 0;
    *flops = last.flops;
    *bytes = last.bytes;
    *shape = last.shape;
    return 1;
}

static void fill_shape(const struct tp_work_fn *w, const int64_t *v, struct tp_shape_key *shape)
{
    memset(shape, 0, sizeof *shape); /* ops.c compares keys field by field, more[] bytewise */
    shape->named = w;
    shape->m = v[0];
    shape->n = v[1];
    shape->k = v[2];
    memcpy(shape->more, v + 3, sizeof shape->more);
}

static void resolve_abi(struct tp_argwork_abi *a, const char *name, uintptr_t target)
{
    char why[300];
    struct tp_work_param params[TP_WORK_MAX_PARAMS];
    const struct tp_work_param *p = params;
    int n = 0;
    a->w = tp_names_work(name);
    if (!a->w) {
        atomic_store_explicit(&a->state, -1, memory_order_release);
        return;
    }
    if (a->w->nparams >= 0) {
        p = a->w->params;
        n = a->w->nparams;
    } else if (tp_argloc_params(target, params, &n, why, sizeof why) < 0) {
        say_once(a->w, why);
        atomic_store_explicit(&a->state, -1, memory_order_release);
        return;
    }
    if (tp_work_place(p, n, (char(*)[32])a->w->vars, a->w->nvars, a->place, why, sizeof why) < 0) {
        say_once(a->w, why);
        atomic_store_explicit(&a->state, -1, memory_order_release);
        return;
    }
    atomic_store_explicit(&a->state, 1, memory_order_release);
}

int tp_argwork_abi(struct tp_argwork_abi *a, const char *name, uintptr_t target,
                   const uint64_t *ints, const unsigned char (*xmm)[16], const uint64_t *stack,
                   uint64_t *flops, uint64_t *bytes, struct tp_shape_key *shape)
{
    int st = atomic_load_explicit(&a->state, memory_order_acquire);
    if (tp_unlikely(st == 0)) {
        struct tp_own o = tp_own_begin();
        pthread_once(&fork_once, at_fork);
        pthread_mutex_lock(&lock);
        if (atomic_load(&a->state) == 0)
            resolve_abi(a, name, target);
        pthread_mutex_unlock(&lock);
        tp_own_end(o);
        st = atomic_load_explicit(&a->state, memory_order_acquire);
    }
    if (st <= 0)
        return 0;
    int64_t v[TP_WORK_MAX_VARS] = {0};
    for (int i = 0; i < a->w->nvars; i++) {
        const struct tp_work_place *p = &a->place[i];
        uint64_t raw = 0;
        if (p->where == TP_WORK_INT)
            raw = ints[p->idx];
        else if (p->where == TP_WORK_SSE)
            memcpy(&raw, xmm[p->idx], p->size);
        else
            raw = stack[p->idx];
        v[i] = tp_work_value(raw, p);
    }
    if (tp_work_eval(a->w, v, flops, bytes) < 0) {
        atomic_fetch_add_explicit(&failed, 1, memory_order_relaxed);
        return 0;
    }
    fill_shape(a->w, v, shape);
    return 1;
}

void tp_argwork_notes(struct tp_report *r)
{
    if (atomic_load(&failed))
        tp_report_note(r,
                       "%llu op calls got no FLOPs or bytes from their TPROF_WORK entry: the "
                       "formula overflowed, divided by zero or came out negative",
                       (unsigned long long)atomic_load(&failed));
    if (atomic_load(&unknown))
        tp_report_note(r,
                       "%llu op calls got no FLOPs or bytes from their TPROF_WORK entry: a "
                       "parameter only their caller knows came from a caller whose call site "
                       "does not give it",
                       (unsigned long long)atomic_load(&unknown));
}

void tp_argwork_forget(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        atomic_store(&table[i].state, EMPTY);
        atomic_store(&table[i].ra, 0);
    }
    tp_argloc_forget();
    atomic_fetch_add(&forgets, 1); /* every thread's memo names a slot refilled from scratch */
    pthread_mutex_unlock(&lock);
}
