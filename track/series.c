/* The heap over time and the steps over the run (see series.h).
 *
 * Neither is recorded on the allocation path: a thread of ours reads the live bytes every
 * millisecond, halving its rate whenever its fixed buffer fills, and the exact peak is added
 * when the report is made; so the series costs the malloc hooks nothing and a run of any length
 * yields a bounded buffer. Steps are few (milliseconds apart or more): each is kept under a
 * spin lock. Either buffer, when full, is halved keeping the lowest and the highest of every four
 * points (report/series.h), so that the extremes of the run are never lost. */
#include "track/series.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/config.h"

#include "report/report.h"
#include "track/heap.h"
#include "track/runtime.h"

#define CAP 4096

struct hsample {
    uint64_t ns, live, floor;
};

static struct hsample hbuf[CAP];
static _Atomic uint32_t hn;
static _Atomic uint32_t hgen; /* odd while the sampler compacts the buffer */
static uint64_t every_ns = 1000000;
static int sampler_started;

static struct tp_step_point sbuf[CAP];
static size_t sn;
static atomic_flag slock = ATOMIC_FLAG_INIT;

static uint64_t hval(void *ctx, size_t i)
{
    return ((struct hsample *)ctx)[i].live;
}

static void hmove(void *ctx, size_t dst, size_t src)
{
    struct hsample *p = ctx;
    p[dst] = p[src];
}

static uint64_t sval(void *ctx, size_t i)
{
    return ((struct tp_step_point *)ctx)[i].ns;
}

static void smove(void *ctx, size_t dst, size_t src)
{
    struct tp_step_point *p = ctx;
    p[dst] = p[src];
}

static void add_sample(void)
{
    struct tp_heap_totals t;
    tp_heap_totals(&t);
    uint32_t n = atomic_load(&hn);
    if (n == CAP) {
        /* Halve the buffer, keeping the lowest and highest of every four samples, and sample half
         * as often: the buffer covers any run length. */
        atomic_fetch_add(&hgen, 1);
        n = (uint32_t)tp_series_downsample(CAP, CAP / 2, hval, hmove, hbuf);
        atomic_store(&hn, n);
        atomic_fetch_add(&hgen, 1);
        every_ns *= 2;
    }
    uint64_t now = tp_now_ns();
    hbuf[n].ns = now > tp_start_ns ? now - tp_start_ns : 0;
    hbuf[n].live = t.live;
    hbuf[n].floor = t.live_at_unit_end < t.live ? t.live_at_unit_end : t.live;
    atomic_store(&hn, n + 1);
}

static void *sampler(void *arg)
{
    (void)arg;
    tp_guard = 1; /* nothing this thread does is the program's */
    for (;;) {
        int s = atomic_load(&tp_state);
        if (s != TP_RUNNING && s != TP_INITING)
            break;
        add_sample();
        struct timespec ts = {(time_t)(every_ns / 1000000000ull), (long)(every_ns % 1000000000ull)};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return NULL;
}

void tp_series_start(void)
{
    if (!tp_cfg.html || sampler_started)
        return;
    if (tp_start_thread(sampler) == 0)
        sampler_started = 1;
    else
        tp_warn("TPROF_HTML: cannot start the heap sampler; the heap over time has only the peak");
}

/* The lock is held for a few hundred instructions at most; a step that finds it taken for long
 * (a tprof_step() from a signal handler that interrupted its holder) is left out of the series
 * rather than waited for: the program never waits on it. */
static int step_lock(void)
{
    for (int i = 0; i < 100000; i++)
        if (!atomic_flag_test_and_set_explicit(&slock, memory_order_acquire))
            return 1;
    return 0;
}

void tp_series_step(uint64_t index, uint64_t end_ns, uint64_t ns)
{
    if (!step_lock())
        return;
    if (sn == CAP) /* the fastest and the slowest of every four steps so far are kept */
        sn = tp_series_downsample(CAP, CAP / 2, sval, smove, sbuf);
    sbuf[sn++] = (struct tp_step_point){index, end_ns, ns};
    atomic_flag_clear_explicit(&slock, memory_order_release);
}

void tp_series_fork_child(void)
{
    atomic_flag_clear(&slock); /* a thread that held it did not survive the fork */
    sn = 0;
    atomic_store(&hn, 0);
    atomic_store(&hgen, 0);
    every_ns = 1000000;
    sampler_started = 0;
    tp_series_start();
}

/* ---- into the report ---- */

static uint64_t heap_val(void *ctx, size_t i)
{
    return ((struct tp_heap_point *)ctx)[i].live_bytes;
}

static void heap_move(void *ctx, size_t dst, size_t src)
{
    struct tp_heap_point *p = ctx;
    p[dst] = p[src];
}

/* The sampler's points (a consistent copy: taken again if it compacted meanwhile), with the
 * exact peak put in its place in time, no sampled point being above it. */
static void heap_series(struct tp_memory *m)
{
    struct tp_heap_point *p = malloc((CAP + 1) * sizeof *p);
    if (!p)
        return;
    size_t n;
    for (int tries = 0;; tries++) {
        uint32_t g = atomic_load(&hgen);
        n = atomic_load(&hn);
        for (size_t i = 0; i < n; i++)
            p[i] = (struct tp_heap_point){hbuf[i].ns, hbuf[i].live, hbuf[i].floor};
        if ((!(g & 1) && atomic_load(&hgen) == g) || tries == 8)
            break;
    }
    size_t at = 0;
    while (at < n && p[at].ns <= m->peak_ns)
        at++;
    if (m->peak_bytes) {
        memmove(p + at + 1, p + at, (n - at) * sizeof *p);
        uint64_t floor = m->lifetime_unit ? m->persistent_bytes : 0;
        p[at] = (struct tp_heap_point){m->peak_ns, m->peak_bytes, floor};
        n++;
    }
    for (size_t i = 0; i < n; i++)
        if (p[i].live_bytes >
            m->peak_bytes) /* read between the live figure's rise and the peak's */
            p[i].live_bytes = m->peak_bytes;
    m->nseries = tp_series_downsample(n, TP_SERIES_MAX, heap_val, heap_move, p);
    m->series = p;
}

static void step_series(struct tp_steps *s)
{
    if (!step_lock())
        return;
    size_t n = sn;
    struct tp_step_point *p = n ? malloc(n * sizeof *p) : NULL;
    if (p)
        memcpy(p, sbuf, n * sizeof *p);
    atomic_flag_clear_explicit(&slock, memory_order_release);
    if (!p)
        return;
    s->nseries = tp_series_downsample(n, TP_SERIES_MAX, sval, smove, p);
    s->series = p;
}

void tp_series_collect(struct tp_report *r)
{
    if (sampler_started)
        heap_series(&r->memory);
    if (r->steps.count)
        step_series(&r->steps);
}
