/* Ops too short to time (see track/ops/ops.h). */
#include "track/ops/ops.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/config.h"
#include "common/machine/machine.h"
#include "track/ops/hookcache.h"
#include "report/report.h"
#include "common/pages.h"
#include "track/steps/steps.h"
#include "track/rawalloc.h"

TP_TLS uint64_t tp_demote_tcount[TP_DEMOTE_SLOTS];
TP_TLS uint8_t tp_demote_counting;
_Atomic uint8_t *tp_demote_slot_of;

struct judge {
    _Atomic uint64_t seen;        /* calls observed */
    _Atomic uint64_t short_calls; /* of calls 2 .. TP_DEMOTE_CALLS + 1: under the line */
    /* Their ticks, one entry per call (the call's number among the judged, so no two threads
     * share one), for their median. */
    _Atomic uint32_t short_ticks[TP_DEMOTE_CALLS];
};

/* The ops a demoted op's counted calls ran in (op ids + 1, 0 free): their self time holds those
 * calls' time, so the estimate can be no more than it. */
#define NPARENTS 4

struct dslot {
    int id;
    uint64_t median_ticks;    /* of the judged calls under the line */
    _Atomic uint64_t flushed; /* counted by threads that ended */
    _Atomic int parents[NPARENTS];
    _Atomic int open;            /* a counted call ran outside every op, or in a fifth op */
    _Atomic uint64_t attributed; /* counted calls whose enclosing op is known */
};

/* A thread whose tp_demote_tcount the report reads. */
struct reg {
    uint64_t *counts;
    struct reg *next;
};

static struct judge *judges;
static int ids; /* entries of judges and tp_demote_slot_of: tp_ops_id_limit() */
static struct dslot dslots[TP_DEMOTE_SLOTS];
static _Atomic int ndslots = 1;  /* slot 0 is the sink */
static _Atomic uint64_t refused; /* ops that would have been demoted: no slot left */
static double factor;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reg *threads;
static pthread_key_t reg_key;
static int have_key;
static TP_TLS struct reg *me;
/* This thread's counted calls per slot up to its last op boundary, whose op they are
 * attributed to. */
static TP_TLS uint64_t attributed_to[TP_DEMOTE_SLOTS];

/* The line: factor x the cost of one hook, that of the host's cache, this run's or TPROF_HOOK_NS
 * (tp_demote_hook_known). */
static uint64_t line_fp;      /* that cost in ticks << 16, 0 while unknown */
static double line_hook_ns;   /* the same in ns */
static const char *line_from; /* "host best", "this run", "TPROF_HOOK_NS"; NULL while unknown */
static double run_ns;         /* this run's measurement */
static int save_due;          /* it is lower than the host's cache: written at the end */
static struct tp_hookcache host;
static char host_path[1024];

static void thread_end(void *arg)
{
    struct reg *r = arg;
    pthread_mutex_lock(&reg_lock);
    for (int s = 1; s < atomic_load(&ndslots); s++)
        atomic_fetch_add(&dslots[s].flushed, r->counts[s]);
    for (struct reg **p = &threads; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    memset(r->counts, 0, sizeof tp_demote_tcount);
    pthread_mutex_unlock(&reg_lock);
    tp_demote_counting = 0;
    me = NULL;
    tp_free(r);
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&reg_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&reg_lock);
}

/* The child counts its own calls; only this thread goes on. */
static void fork_child(void)
{
    pthread_mutex_init(&reg_lock, NULL);
    threads = me;
    if (me)
        me->next = NULL;
    memset(tp_demote_tcount, 0, sizeof tp_demote_tcount);
    memset(attributed_to, 0, sizeof attributed_to);
    for (int s = 1; s < atomic_load(&ndslots); s++) {
        atomic_store(&dslots[s].flushed, 0);
        atomic_store(&dslots[s].attributed, 0);
    }
}

void tp_demote_init(void)
{
    factor = tp_cfg.demote;
    ids = tp_ops_id_limit();
    if (factor <= 0 || tp_cfg.hook_ns == 0 || !ids)
        return;
    /* reserve-only: the entries of the ops interned are touched, and the table never moves */
    judges = tp_pages_map((size_t)ids * sizeof *judges, 1);
    _Atomic uint8_t *v = tp_pages_map((size_t)ids * sizeof *v, 1);
    if (!judges || !v)
        return;
    have_key = pthread_key_create(&reg_key, thread_end) == 0;
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    tp_demote_slot_of = v;
}

/* The cost of one hook the line is drawn from, in ticks, 0 while unknown. */
static double hook_ticks(void)
{
    return (double)line_fp / 65536.0;
}

/* The host's cache holds a cost for this CPU: 0 and h filled, else -1. */
static int host_best(struct tp_hookcache *h)
{
    char model[64];
    if (!host_path[0] || tp_hookcache_load(host_path, h) < 0)
        return -1;
    tp_cpu_model(model, sizeof model);
    return h->cpu_model[0] && model[0] && strcmp(h->cpu_model, model) ? -1 : 0;
}

static uint64_t ps_of(double ns)
{
    return (uint64_t)(ns * 1000.0 + 0.5);
}

/* The line from the host's best (host). */
static void line_from_host(void)
{
    uint64_t t = tp_ticks_to_ns(1ull << 30);
    double ticks_per_ns = t ? (double)(1ull << 30) / (double)t : 1.0;
    line_fp = (uint64_t)(host.hook_ns * ticks_per_ns * 65536.0 + 0.5);
    line_hook_ns = host.hook_ns;
    line_from = "host best";
}

int tp_demote_line_cached(void)
{
    if (!tp_demote_slot_of)
        return 1;
    if (tp_hookcache_path(host_path, sizeof host_path) < 0 || host_best(&host) < 0)
        return 0;
    run_ns = 0; /* nothing measured: the note says so */
    line_from_host();
    return 1;
}

void tp_demote_hook_known(double ns, int given)
{
    if (!tp_demote_slot_of)
        return;
    line_fp = tp_cyg_hook_cost_fp;
    line_hook_ns = run_ns = ns;
    line_from = given ? "TPROF_HOOK_NS" : "this run";
    if (given || tp_hookcache_path(host_path, sizeof host_path) < 0) {
        host_path[0] = 0;
        return;
    }
    if (host_best(&host) == 0 && ps_of(host.hook_ns) <= ps_of(ns)) {
        line_from_host();
    } else {
        save_due = ps_of(ns) > 0;
    }
}

void tp_demote_keep_best(void)
{
    if (!save_due)
        return;
    save_due = 0;
    /* read again: another process of this host may have measured lower since */
    struct tp_hookcache h;
    if (host_best(&h) == 0 && ps_of(h.hook_ns) <= ps_of(run_ns))
        return;
    memset(&h, 0, sizeof h);
    h.hook_ns = run_ns;
    tp_cpu_model(h.cpu_model, sizeof h.cpu_model);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(h.date, sizeof h.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    tp_hookcache_save(host_path, &h);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The median of the judged calls under the line, not their mean: the first of them run cold
 * (caches, lazy binding, page faults) and one stretched call moved the mean of darknet's
 * im2col_get_pixel to an estimate three times its caller's total. A call still being written by
 * another thread reads 0 and can only lower it. */
static uint64_t median_short(struct judge *j)
{
    uint32_t v[TP_DEMOTE_CALLS];
    size_t n = 0;
    double cost = hook_ticks();
    for (int i = 0; i < TP_DEMOTE_CALLS; i++) {
        uint32_t t = atomic_load_explicit(&j->short_ticks[i], memory_order_relaxed);
        if (t != UINT32_MAX && (double)t < factor * cost)
            v[n++] = t;
    }
    if (!n)
        return 0;
    qsort(v, n, sizeof v[0], cmp_u32);
    return n % 2 ? v[n / 2] : ((uint64_t)v[n / 2 - 1] + v[n / 2]) / 2;
}

static void demote(int id, uint64_t median_ticks)
{
    int s = atomic_fetch_add(&ndslots, 1);
    if (s >= TP_DEMOTE_SLOTS) {
        atomic_fetch_add(&refused, 1);
        return;
    }
    dslots[s].id = id;
    dslots[s].median_ticks = median_ticks;
    /* set before the slot is published, which the counting threads read */
    if (!atomic_load(&tp_ops_boundary_hook))
        atomic_store(&tp_ops_boundary_hook, tp_demote_boundary);
    atomic_store_explicit(&tp_demote_slot_of[id], (uint8_t)s, memory_order_release);
    tp_lifeunit_demoted(id);
}

void tp_demote_observe(int id, uint64_t ticks)
{
    if (!tp_demote_slot_of || id < 0 || id >= ids || ticks == TP_OP_NO_TIME)
        return;
    struct judge *j = &judges[id];
    uint64_t n = atomic_load_explicit(&j->seen, memory_order_relaxed);
    if (n > TP_DEMOTE_CALLS)
        return; /* judged */
    n = atomic_fetch_add_explicit(&j->seen, 1, memory_order_relaxed);
    if (n == 0) {
        /* The threads' reads of this entry have mapped its page to the shared zero page, whose
         * first write is a copy-on-write fault that flushes the TLBs of the CPUs running them:
         * tens of microseconds on a loaded machine. Taken here, not between the last call
         * judged and the demotion's store, when the other threads go on timing the op's calls
         * and no longer count them as judged. An atomic or of 0 cannot undo a store. */
        atomic_fetch_or_explicit(&tp_demote_slot_of[id], 0, memory_order_relaxed);
        return;
    }
    if (n > TP_DEMOTE_CALLS)
        return;
    /* The median, not the mean, against the line: a call that a preemption, a page fault or an
     * interrupt stretched by milliseconds (a loaded machine's lot) moves a mean of 64 calls
     * across any line, and the same program was then timed in some runs and demoted in others;
     * it moves the median only when most calls were stretched. */
    double cost = hook_ticks();
    /* UINT32_MAX: over the line (a call under it is far shorter) */
    atomic_store_explicit(&j->short_ticks[n - 1], UINT32_MAX, memory_order_relaxed);
    if (cost > 0 && (double)ticks < factor * cost) {
        atomic_store_explicit(&j->short_ticks[n - 1], (uint32_t)ticks, memory_order_relaxed);
        atomic_fetch_add_explicit(&j->short_calls, 1, memory_order_relaxed);
    }
    if (n < TP_DEMOTE_CALLS || !(cost > 0))
        return;
    uint64_t k = atomic_load_explicit(&j->short_calls, memory_order_relaxed);
    if (2 * k > TP_DEMOTE_CALLS)
        demote(id, median_short(j));
}

void tp_demote_boundary(int top)
{
    int n = atomic_load_explicit(&ndslots, memory_order_relaxed);
    if (n > TP_DEMOTE_SLOTS)
        n = TP_DEMOTE_SLOTS;
    for (int s = 1; s < n; s++) {
        uint64_t c = tp_demote_tcount[s], was = attributed_to[s];
        if (c == was)
            continue;
        attributed_to[s] = c;
        if (c < was) /* counts restarted (a forked child) */
            continue;
        struct dslot *d = &dslots[s];
        int placed = 0;
        for (int i = 0; top >= 0 && i < NPARENTS && !placed; i++) {
            int p = atomic_load_explicit(&d->parents[i], memory_order_relaxed), zero = 0;
            if (p == top + 1)
                placed = 1;
            else if (p == 0)
                placed = atomic_compare_exchange_strong(&d->parents[i], &zero, top + 1) ||
                         zero == top + 1;
        }
        if (!placed && !atomic_load_explicit(&d->open, memory_order_relaxed))
            atomic_store_explicit(&d->open, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&d->attributed, c - was, memory_order_relaxed);
    }
}

void tp_demote_count_call(int slot)
{
    tp_demote_thread();
    tp_demote_tcount[slot]++;
    tp_cyg_hooks++;
}

void tp_demote_thread(void)
{
    if (me || !tp_demote_slot_of)
        return;
    struct tp_own g = tp_own_begin();
    struct reg *r = tp_alloc(sizeof *r);
    if (r) {
        r->counts = tp_demote_tcount;
        pthread_mutex_lock(&reg_lock);
        r->next = threads;
        threads = r;
        pthread_mutex_unlock(&reg_lock);
        me = r;
        tp_demote_counting = 1;
        if (have_key)
            pthread_setspecific(reg_key, r);
    }
    tp_own_end(g);
}

uint64_t tp_demote_counted(int id)
{
    int s = tp_demote_slot(id);
    if (!s)
        return 0;
    uint64_t n = atomic_load(&dslots[s].flushed);
    pthread_mutex_lock(&reg_lock);
    for (struct reg *r = threads; r; r = r->next)
        n += ((volatile uint64_t *)r->counts)[s];
    pthread_mutex_unlock(&reg_lock);
    return n;
}

uint64_t tp_demote_est_ticks(int id, int *bounded)
{
    int s = tp_demote_slot(id);
    *bounded = 0;
    if (!s)
        return 0;
    struct dslot *d = &dslots[s];
    uint64_t n = tp_demote_counted(id), est = n * d->median_ticks, room = 0;
    /* Every counted call ran in known ops: its time is in their self time. */
    if (atomic_load(&d->open) || atomic_load(&d->attributed) != n)
        return est;
    int known = 0;
    for (int i = 0; i < NPARENTS; i++) {
        int p = atomic_load(&d->parents[i]);
        if (p > 0) {
            room += TP_OP_SUM(tp_op_rec(p - 1), self);
            known = 1;
        }
    }
    if (known && est > room) {
        *bounded = 1;
        return room;
    }
    return est;
}

/* "im2col_cpu", "im2col_cpu and col2im_cpu" or "the 3 ops they ran in": the ops the counted
 * calls ran in. */
static void parents_str(const struct dslot *d, char *out, size_t n)
{
    int k = 0, first = -1, second = -1;
    for (int i = 0; i < NPARENTS; i++) {
        int p = atomic_load(&d->parents[i]);
        if (p > 0) {
            if (k == 0)
                first = p - 1;
            else if (k == 1)
                second = p - 1;
            k++;
        }
    }
    if (k == 1)
        snprintf(out, n, "%s", tp_op_rec(first)->name);
    else if (k == 2)
        snprintf(out, n, "%s and %s", tp_op_rec(first)->name, tp_op_rec(second)->name);
    else
        snprintf(out, n, "the %d ops they ran in", k);
}

/* "70.8M" */
static void count_str(uint64_t n, char *out, size_t size)
{
    if (n >= 10000000)
        snprintf(out, size, "%.1fM", (double)n / 1e6);
    else
        snprintf(out, size, "%llu", (unsigned long long)n);
}

/* The cost of one non-op hook in ns, 0 when no instrumented function ran (none was taken out).
 * TPROF_HOOK_NS as given, not back from ticks: the advice it feeds (report/analyze/advice.c) then says
 * the same figures on every machine. */
static double hook_cost_ns(void)
{
    if (!tp_cyg_hook_cost_fp)
        return 0;
    if (tp_cfg.hook_ns >= 0)
        return tp_cfg.hook_ns;
    return (double)tp_ticks_to_ns(tp_cyg_hook_cost_fp) / 65536.0;
}

void tp_demote_collect(struct tp_report *r)
{
    r->program.hook_ns = hook_cost_ns();
    int n = atomic_load(&ndslots);
    if (n > TP_DEMOTE_SLOTS)
        n = TP_DEMOTE_SLOTS;
    if (line_from) {
        r->program.demote_line_ns = factor * line_hook_ns;
        free(r->program.demote_line_from);
        r->program.demote_line_from = strdup(line_from);
    }
    if (n > 1 && line_from && !strcmp(line_from, "host best") && run_ns > 0)
        tp_report_note(r,
                       "too short to time: calls under %.1f ns (TPROF_DEMOTE %g x %.3f ns, this "
                       "host's lowest hook cost, measured %s; this run measured %.3f ns), so "
                       "that the same ops are demoted whatever the machine's load",
                       factor * line_hook_ns, factor, line_hook_ns, host.date, run_ns);
    else if (n > 1 && line_from && !strcmp(line_from, "host best"))
        tp_report_note(r,
                       "too short to time: calls under %.1f ns (TPROF_DEMOTE %g x %.3f ns, this "
                       "host's lowest hook cost, measured %s; not measured again by this run, "
                       "which hooked no instrumented function), so that the same ops are "
                       "demoted whatever the machine's load",
                       factor * line_hook_ns, factor, line_hook_ns, host.date);
    double ns_per_tick = (double)tp_ticks_to_ns(1ull << 30) / (double)(1ull << 30);
    for (int s = 1; s < n; s++) {
        int id = dslots[s].id;
        char calls[32], in[160], bound[256] = "";
        count_str(tp_op_calls(tp_op_rec(id)) + tp_demote_counted(id), calls, sizeof calls);
        int bounded;
        tp_demote_est_ticks(id, &bounded);
        if (bounded) {
            parents_str(&dslots[s], in, sizeof in);
            snprintf(bound, sizeof bound,
                     "; their estimated time, more than the self time of %s, is taken to be that "
                     "self time",
                     in);
        }
        tp_report_note(r,
                       "%s: %s calls of ~%.0f ns: counted, not timed after its first %d (their "
                       "time is their callers'%s; TPROF_DEMOTE)",
                       tp_op_rec(id)->name, calls, (double)dslots[s].median_ticks * ns_per_tick,
                       TP_DEMOTE_CALLS + 1, bound);
    }
    if (atomic_load(&refused))
        tp_report_note(r,
                       "%llu more ops were too short to time but stayed timed: %d demoted "
                       "already",
                       (unsigned long long)atomic_load(&refused), TP_DEMOTE_SLOTS - 1);
}
