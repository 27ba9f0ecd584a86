/* The Chrome Trace Event timeline (DESIGN §7): op calls as complete events ("ph":"X") per
 * thread, the heap as a counter track, thread names, and per-op summaries of the calls that did
 * not fit. Opens in Perfetto (ui.perfetto.dev) and chrome://tracing.
 *
 * Recording costs one atomic increment and a 32-byte store per op call: calls go to per-thread
 * chunks of mmap'ed memory (not malloc: they must not show in the heap figures, and a chunk may
 * be needed while the allocator is busy on another thread). The heap counter is not sampled on
 * the allocation path at all: a thread of ours reads the live bytes every millisecond, halving
 * its rate whenever its fixed buffer fills, and the exact peak is added when the file is written.
 * So a trace costs the malloc hooks nothing, and a run of any length yields a bounded buffer. */
#include "common/pages.h"
#include "track/trace.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "track/heap.h"
#include "track/runtime.h"
#include "track/ops.h"
#include "report/render.h"
#include "report/report.h"

#define CHUNK_EVENTS 4096
#define MAX_THREADS 4096    /* threads named in the trace; later ones share the last track */
#define MAX_SAMPLES 16384   /* heap counter samples kept; the rate halves when full */
#define MIN_EVENT_BYTES 64  /* no event is written in fewer bytes: recording more is pointless */

struct event {
    uint64_t t0, dur; /* ticks */
    uint64_t flops;
    int32_t op;
    uint16_t thread;  /* index into threads[] */
    int16_t shape;    /* shape slot of the op, -1 none */
};

struct chunk {
    struct chunk *next;
    _Atomic uint32_t n; /* events ready: a writer publishes each with a release store */
    struct event ev[CHUNK_EVENTS];
};

struct summary {
    _Atomic uint64_t calls, ticks, first, last;
};

struct thread_name {
    long tid;
    char name[16];
};

struct sample {
    uint64_t ns; /* since tp_start_ns */
    uint64_t live;
};

int tp_trace_on;
static _Atomic(struct chunk *) chunks;
static _Atomic uint64_t recorded;     /* calls offered to the trace */
static uint64_t keep_cap;             /* calls kept in memory at most */
static struct summary *past_cap;      /* per op: calls past TPROF_TRACE_CAP */
static struct summary *past_room;     /* per op: calls the size budget could never hold */
static int nsummary;
static struct thread_name threads[MAX_THREADS];
static _Atomic int nthreads;
static TP_TLS struct chunk *my_chunk;
static TP_TLS int my_thread;          /* index + 1; 0 until this thread's first call */
static uint64_t base_ticks, base_ns;  /* one instant on both clocks */
static struct sample *samples;
static _Atomic uint32_t nsamples;
static uint64_t sample_every_ns = 1000000;
static int sampler_started;

static void *map_zeroed(size_t n) { return tp_pages_map(n, 0); }

static void take_base(void)
{
    base_ticks = tp_ticks();
    base_ns = tp_now_ns();
}

void tp_trace_init(void)
{
    if (!tp_cfg.trace)
        return;
    keep_cap = tp_cfg.trace_cap;
    if (keep_cap > tp_cfg.trace_max / MIN_EVENT_BYTES)
        keep_cap = tp_cfg.trace_max / MIN_EVENT_BYTES;
    nsummary = (int)tp_cfg.max_ops;
    past_cap = map_zeroed((size_t)nsummary * sizeof *past_cap);
    past_room = map_zeroed((size_t)nsummary * sizeof *past_room);
    samples = map_zeroed(MAX_SAMPLES * sizeof *samples);
    if (!past_cap || !past_room || !samples) {
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
    int i = atomic_fetch_add(&nthreads, 1);
    if (i >= MAX_THREADS) {
        atomic_store(&nthreads, MAX_THREADS);
        i = MAX_THREADS - 1;
    } else {
        threads[i].tid = (long)syscall(SYS_gettid);
        /* The name the program gave the thread so far (pthread_setname_np); read once. */
        if (prctl(PR_GET_NAME, threads[i].name, 0, 0, 0) != 0)
            threads[i].name[0] = 0;
    }
    my_thread = i + 1;
    return i;
}

static struct chunk *new_chunk(void)
{
    struct chunk *c = map_zeroed(sizeof *c);
    if (!c)
        return NULL;
    struct chunk *head = atomic_load(&chunks);
    do
        c->next = head;
    while (!atomic_compare_exchange_weak(&chunks, &head, c));
    return c;
}

static void summarise(struct summary *s, uint64_t t0, uint64_t t1)
{
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->ticks, t1 - t0, memory_order_relaxed);
    uint64_t f = atomic_load_explicit(&s->first, memory_order_relaxed);
    while ((f == 0 || t0 < f) &&
           !atomic_compare_exchange_weak_explicit(&s->first, &f, t0, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
    uint64_t l = atomic_load_explicit(&s->last, memory_order_relaxed);
    while (t1 > l && !atomic_compare_exchange_weak_explicit(&s->last, &l, t1, memory_order_relaxed,
                                                            memory_order_relaxed))
        ;
}

void tp_trace_call(int op, uint64_t t0, uint64_t t1, uint64_t flops, int shape)
{
    if (op < 0 || op >= nsummary)
        return;
    if (t1 < t0)
        t1 = t0;
    uint64_t k = atomic_fetch_add_explicit(&recorded, 1, memory_order_relaxed);
    struct chunk *c = my_chunk;
    if (k >= tp_cfg.trace_cap) {
        summarise(&past_cap[op], t0, t1);
        return;
    }
    if (k >= keep_cap || ((!c || atomic_load_explicit(&c->n, memory_order_relaxed) == CHUNK_EVENTS) &&
                          !(c = my_chunk = new_chunk()))) {
        summarise(&past_room[op], t0, t1);
        return;
    }
    uint32_t n = atomic_load_explicit(&c->n, memory_order_relaxed);
    struct event *e = &c->ev[n];
    e->t0 = t0;
    e->dur = t1 - t0;
    e->flops = flops;
    e->op = op;
    e->thread = (uint16_t)thread_index();
    e->shape = (int16_t)(shape >= 0 && shape < 32767 ? shape : -1);
    atomic_store_explicit(&c->n, n + 1, memory_order_release);
}

/* ---- the heap counter ---- */

static void add_sample(void)
{
    struct tp_heap_totals t;
    tp_heap_totals(&t);
    uint32_t n = atomic_load(&nsamples);
    if (n == MAX_SAMPLES) {
        /* Keep every other sample and sample half as often: the buffer covers any run length. */
        for (uint32_t i = 0; i < MAX_SAMPLES / 2; i++)
            samples[i] = samples[2 * i];
        n = MAX_SAMPLES / 2;
        sample_every_ns *= 2;
    }
    uint64_t now = tp_now_ns();
    samples[n].ns = now > tp_start_ns ? now - tp_start_ns : 0;
    samples[n].live = t.live;
    atomic_store(&nsamples, n + 1);
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
    /* The child's trace is its own: the parent's calls stay in the parent's file. The chunks are
     * abandoned, not unmapped: nothing else refers to them, and this runs inside fork. */
    atomic_store(&chunks, NULL);
    my_chunk = NULL;
    my_thread = 0;
    atomic_store(&nthreads, 0);
    atomic_store(&recorded, 0);
    memset(past_cap, 0, (size_t)nsummary * sizeof *past_cap);
    memset(past_room, 0, (size_t)nsummary * sizeof *past_room);
    atomic_store(&nsamples, 0);
    sample_every_ns = 1000000;
    take_base();
    sampler_started = 0; /* the sampler thread did not survive the fork */
    tp_trace_start();
}

/* ---- the file ---- */

struct writer {
    struct tp_buf *b;
    long pid;
    double ratio;        /* ns per tick */
    int64_t base_rel_ns; /* base_ns - tp_start_ns */
    int first;
    int nops;
    char **prefix;       /* per op: the start of its events, up to the tid */
    char **shape;        /* per op and shape slot: ',"shape":"..."' or NULL, made when first needed */
};

static int64_t ns_of(const struct writer *w, uint64_t ticks)
{
    double ns = (double)w->base_rel_ns + ((double)ticks - (double)base_ticks) * w->ratio;
    return ns > 0 ? (int64_t)(ns + 0.5) : 0;
}

static double us_of(const struct writer *w, uint64_t ticks)
{
    return (double)ns_of(w, ticks) / 1000.0;
}

static void sep(struct writer *w)
{
    tp_buf_puts(w->b, w->first ? "\n" : ",\n");
    w->first = 0;
}

/* Decimal digits without printf: a trace has a million events, and vsnprintf of doubles was
 * most of the time it took to write them. */
static void put_u64(struct tp_buf *b, uint64_t v)
{
    char d[24];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    char out[24];
    for (int i = 0; i < n; i++)
        out[i] = d[n - 1 - i];
    tp_buf_put(b, out, (size_t)n);
}

/* v thousandths as "q.rrr": microseconds from nanoseconds, GFLOP/s to three places. */
static void put_milli(struct tp_buf *b, uint64_t v)
{
    char r[4] = {(char)('0' + v / 100 % 10), (char)('0' + v / 10 % 10), (char)('0' + v % 10), 0};
    put_u64(b, v / 1000);
    tp_buf_putc(b, '.');
    tp_buf_put(b, r, 3);
}

static const char *event_prefix(struct writer *w, int op)
{
    if (w->prefix && w->prefix[op])
        return w->prefix[op];
    struct tp_buf t;
    tp_buf_init(&t);
    const char *name = tp_ops_name(op), *kind = tp_ops_kind(op);
    tp_buf_puts(&t, "{\"ph\":\"X\",\"name\":");
    tp_json_str(&t, name ? name : "?");
    tp_buf_puts(&t, ",\"cat\":");
    tp_json_str(&t, kind ? kind : "op");
    tp_buf_printf(&t, ",\"pid\":%ld,\"tid\":", w->pid);
    char *p = tp_buf_ok(&t) ? tp_strdup(tp_buf_str(&t)) : NULL;
    tp_buf_free(&t);
    if (w->prefix && p)
        w->prefix[op] = p;
    return p ? p : "{\"ph\":\"X\",\"name\":\"?\",\"tid\":";
}

static const char *event_shape(struct writer *w, int op, int slot)
{
    char **cell = w->shape ? &w->shape[(size_t)op * TP_OPS_MAX_SHAPES + (size_t)slot] : NULL;
    if (cell && *cell)
        return *cell;
    char desc[96];
    if (tp_ops_shape_desc(op, slot, desc, sizeof desc) != 0)
        return NULL;
    struct tp_buf t;
    tp_buf_init(&t);
    tp_buf_puts(&t, "\"shape\":");
    tp_json_str(&t, desc);
    char *p = tp_buf_ok(&t) ? tp_strdup(tp_buf_str(&t)) : NULL;
    tp_buf_free(&t);
    if (cell)
        *cell = p;
    return p;
}

/* An op call as a complete event. */
static void put_event(struct writer *w, const struct event *e)
{
    struct tp_buf *b = w->b;
    sep(w);
    tp_buf_puts(b, event_prefix(w, e->op));
    put_u64(b, (uint64_t)threads[e->thread].tid);
    double dur_ns = (double)e->dur * w->ratio;
    tp_buf_puts(b, ",\"ts\":");
    put_milli(b, (uint64_t)ns_of(w, e->t0));
    tp_buf_puts(b, ",\"dur\":");
    put_milli(b, (uint64_t)(dur_ns + 0.5));
    const char *shape = e->shape >= 0 && e->shape < TP_OPS_MAX_SHAPES ? event_shape(w, e->op, e->shape) : NULL;
    if (e->flops || shape) {
        tp_buf_puts(b, ",\"args\":{");
        if (shape)
            tp_buf_puts(b, shape);
        if (e->flops) {
            tp_buf_puts(b, shape ? ",\"flops\":" : "\"flops\":");
            put_u64(b, e->flops);
            tp_buf_puts(b, ",\"gflops\":");
            put_milli(b, dur_ns > 0 ? (uint64_t)((double)e->flops / dur_ns * 1000.0 + 0.5) : 0);
        }
        tp_buf_putc(b, '}');
    }
    tp_buf_putc(b, '}');
}

static void put_counter(struct writer *w, double ts_us, uint64_t live)
{
    sep(w);
    tp_buf_printf(w->b, "{\"ph\":\"C\",\"name\":\"heap\",\"pid\":%ld,\"ts\":%.3f,"
                        "\"args\":{\"live_bytes\":%llu}}",
                  w->pid, ts_us, (unsigned long long)live);
}

/* Summaries go on a track of their own, numbered past any real thread id. */
static long summary_tid(void)
{
    return 0x7fffffffL;
}

static void put_summary(struct writer *w, int op, const struct summary *s, const char *why)
{
    uint64_t first = atomic_load(&s->first), last = atomic_load(&s->last);
    const char *name = tp_ops_name(op);
    char label[64];
    snprintf(label, sizeof label, " (%llu calls summarised)", (unsigned long long)atomic_load(&s->calls));
    sep(w);
    tp_buf_puts(w->b, "{\"ph\":\"X\",\"name\":");
    struct tp_buf t;
    tp_buf_init(&t);
    tp_buf_puts(&t, name ? name : "?");
    tp_buf_puts(&t, label);
    tp_json_str(w->b, tp_buf_str(&t));
    tp_buf_free(&t);
    tp_buf_printf(w->b, ",\"cat\":\"summary\",\"pid\":%ld,\"tid\":%ld,\"ts\":%.3f,\"dur\":%.3f,"
                        "\"args\":{\"calls\":%llu,\"total_us\":%.3f,\"why\":\"%s\"}}",
                  w->pid, summary_tid(), us_of(w, first),
                  last > first ? (double)(last - first) * w->ratio / 1000.0 : 0.0,
                  (unsigned long long)atomic_load(&s->calls),
                  (double)atomic_load(&s->ticks) * w->ratio / 1000.0, why);
}

/* What one summary event can take at most: fixed text, the name (escaped, each byte up to six
 * characters) and the numbers. */
static size_t summary_bound(int op)
{
    const char *name = tp_ops_name(op);
    return 300 + 6 * (name ? strlen(name) : 1);
}

static void put_meta(struct writer *w, const char *what, long tid, const char *name)
{
    sep(w);
    tp_buf_printf(w->b, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":",
                  what, w->pid, tid);
    tp_json_str(w->b, name);
    tp_buf_puts(w->b, "}}");
}

void tp_trace_render(struct tp_report *r, struct tp_buf *b)
{
    struct tp_outputs *o = &r->outputs;
    const uint64_t max = tp_cfg.trace_max;
    int nops = 0;
    while (nops < nsummary && tp_ops_name(nops))
        nops++;
    struct writer w = {b, (long)r->program.pid, (double)tp_ticks_to_ns(1ull << 30) / (double)(1ull << 30),
                       (int64_t)base_ns - (int64_t)tp_start_ns, 1, 0, NULL, NULL};

    /* Calls past the size budget are summarised here, apart from those past the cap. */
    struct summary *past_max = tp_calloc(nops ? (size_t)nops : 1, sizeof *past_max);
    for (int i = 0; past_max && i < nops; i++) {
        struct summary *d = &past_max[i], *s0 = &past_room[i];
        atomic_store(&d->calls, atomic_load(&s0->calls));
        atomic_store(&d->ticks, atomic_load(&s0->ticks));
        atomic_store(&d->first, atomic_load(&s0->first));
        atomic_store(&d->last, atomic_load(&s0->last));
    }
    /* Room kept for what comes after the events: the closing object, the summary track's name,
     * and for every op that has calls, a summary for each reason. */
    char *has_calls = tp_calloc(nops ? (size_t)nops : 1, 1);
    size_t reserve = 1024;
    if (has_calls) {
        for (struct chunk *c = atomic_load(&chunks); c; c = c->next) {
            uint32_t n = atomic_load_explicit(&c->n, memory_order_acquire);
            for (uint32_t i = 0; i < n; i++)
                if (c->ev[i].op >= 0 && c->ev[i].op < nops)
                    has_calls[c->ev[i].op] = 1;
        }
        for (int i = 0; i < nops; i++)
            if (has_calls[i] || atomic_load(&past_cap[i].calls) || atomic_load(&past_room[i].calls))
                reserve += 2 * summary_bound(i);
        tp_free(has_calls);
    } else {
        for (int i = 0; i < nops; i++)
            reserve += 2 * summary_bound(i);
    }

    /* One allocation for the whole file: ~100 bytes per event (measured: 97 for the test loop's
     * calls), within the budget. */
    uint64_t want = 1u << 20;
    for (struct chunk *c = atomic_load(&chunks); c; c = c->next)
        want += 128ull * atomic_load_explicit(&c->n, memory_order_acquire);
    tp_buf_reserve(b, (size_t)(want < max ? want : max));
    b->oom = 0; /* a failed reservation is not an error: the buffer grows as it goes */
    tp_buf_printf(b, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    const char *exe = r->program.exe ? strrchr(r->program.exe, '/') : NULL;
    char pname[300];
    snprintf(pname, sizeof pname, "%s (pid %ld)", exe ? exe + 1 : r->program.exe ? r->program.exe : "program",
             w.pid);
    put_meta(&w, "process_name", 0, pname);

    /* Thread names: a budget of an eighth of the file. */
    int nt = atomic_load(&nthreads);
    for (int i = 0; i < nt && b->len + 200 + reserve <= max && b->len + 200 <= max / 8; i++) {
        char name[64];
        if (i == MAX_THREADS - 1)
            snprintf(name, sizeof name, "threads %d and later", MAX_THREADS);
        else if (threads[i].name[0])
            snprintf(name, sizeof name, "%s (tid %ld)", threads[i].name, threads[i].tid);
        else
            snprintf(name, sizeof name, "tid %ld", threads[i].tid);
        put_meta(&w, "thread_name", threads[i].tid, name);
    }

    /* The heap counter: another eighth, evenly thinned to fit; then the exact peak and exit. */
    uint32_t ns = atomic_load(&nsamples);
    size_t per_sample = 110;
    uint64_t left = max > b->len + reserve + 3 * per_sample ? max - b->len - reserve - 3 * per_sample : 0;
    uint64_t room = (max / 8 < left ? max / 8 : left) / per_sample;
    uint32_t step = room == 0 ? ns + 1 : (uint32_t)((ns + room - 1) / room);
    if (step == 0)
        step = 1;
    uint64_t written_samples = 0;
    int peak_done = r->memory.peak_bytes == 0;
    for (uint32_t i = 0; i < ns; i += step) {
        double ts = (double)samples[i].ns / 1000.0;
        if (!peak_done && samples[i].ns > r->memory.peak_ns) {
            put_counter(&w, (double)r->memory.peak_ns / 1000.0, r->memory.peak_bytes);
            peak_done = 1;
            written_samples++;
        }
        put_counter(&w, ts, samples[i].live);
        written_samples++;
    }
    if (!peak_done) {
        put_counter(&w, (double)r->memory.peak_ns / 1000.0, r->memory.peak_bytes);
        written_samples++;
    }
    put_counter(&w, (double)r->program.wall_ns / 1000.0, r->memory.live_at_exit_bytes);
    written_samples++;

    /* The op calls, while they fit; the one that does not is taken back out. */
    uint64_t events = 0, over = 0;
    w.prefix = tp_calloc(nops ? (size_t)nops : 1, sizeof *w.prefix);
    w.shape = tp_calloc((nops ? (size_t)nops : 1) * TP_OPS_MAX_SHAPES, sizeof *w.shape);
    w.nops = nops;
    for (struct chunk *c = atomic_load(&chunks); c; c = c->next) {
        uint32_t n = atomic_load_explicit(&c->n, memory_order_acquire);
        for (uint32_t i = 0; i < n; i++) {
            const struct event *e = &c->ev[i];
            if (e->op < 0 || e->op >= nops)
                continue;
            if (!over) {
                size_t at = b->len;
                int first = w.first;
                put_event(&w, e);
                if (tp_buf_ok(b) && b->len + reserve <= max) {
                    events++;
                    continue;
                }
                b->len = at;
                w.first = first;
                over = 1;
            }
            if (past_max)
                summarise(&past_max[e->op], e->t0, e->t0 + e->dur);
        }
    }
    for (int i = 0; w.prefix && i < nops; i++)
        tp_free(w.prefix[i]);
    for (size_t i = 0; w.shape && i < (size_t)nops * TP_OPS_MAX_SHAPES; i++)
        tp_free(w.shape[i]);
    tp_free(w.prefix);
    tp_free(w.shape);

    uint64_t n_cap = 0, n_max = 0;
    int summary_track = 0;
    for (int i = 0; i < nops; i++) {
        uint64_t a = atomic_load(&past_cap[i].calls), m = past_max ? atomic_load(&past_max[i].calls) : 0;
        if ((a || m) && !summary_track) {
            put_meta(&w, "thread_name", summary_tid(), "tprof: calls not drawn one by one (summary)");
            summary_track = 1;
        }
        if (a)
            put_summary(&w, i, &past_cap[i], "past TPROF_TRACE_CAP");
        if (m)
            put_summary(&w, i, &past_max[i], "past TPROF_TRACE_MAX");
        n_cap += a;
        n_max += m;
    }
    tp_free(past_max);

    tp_buf_printf(b, "\n],\"otherData\":{\"tprof_version\":\"%s\",\"op_calls\":%llu,"
                     "\"events\":%llu,\"summarised_past_cap\":%llu,\"summarised_past_max\":%llu,"
                     "\"trace_cap\":%llu,\"trace_max\":%llu,\"heap_samples\":%llu}}\n",
                  TPROF_VERSION, (unsigned long long)atomic_load(&recorded),
                  (unsigned long long)events, (unsigned long long)n_cap, (unsigned long long)n_max,
                  (unsigned long long)tp_cfg.trace_cap, (unsigned long long)max,
                  (unsigned long long)written_samples);
    o->trace_calls = atomic_load(&recorded);
    o->trace_events = events;
    o->trace_past_cap = n_cap;
    o->trace_past_max = n_max;
    o->trace_heap_samples = written_samples;
    o->trace_bytes = b->len;
}
