/* The heap over time and the steps over the run (see track/out/out.h).
 *
 * The heap over time is recorded on every run, by no thread of ours and not on the allocation
 * path: a point (time, live bytes, persistent floor, op) is taken where tprof already reads the
 * clock, at the begin and end of every outermost op call and at every step's end; the exact peak
 * is added when the report is made (heap.c knows it, its time and op). A program with no op and
 * no step gets its points from the CPU sampler's SIGPROF tick (track/out/sample.c), which already
 * interrupts the running thread TPROF_SAMPLE_HZ times per second of CPU time: a heap that
 * changes only while some thread runs is followed at that rate for nothing on the malloc path.
 * (A point every N-th allocation would need a counter in the malloc hooks; the sampler thread
 * used before was a thread in every program, which a host may count, fork or not expect.)
 *
 * The buffer is fixed. Until it first fills, every point is kept (a short run has them all,
 * exactly); when full, each pair of neighbours becomes the one of the two with more live bytes,
 * and from then on a point is stored at most once per gap of time, the gap set so that the
 * free half fills in as long as the full buffer took, and doubled at every later halving. Of
 * the points taken within a gap the most live is kept (pend) and stored when the gap is over.
 * So the shape and the highest points survive a run of any length. A point within a gap that
 * is no higher than the one kept costs two relaxed loads and two compares, no atomic write.
 * Measured (bench/RESULTS.md): a timed outermost op call, which takes two points, costs 78
 * instructions more (890 to 969 for bench/cyg_storm's tiny op with TPROF_DEMOTE=0; an op that
 * short is demoted to a count by default, and then nothing changes); the malloc/free pair does
 * not change (1,254 instructions).
 * The flag is only tried, never waited for: a point that finds it held (another thread's, or
 * the code a SIGPROF tick interrupted) is left out. Steps are few (milliseconds apart or more):
 * each is kept under a spin lock; that buffer, when full, is halved keeping the lowest and the
 * highest of every four points (report/series.h), so that the extremes of the run are kept. */
#include "track/out/out.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

#include "report/report.h"
#include "track/heap/heap.h"
#include "track/runtime.h"

#define CAP TP_SERIES_CAP

static struct tp_series_raw hbuf[CAP];
static uint32_t hn;               /* points in hbuf */
static uint64_t gap;              /* ticks between stored points: 0 until the buffer first fills */
static struct tp_series_raw pend; /* the most live of the points within the gap */
_Atomic uint64_t tp_series_pend_live; /* pend's live + 1, 0 for none: read without the flag */
_Atomic uint64_t tp_series_due;       /* ticks from which the next point is stored */
static atomic_flag hlock = ATOMIC_FLAG_INIT;

static struct tp_step_point sbuf[CAP];
static size_t sn;
static atomic_flag slock = ATOMIC_FLAG_INIT;

static uint64_t sval(void *ctx, size_t i)
{
    return ((struct tp_step_point *)ctx)[i].ns;
}

static void smove(void *ctx, size_t dst, size_t src)
{
    struct tp_step_point *p = ctx;
    p[dst] = p[src];
}

size_t tp_series_halve(struct tp_series_raw *p, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i + 1 < n; i += 2) /* the earlier of two equal ones */
        p[out++] = p[i + 1].live > p[i].live ? p[i + 1] : p[i];
    if (n % 2)
        p[out++] = p[n - 1];
    return out;
}

/* The buffer is full: halve it, and take points half as often from now on. */
static void halve(void)
{
    /* two threads' points may be stored out of their clocks' order: never a negative span */
    uint64_t t0 = hbuf[0].ticks, t1 = hbuf[CAP - 1].ticks, span = t1 > t0 ? t1 - t0 : 0;
    hn = (uint32_t)tp_series_halve(hbuf, CAP);
    gap = gap ? 2 * gap : span / (CAP / 2) ? span / (CAP / 2) : 1;
}

void tp_series_add(uint64_t ticks, uint64_t live, uint64_t floor, int op)
{
    if (ticks < atomic_load_explicit(&tp_series_due, memory_order_relaxed) &&
        live < atomic_load_explicit(&tp_series_pend_live, memory_order_relaxed))
        return; /* within the gap, and lower than the point kept */
    if (atomic_flag_test_and_set_explicit(&hlock, memory_order_acquire))
        return;
    if (!atomic_load_explicit(&tp_series_pend_live, memory_order_relaxed) || live > pend.live) {
        pend = (struct tp_series_raw){ticks, live, floor < live ? floor : live, op};
        atomic_store_explicit(&tp_series_pend_live, live + 1, memory_order_relaxed);
    }
    if (ticks >= atomic_load_explicit(&tp_series_due, memory_order_relaxed)) {
        if (hn == CAP)
            halve();
        hbuf[hn++] = pend;
        atomic_store_explicit(&tp_series_pend_live, 0, memory_order_relaxed);
        atomic_store_explicit(&tp_series_due, ticks + gap, memory_order_relaxed);
    }
    atomic_flag_clear_explicit(&hlock, memory_order_release);
}

/* tp_series_heap is inline (track/out/out.h). With heap accounting off the live figure stays 0: the
 * points are dropped when the report is made, rather than a call to ask on every one. */

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
    /* a thread that held either did not survive the fork */
    atomic_flag_clear(&slock);
    atomic_flag_clear(&hlock);
    sn = 0;
    hn = 0;
    gap = 0;
    atomic_store(&tp_series_pend_live, 0);
    atomic_store(&tp_series_due, 0);
}

/* ---- into the report ---- */

/* A point on its way into the report: its op as an id until the points to keep are chosen, so
 * that only those get a copy of the name; TP_PEAK_OP for the report's peak_op. */
struct pt {
    struct tp_heap_point p;
    int op;
};
#define TP_PEAK_OP (-2)

static uint64_t pt_val(void *ctx, size_t i)
{
    return ((struct pt *)ctx)[i].p.live_bytes;
}

static void pt_move(void *ctx, size_t dst, size_t src)
{
    struct pt *p = ctx;
    p[dst] = p[src];
}

static int hlock_take(void)
{
    for (int i = 0; i < 100000; i++)
        if (!atomic_flag_test_and_set_explicit(&hlock, memory_order_acquire))
            return 1;
    return 0;
}

/* The stored points and the one being filled, in ns since the start, followed by the heap now,
 * put at the report's wall time (end_ns, read just before; 0: now). Ticks become ns against one
 * reading of both clocks now (when ticks are ns, exactly so). */
static size_t raw_points(struct pt *p, uint64_t end_ns)
{
    uint64_t now_ns = tp_now_ns(), now_t = tp_clock_use_tsc ? tp_ticks() : now_ns;
    uint64_t since = now_ns > tp_start_ns ? now_ns - tp_start_ns : 0;
    size_t n = 0;
    if (hlock_take()) {
        for (size_t i = 0; i <= hn; i++) {
            const struct tp_series_raw *h = i < hn                              ? &hbuf[i]
                                            : atomic_load(&tp_series_pend_live) ? &pend
                                                                                : NULL;
            if (!h)
                break;
            uint64_t ago = h->ticks < now_t ? tp_ticks_to_ns(now_t - h->ticks) : 0;
            p[n++] = (struct pt){{since > ago ? since - ago : 0, h->live, h->floor, NULL}, h->op};
        }
        atomic_flag_clear_explicit(&hlock, memory_order_release);
    }
    uint64_t floor, live = tp_heap_live(&floor), at = end_ns && end_ns < since ? end_ns : since;
    p[n++] = (struct pt){{at, live, floor < live ? floor : live, NULL}, -1};
    /* Threads that read the clock in one order may have taken the flag in the other: the points
     * are nearly in order, which an insertion sort puts right in one pass. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && p[j - 1].p.ns > p[j].p.ns; j--) {
            struct pt t = p[j];
            p[j] = p[j - 1];
            p[j - 1] = t;
        }
    return n;
}

/* The points, with the exact peak put in its place in time, no other point being above it (one
 * read between the live figure's rise and the peak's). */
static void heap_series(struct tp_memory *m, uint64_t end_ns, const char *(*op_name)(int))
{
    if (!tp_heap_tracking())
        return;
    struct pt *p = malloc((CAP + 3) * sizeof *p);
    if (!p)
        return;
    size_t n = raw_points(p, end_ns);
    if (m->peak_bytes) {
        size_t at = 0;
        while (at < n && p[at].p.ns <= m->peak_ns)
            at++;
        memmove(p + at + 1, p + at, (n - at) * sizeof *p);
        uint64_t floor = m->lifetime_unit ? m->persistent_bytes : 0;
        p[at] = (struct pt){{m->peak_ns, m->peak_bytes, floor, NULL}, TP_PEAK_OP};
        n++;
    }
    for (size_t i = 0; i < n; i++)
        if (p[i].p.live_bytes > m->peak_bytes)
            p[i].p.live_bytes = m->peak_bytes;
    n = tp_series_downsample(n, TP_SERIES_MAX, pt_val, pt_move, p);
    struct tp_heap_point *out = n ? calloc(n, sizeof *out) : NULL;
    if (out) {
        for (size_t i = 0; i < n; i++) {
            const char *name = p[i].op == TP_PEAK_OP ? m->peak_op
                               : p[i].op >= 0        ? op_name(p[i].op)
                                                     : NULL;
            out[i] = p[i].p;
            out[i].op = name ? strdup(name) : NULL;
        }
        m->series = out;
        m->nseries = n;
    }
    free(p);
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

void tp_series_collect(struct tp_report *r, const char *(*op_name)(int id))
{
    heap_series(&r->memory, r->program.wall_ns, op_name);
    if (r->steps.count)
        step_series(&r->steps);
}
