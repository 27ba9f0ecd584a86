/* Steps: the program's iterations (TPROF_STEP's function, or tprof_step() markers), their
 * latency, and the TPROF_SCHEDULE window that decides which of them are recorded. Kept apart
 * from the op stack (track/ops/ops.c), which only asks whether what runs now is in the window. */
#include "track/steps/steps.h"

#include <stdio.h>

#include "common/clock.h"
#include "common/histo/histo.h"
#include "track/ops/ops.h"
#include "track/runtime.h"
#include "track/out/out.h"

_Atomic uint64_t tp_ops_first_ns_v; /* read inline by tp_ops_first_ns() (ops.h) */
struct tp_histo *tp_step_histo;
_Atomic uint64_t tp_step_count, tp_step_warm;
static _Atomic uint64_t step_last_mark;
static TP_TLS int step_depth;
static TP_TLS uint64_t step_t0;
static TP_TLS struct tp_stepcpu_at step_cpu0;
static _Atomic uintptr_t mark_thread; /* which thread made the last mark (its TLS address) */
static TP_TLS struct tp_stepcpu_at mark_cpu0; /* what this thread read at its last mark */
static TP_TLS char thread_token;
static _Atomic uint64_t mark_proc;          /* the process's CPU time at the last mark */
static _Atomic uint64_t step_index_started; /* steps begun so far (schedule) */
static _Atomic int step_running;            /* inside the TPROF_STEP function */
/* With no TPROF_STEP, the ggml graph-compute function that began the first step: 1 while it is
 * being written, 2 once it can be read. */
static char step_fn[128];
static _Atomic int step_fn_state;

/* Kept here, not with the op stack, because a step can be the first thing recorded. */
void tp_ops_note_first(void)
{
    if (!atomic_load_explicit(&tp_ops_first_ns_v, memory_order_relaxed)) {
        uint64_t zero = 0;
        if (atomic_compare_exchange_strong(&tp_ops_first_ns_v, &zero, tp_now_ns()))
            tp_threads_sample(); /* a BLAS library's pool is up by its first call */
    }
}

/* ---- schedule (TPROF_SCHEDULE wait:warmup:active) ---- */

/* Is step k (0-based) recorded? The one place that decides it. */
static int step_recorded(uint64_t k)
{
    if (tp_cfg.sched_active < 0)
        return 1;
    uint64_t lo = (uint64_t)(tp_cfg.sched_wait + tp_cfg.sched_warmup);
    return k >= lo && k < lo + (uint64_t)tp_cfg.sched_active;
}

/* Is what runs now recorded? */
int tp_steps_in_window(void)
{
    if (tp_cfg.sched_active < 0)
        return 1;
    uint64_t begun = atomic_load_explicit(&step_index_started, memory_order_relaxed);
    if (begun == 0)
        return 0; /* before the first step */
    /* With a step function, only what runs inside a step belongs to it; with markers, the time
     * after a mark belongs to the next step. */
    if (tp_steps_function() && !atomic_load_explicit(&step_running, memory_order_relaxed))
        return 0;
    return step_recorded(begun - 1);
}

/* ---- steps ---- */

static void record_step(uint64_t dur)
{
    uint64_t n = atomic_fetch_add(&tp_step_count, 1);
    uint64_t now = tp_now_ns();
    tp_series_step(n, now > tp_start_ns ? now - tp_start_ns : 0, tp_ticks_to_ns(dur));
    if (n < (uint64_t)tp_cfg.warmup)
        atomic_fetch_add(&tp_step_warm, 1);
    else if (tp_step_histo)
        tp_histo_add(tp_step_histo, dur);
}

/* A ggml graph evaluation is a step because nothing else names one; a program that marks its
 * own with tprof_step() has its markers as steps, from its first on. */
static int markers_rule(void)
{
    return !(tp_cfg.step && *tp_cfg.step) &&
           atomic_load_explicit(&step_last_mark, memory_order_relaxed);
}

const char *tp_steps_function(void)
{
    if (tp_cfg.step && *tp_cfg.step)
        return tp_cfg.step;
    if (markers_rule())
        return NULL;
    return atomic_load_explicit(&step_fn_state, memory_order_acquire) == 2 ? step_fn : NULL;
}

void tp_step_begin(const char *name)
{
    if (!tp_running() || markers_rule() || step_depth++ > 0)
        return;
    int unset = 0;
    if (!(tp_cfg.step && *tp_cfg.step) &&
        atomic_compare_exchange_strong(&step_fn_state, &unset, 1)) {
        snprintf(step_fn, sizeof step_fn, "%s", name ? name : "ggml graph compute");
        atomic_store_explicit(&step_fn_state, 2, memory_order_release);
        tp_lifeunit_step_function();
    }
    atomic_fetch_add(&step_index_started, 1);
    atomic_store(&step_running, 1);
    tp_ops_note_first();
    tp_stepcpu_start(&step_cpu0);
    step_t0 = tp_ticks();
}

void tp_step_end(void)
{
    if (step_depth == 0 || --step_depth > 0 || !tp_running())
        return;
    atomic_store(&step_running, 0);
    tp_lifeunit_step_end();
    /* step_index_started was bumped at begin: judge this step by its own index */
    uint64_t t = tp_ticks();
    struct tp_stepcpu_at now;
    tp_stepcpu_read(&now);
    tp_series_heap(-1, t); /* after the unit's end: its floor counts it; no op (ops.c's) */
    tp_ledger_tick(t);     /* a step's end: the memory ledger may read (never from a marker, which
                        * a signal handler may call) */
    if (step_recorded(atomic_load(&step_index_started) - 1)) {
        record_step(t - step_t0);
        tp_stepcpu_step(&step_cpu0, &now, tp_ticks_to_ns(t - step_t0));
    }
}

void tp_step_mark(void)
{
    if (!tp_running())
        return;
    uint64_t t = tp_ticks();
    uint64_t last = atomic_exchange(&step_last_mark, t);
    tp_ops_note_first();
    tp_lifeunit_mark();
    tp_series_heap(-1, t);
    /* Every mark starts a step (so the ops after the first mark belong to step 0 and are in
     * its TPROF_SCHEDULE window), and every mark but the first ends the one before. */
    uint64_t started = atomic_fetch_add(&step_index_started, 1);
    /* The thread's figures are the marking thread's: a step begun by another thread's mark has
     * none of its own (tp_stepcpu_step then counts only the process's). */
    struct tp_stepcpu_at now, prev = mark_cpu0;
    tp_stepcpu_read(&now);
    uintptr_t me = (uintptr_t)&thread_token;
    if (atomic_exchange(&mark_thread, me) != me)
        prev.thread_ok = 0;
    prev.proc = atomic_exchange(&mark_proc, now.proc);
    if (last && started > 0 && step_recorded(started - 1)) {
        record_step(t - last);
        tp_stepcpu_step(&prev, &now, tp_ticks_to_ns(t - last));
    }
    mark_cpu0 = now;
}

uint64_t tp_steps_seen(void)
{
    return atomic_load(&step_index_started);
}

void tp_steps_init(void)
{
    tp_step_histo = tp_histo_new();
}

void tp_steps_fork_child(void)
{
    struct tp_histo *sh = tp_histo_new();
    if (sh)
        tp_step_histo = sh; /* the parent's is left allocated: freeing inside fork is not safe */
    atomic_store(&tp_step_count, 0);
    atomic_store(&tp_step_warm, 0);
    atomic_store(&step_last_mark, 0);
    atomic_store(&mark_thread, 0);
    atomic_store(&mark_proc, 0);
    tp_stepcpu_fork_child();
}
