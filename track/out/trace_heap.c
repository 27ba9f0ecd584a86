/* The trace's heap counter (see track/out/out.h).
 *
 * The heap is not sampled on the allocation path at all: a thread of ours reads the live bytes
 * every millisecond, halving its rate whenever the fixed sample buffer fills, and the exact peak
 * is added when the file is written. So a trace costs the malloc hooks nothing, and a run of any
 * length yields a bounded buffer. Apart from the trace buffer because it reads the heap table,
 * which itself sits above the op core that records into the buffer. */
#include "track/out/out.h"

#include <stdatomic.h>
#include <time.h>

#include "common/clock.h"

#include "track/heap/heap.h"
#include "track/runtime.h"

#define MAX_SAMPLES TP_TRACE_MAX_SAMPLES

static uint64_t sample_every_ns = 1000000;
static int sampler_started;

static void add_sample(void)
{
    struct tp_heap_totals t;
    tp_heap_totals(&t);
    uint32_t n = atomic_load(&tp_trace_nsamples);
    if (n == MAX_SAMPLES) {
        /* Keep every other sample and sample half as often: the buffer covers any run length. */
        for (uint32_t i = 0; i < MAX_SAMPLES / 2; i++)
            tp_trace_samples[i] = tp_trace_samples[2 * i];
        n = MAX_SAMPLES / 2;
        sample_every_ns *= 2;
    }
    uint64_t now = tp_now_ns();
    tp_trace_samples[n].ns = now > tp_start_ns ? now - tp_start_ns : 0;
    tp_trace_samples[n].live = t.live;
    atomic_store(&tp_trace_nsamples, n + 1);
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
        struct timespec ts = {(time_t)(sample_every_ns / 1000000000ull),
                              (long)(sample_every_ns % 1000000000ull)};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return NULL;
}

void tp_trace_start(void)
{
    if (!tp_trace_on || sampler_started)
        return;
    if (tp_start_thread(sampler) == 0)
        sampler_started = 1;
    else
        tp_warn("TPROF_TRACE: cannot start the heap sampler; the heap track has only the peak");
}

void tp_trace_fork_child(void)
{
    if (!tp_trace_on)
        return;
    tp_tracebuf_fork_reset();
    sample_every_ns = 1000000;
    sampler_started = 0; /* the sampler thread did not survive the fork */
    tp_trace_start();
}
