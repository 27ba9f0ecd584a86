/* The timeline's recording: op calls per thread, per-op summaries of the calls that are not
 * kept, and the buffer of heap counter samples (trace_heap.c takes them; trace_file.c writes all
 * of it as a Chrome Trace Event file).
 *
 * Recording costs one atomic increment and a 32-byte store per op call: calls go to per-thread
 * chunks of mmap'ed memory (not malloc: they must not show in the heap figures, and a chunk may
 * be needed while the allocator is busy on another thread). */
#include "track/out/out.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/pages.h"
#include "track/ops/ops.h"
#include "track/runtime.h"

#define CHUNK_EVENTS    TP_TRACE_CHUNK_EVENTS
#define MAX_THREADS     TP_TRACE_MAX_THREADS
#define MAX_SAMPLES     TP_TRACE_MAX_SAMPLES
#define MIN_EVENT_BYTES 64 /* no event is written in fewer bytes: recording more is pointless */

int tp_trace_on;
_Atomic(struct tp_trace_chunk *) tp_trace_chunks;
_Atomic uint64_t tp_trace_recorded;
static uint64_t keep_cap; /* calls kept in memory at most */
struct tp_trace_summary *tp_trace_past_cap, *tp_trace_past_room;
int tp_trace_nsummary;
struct tp_trace_thread tp_trace_threads[TP_TRACE_MAX_THREADS];
_Atomic int tp_trace_nthreads;
static TP_TLS struct tp_trace_chunk *my_chunk;
static TP_TLS int my_thread; /* index + 1; 0 until this thread's first call */
uint64_t tp_trace_base_ticks, tp_trace_base_ns;
struct tp_trace_sample *tp_trace_samples;
_Atomic uint32_t tp_trace_nsamples;

static void *map_zeroed(size_t n)
{
    return tp_pages_map(n, 0);
}

static void take_base(void)
{
    tp_trace_base_ticks = tp_ticks();
    tp_trace_base_ns = tp_now_ns();
}

void tp_trace_init(void)
{
    if (!tp_cfg.trace)
        return;
    keep_cap = tp_cfg.trace_cap;
    if (keep_cap > tp_cfg.trace_max / MIN_EVENT_BYTES)
        keep_cap = tp_cfg.trace_max / MIN_EVENT_BYTES;
    tp_trace_nsummary = tp_ops_id_limit();
    /* one entry an op id, reserve-only: those of the ops interned are touched */
    tp_trace_past_cap = tp_pages_map((size_t)tp_trace_nsummary * sizeof *tp_trace_past_cap, 1);
    tp_trace_past_room = tp_pages_map((size_t)tp_trace_nsummary * sizeof *tp_trace_past_room, 1);
    tp_trace_samples = map_zeroed(MAX_SAMPLES * sizeof *tp_trace_samples);
    if (!tp_trace_past_cap || !tp_trace_past_room || !tp_trace_samples) {
        tp_warn("TPROF_TRACE: cannot map the trace buffers; no trace");
        return;
    }
    take_base();
    tp_trace_on = 1;
}

/* ---- the op calls ---- */

static int thread_index(void)
{
    if (my_thread)
        return my_thread - 1;
    int i = atomic_fetch_add(&tp_trace_nthreads, 1);
    if (i >= MAX_THREADS) {
        atomic_store(&tp_trace_nthreads, MAX_THREADS);
        i = MAX_THREADS - 1;
    } else {
        tp_trace_threads[i].tid = (long)syscall(SYS_gettid);
        /* The name the program gave the thread so far (pthread_setname_np); read once. */
        if (prctl(PR_GET_NAME, tp_trace_threads[i].name, 0, 0, 0) != 0)
            tp_trace_threads[i].name[0] = 0;
    }
    my_thread = i + 1;
    return i;
}

static struct tp_trace_chunk *new_chunk(void)
{
    struct tp_trace_chunk *c = map_zeroed(sizeof *c);
    if (!c)
        return NULL;
    struct tp_trace_chunk *head = atomic_load(&tp_trace_chunks);
    do
        c->next = head;
    while (!atomic_compare_exchange_weak(&tp_trace_chunks, &head, c));
    return c;
}

void tp_trace_summarise(struct tp_trace_summary *s, uint64_t t0, uint64_t t1)
{
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->ticks, t1 - t0, memory_order_relaxed);
    uint64_t f = atomic_load_explicit(&s->first, memory_order_relaxed);
    while ((f == 0 || t0 < f) && !atomic_compare_exchange_weak_explicit(
                                     &s->first, &f, t0, memory_order_relaxed, memory_order_relaxed))
        ;
    uint64_t l = atomic_load_explicit(&s->last, memory_order_relaxed);
    while (t1 > l && !atomic_compare_exchange_weak_explicit(&s->last, &l, t1, memory_order_relaxed,
                                                            memory_order_relaxed))
        ;
}

void tp_trace_call(int op, uint64_t t0, uint64_t t1, uint64_t flops, int shape)
{
    if (op < 0 || op >= tp_trace_nsummary)
        return;
    if (t1 < t0)
        t1 = t0;
    uint64_t k = atomic_fetch_add_explicit(&tp_trace_recorded, 1, memory_order_relaxed);
    struct tp_trace_chunk *c = my_chunk;
    if (k >= tp_cfg.trace_cap) {
        tp_trace_summarise(&tp_trace_past_cap[op], t0, t1);
        return;
    }
    if (k >= keep_cap ||
        ((!c || atomic_load_explicit(&c->n, memory_order_relaxed) == CHUNK_EVENTS) &&
         !(c = my_chunk = new_chunk()))) {
        tp_trace_summarise(&tp_trace_past_room[op], t0, t1);
        return;
    }
    uint32_t n = atomic_load_explicit(&c->n, memory_order_relaxed);
    struct tp_trace_event *e = &c->ev[n];
    e->t0 = t0;
    e->dur = t1 - t0;
    e->flops = flops;
    e->op = op;
    e->thread = (uint16_t)thread_index();
    e->shape = (int16_t)(shape >= 0 && shape < 32767 ? shape : -1);
    atomic_store_explicit(&c->n, n + 1, memory_order_release);
}

void tp_tracebuf_fork_reset(void)
{
    /* The chunks are abandoned, not unmapped: nothing else refers to them, and this runs inside
     * fork. */
    atomic_store(&tp_trace_chunks, NULL);
    my_chunk = NULL;
    my_thread = 0;
    atomic_store(&tp_trace_nthreads, 0);
    atomic_store(&tp_trace_recorded, 0);
    /* entries past the ops interned were never touched (the arrays are mapped for every id) */
    int n = tp_ops_count() < tp_trace_nsummary ? tp_ops_count() : tp_trace_nsummary;
    memset(tp_trace_past_cap, 0, (size_t)n * sizeof *tp_trace_past_cap);
    memset(tp_trace_past_room, 0, (size_t)n * sizeof *tp_trace_past_room);
    atomic_store(&tp_trace_nsamples, 0);
    take_base();
}
