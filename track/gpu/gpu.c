/* The devices' side of a CUDA program, as its driver calls show it (gpu.h): the device memory live
 * now (address, size, the call site's row), sorted by address, so that a free finds its block and
 * cuMemcpy's unified addresses find theirs (a copy to an offset inside a tensor) by binary search;
 * rows per call site, device
 * and kind (allocations, frees, bytes, live now and at the device's peak), per device the live
 * bytes and their peak with its time and op, counters of copies, memsets and synchronise waits,
 * and the kernels launched by function.
 *
 * Driver calls are few beside a program's mallocs (a model allocates its tensors once, launches
 * kernels by the thousand, not the million), so one spin lock guards the tables; none of the
 * calls comes from a signal handler. The tables are mapped at the first driver call: a program
 * without CUDA costs nothing but the code. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/pages.h"
#include "report/report.h"
#include "track/gpu/gpu.h"
#include "track/ops/ops.h"
#include "track/runtime.h"

#define LIVE_MAX 49152 /* device allocations live at once: past it, untracked */
#define ROWS     1024  /* call site x device x kind */
#define KERNELS  4096
#define GEMMS    512 /* function x shape x type */

struct live {
    uint64_t ptr, bytes;
    uint32_t row;
};

struct row {
    uint32_t site;
    uint8_t device, kind, used;
    uint64_t allocs, frees, bytes, live, live_at_peak;
};

struct kernel {
    const void *fn;
    char name[120];
    uint64_t launches;
    unsigned grid[3], block[3], shared;
    int op; /* the op open at every launch so far; -1 none, -2 not the same at each */
};

struct gemm {
    struct tp_gpu_gemm_call key; /* function and dtype: literals of hook_cublas.c */
    uint64_t calls, host_ns;
};

struct device {
    uint64_t allocs, frees, bytes, live, live_allocs, peak, peak_ns;
    int peak_op;
};

struct state {
    struct live live[LIVE_MAX]; /* by address; an insertion or removal moves the blocks after it,
                                 * which a model's few hundred or thousand live buffers make cheap
                                 * beside the driver call */
    uint32_t nlive;
    struct row rows[ROWS];
    uint32_t nrows;
    struct kernel kernels[KERNELS];
    uint32_t nkernels;
    struct device devices[TP_GPU_DEVICES];
    uint64_t copies[TP_GPU_COPY_KINDS][4]; /* calls, async calls, bytes, sync ns */
    uint64_t syncs[TP_GPU_SYNC_KINDS][3];  /* calls, ns, ns inside an op */
    uint64_t memset_calls, memset_bytes, unknown_frees, untracked;
    struct gemm gemms[GEMMS];
    uint32_t ngemms;
    uint64_t gemms_untracked;
};

static struct state *st;
static atomic_flag lock = ATOMIC_FLAG_INIT;
static _Atomic uint64_t calls;
static _Atomic int mapped; /* 0 not yet, 1 mapped, -1 could not be */

static int take(void)
{
    if (atomic_load_explicit(&mapped, memory_order_acquire) == 0) {
        while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
            ;
        if (atomic_load(&mapped) == 0) {
            st = tp_pages_map(sizeof *st, 1);
            atomic_store(&mapped, st ? 1 : -1);
            if (!st)
                tp_warn("cannot map the GPU tables; no GPU figures in the report");
        }
        atomic_flag_clear_explicit(&lock, memory_order_release);
    }
    if (atomic_load_explicit(&mapped, memory_order_acquire) < 0)
        return 0;
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
    return 1;
}

static void give(void)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
}

void tp_gpu_seen(void)
{
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
}

/* The first live block at or after ptr. */
static uint32_t lower_bound(uint64_t ptr)
{
    uint32_t lo = 0, hi = st->nlive;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (st->live[mid].ptr < ptr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int row_of(uint32_t site, int device, int kind)
{
    for (uint32_t i = 0; i < st->nrows; i++) {
        const struct row *r = &st->rows[i];
        if (r->site == site && r->device == device && r->kind == kind)
            return (int)i;
    }
    if (st->nrows >= ROWS)
        return -1;
    struct row *r = &st->rows[st->nrows];
    r->site = site;
    r->device = (uint8_t)device;
    r->kind = (uint8_t)kind;
    r->used = 1;
    return (int)st->nrows++;
}

void tp_gpu_alloc(int device, enum tp_gpu_mem kind, uint64_t ptr, uint64_t bytes, uint32_t site)
{
    if (device < 0 || device >= TP_GPU_DEVICES)
        device = TP_GPU_DEVICES - 1;
    if (!take())
        return;
    int row = row_of(site, device, kind);
    uint32_t at = lower_bound(ptr);
    /* the driver gives an address again only after its free: one there now is a free tprof did
     * not see (a block freed some other way), and this allocation is the block now */
    int again = at < st->nlive && st->live[at].ptr == ptr;
    if (row < 0 || (!again && st->nlive >= LIVE_MAX)) {
        st->untracked++;
        give();
        return;
    }
    if (again) { /* the old block is gone: no longer live where it was counted */
        const struct live *old = &st->live[at];
        struct row *o = &st->rows[old->row];
        o->live -= old->bytes;
        st->devices[o->device].live -= old->bytes;
        st->devices[o->device].live_allocs--;
    } else {
        memmove(&st->live[at + 1], &st->live[at], (st->nlive - at) * sizeof st->live[0]);
        st->nlive++;
    }
    st->live[at] = (struct live){ptr, bytes, (uint32_t)row};
    struct row *r = &st->rows[row];
    r->allocs++;
    r->bytes += bytes;
    r->live += bytes;
    struct device *d = &st->devices[device];
    d->allocs++;
    d->bytes += bytes;
    d->live += bytes;
    d->live_allocs++;
    if (d->live > d->peak) {
        d->peak = d->live;
        d->peak_ns = tp_now_ns();
        d->peak_op = tp_ops_current();
        /* the rows of this device as they stand at its new peak */
        for (uint32_t i = 0; i < st->nrows; i++)
            if (st->rows[i].device == device)
                st->rows[i].live_at_peak = st->rows[i].live;
    }
    give();
}

int tp_gpu_free(uint64_t ptr)
{
    if (!take())
        return 0;
    uint32_t at = lower_bound(ptr);
    if (at >= st->nlive || st->live[at].ptr != ptr) {
        st->unknown_frees++;
        give();
        return 0;
    }
    const struct live *l = &st->live[at];
    struct row *r = &st->rows[l->row];
    struct device *d = &st->devices[r->device];
    r->frees++;
    r->live -= l->bytes;
    d->frees++;
    d->live -= l->bytes;
    d->live_allocs--;
    memmove(&st->live[at], &st->live[at + 1], (st->nlive - at - 1) * sizeof st->live[0]);
    st->nlive--;
    give();
    return 1;
}

int tp_gpu_is_device(uint64_t ptr)
{
    if (!take())
        return 0;
    /* the block that starts at ptr, or the last one before it, if ptr is inside it */
    uint32_t at = lower_bound(ptr);
    int in = at < st->nlive && st->live[at].ptr == ptr;
    if (!in && at > 0) {
        const struct live *l = &st->live[at - 1];
        in = ptr - l->ptr < (l->bytes ? l->bytes : 1);
    }
    give();
    return in;
}

void tp_gpu_copy(enum tp_gpu_dir dir, uint64_t bytes, uint64_t ns, int async)
{
    if (dir >= TP_GPU_COPY_KINDS || !take())
        return;
    uint64_t *c = st->copies[dir];
    c[0]++;
    c[1] += async != 0;
    c[2] += bytes;
    c[3] += async ? 0 : ns;
    give();
}

void tp_gpu_memset(uint64_t bytes, int async)
{
    (void)async;
    if (!take())
        return;
    st->memset_calls++;
    st->memset_bytes += bytes;
    give();
}

static struct kernel *kernel_of(const void *fn)
{
    for (uint32_t i = 0; i < st->nkernels; i++)
        if (st->kernels[i].fn == fn)
            return &st->kernels[i];
    if (st->nkernels >= KERNELS)
        return NULL;
    struct kernel *k = &st->kernels[st->nkernels++];
    k->fn = fn;
    return k;
}

void tp_gpu_function(const void *fn, const char *name)
{
    if (!fn || !name || !take())
        return;
    struct kernel *k = kernel_of(fn);
    if (k) {
        strncpy(k->name, name, sizeof k->name - 1);
        k->name[sizeof k->name - 1] = 0;
    }
    give();
}

void tp_gpu_launch(const void *fn, const unsigned grid[3], const unsigned block[3],
                   unsigned shared_bytes)
{
    if (!take())
        return;
    struct kernel *k = kernel_of(fn);
    if (k) {
        int op = tp_ops_current();
        k->op = !k->launches ? op : k->op == op ? op : -2;
        k->launches++;
        memcpy(k->grid, grid, sizeof k->grid);
        memcpy(k->block, block, sizeof k->block);
        k->shared = shared_bytes;
    }
    give();
}

void tp_gpu_sync(enum tp_gpu_wait kind, uint64_t ns, int op)
{
    if (kind >= TP_GPU_SYNC_KINDS || !take())
        return;
    st->syncs[kind][0]++;
    st->syncs[kind][1] += ns;
    st->syncs[kind][2] += op >= 0 ? ns : 0;
    give();
}

static int same_gemm(const struct tp_gpu_gemm_call *a, const struct tp_gpu_gemm_call *b)
{
    return a->function == b->function && a->dtype == b->dtype && a->transa == b->transa &&
           a->transb == b->transb && a->m == b->m && a->n == b->n && a->k == b->k &&
           a->batch == b->batch;
}

void tp_gpu_gemm(const struct tp_gpu_gemm_call *g, uint64_t host_ns)
{
    if (!take())
        return;
    struct gemm *e = NULL;
    for (uint32_t i = 0; i < st->ngemms && !e; i++)
        if (same_gemm(&st->gemms[i].key, g))
            e = &st->gemms[i];
    if (!e && st->ngemms < GEMMS) {
        e = &st->gemms[st->ngemms++];
        e->key = *g;
    }
    if (e) {
        e->calls++;
        e->host_ns += host_ns;
    } else {
        st->gemms_untracked++;
    }
    give();
}

void tp_gpu_fork_child(void)
{
    /* the child's devices are not the parent's (CUDA does not survive fork): it starts empty */
    atomic_flag_clear(&lock);
    atomic_store(&calls, 0);
    if (st)
        tp_pages_zero(st, sizeof *st);
}

/* ---- collection ---- */

static const char *const mem_kinds[] = {"device", "managed", "async"};
static const char *const copy_kinds[] = {"htod", "dtoh", "dtod", "htoh"};
static const char *const sync_kinds[] = {"context", "stream", "event"};

static int by_peak_desc(const void *a, const void *b)
{
    const struct tp_gpu_site *x = a, *y = b;
    if (x->live_at_peak_bytes != y->live_at_peak_bytes)
        return x->live_at_peak_bytes < y->live_at_peak_bytes ? 1 : -1;
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

static int by_launches_desc(const void *a, const void *b)
{
    const struct tp_gpu_kernel *x = a, *y = b;
    return x->launches < y->launches ? 1 : x->launches > y->launches ? -1 : 0;
}

static void collect_memory(struct tp_gpu *g, const struct state *s,
                           void (*frames)(uint32_t, struct tp_frame **, size_t *))
{
    size_t n = 0;
    for (int i = 0; i < TP_GPU_DEVICES; i++)
        n += s->devices[i].allocs > 0;
    g->devices = n ? calloc(n, sizeof *g->devices) : NULL;
    for (int i = 0; i < TP_GPU_DEVICES && g->devices; i++) {
        const struct device *d = &s->devices[i];
        if (!d->allocs)
            continue;
        struct tp_gpu_device *o = &g->devices[g->ndevices++];
        o->device = i;
        o->peak_bytes = d->peak;
        o->peak_ns = d->peak_ns > tp_start_ns ? d->peak_ns - tp_start_ns : 0;
        const char *op = d->peak_op >= 0 ? tp_ops_name(d->peak_op) : NULL;
        o->peak_op = op ? strdup(op) : NULL;
        o->allocs = d->allocs;
        o->frees = d->frees;
        o->bytes_allocated = d->bytes;
        o->live_at_exit_bytes = d->live;
        o->live_at_exit_allocs = d->live_allocs;
    }
    g->sites = s->nrows ? calloc(s->nrows, sizeof *g->sites) : NULL;
    for (uint32_t i = 0; i < s->nrows && g->sites; i++) {
        const struct row *r = &s->rows[i];
        struct tp_gpu_site *o = &g->sites[g->nsites++];
        o->device = r->device;
        o->kind = strdup(mem_kinds[r->kind < TP_GPU_MEM_KINDS ? r->kind : 0]);
        o->allocs = r->allocs;
        o->frees = r->frees;
        o->bytes = r->bytes;
        o->live_at_peak_bytes = r->live_at_peak;
        o->live_at_exit_bytes = r->live;
        frames(r->site, &o->frames, &o->nframes);
    }
    if (g->nsites)
        qsort(g->sites, g->nsites, sizeof *g->sites, by_peak_desc);
}

static int by_flops_desc(const void *a, const void *b)
{
    const struct tp_gpu_gemm *x = a, *y = b;
    return x->flops < y->flops ? 1 : x->flops > y->flops ? -1 : 0;
}

/* A product of m x k and k x n is 2mnk FLOPs (a multiply and an add each), batch times; the beta
 * term is not counted: beta may be on the device, where the hook cannot read it. */
static void collect_gemms(struct tp_gpu *g, const struct state *s)
{
    g->gemms = s->ngemms ? calloc(s->ngemms, sizeof *g->gemms) : NULL;
    for (uint32_t i = 0; i < s->ngemms && g->gemms; i++) {
        const struct gemm *e = &s->gemms[i];
        struct tp_gpu_gemm *o = &g->gemms[g->ngemms++];
        char t[2] = {e->key.transa, 0}, u[2] = {e->key.transb, 0};
        o->function = strdup(e->key.function);
        o->dtype = strdup(e->key.dtype);
        o->transa = strdup(t);
        o->transb = strdup(u);
        o->m = (uint64_t)e->key.m, o->n = (uint64_t)e->key.n, o->k = (uint64_t)e->key.k;
        o->batch = (uint64_t)e->key.batch;
        o->calls = e->calls;
        o->flops = 2 * o->m * o->n * o->k * o->batch * e->calls;
        o->host_ns = e->host_ns;
    }
    if (g->ngemms)
        qsort(g->gemms, g->ngemms, sizeof *g->gemms, by_flops_desc);
    g->gemms_untracked = s->gemms_untracked;
}

static void collect_rest(struct tp_gpu *g, const struct state *s)
{
    collect_gemms(g, s);
    g->copies = calloc(TP_GPU_COPY_KINDS, sizeof *g->copies);
    for (int i = 0; i < TP_GPU_COPY_KINDS && g->copies; i++) {
        if (!s->copies[i][0])
            continue;
        struct tp_gpu_copy *o = &g->copies[g->ncopies++];
        o->direction = strdup(copy_kinds[i]);
        o->calls = s->copies[i][0];
        o->async_calls = s->copies[i][1];
        o->bytes = s->copies[i][2];
        o->sync_ns = s->copies[i][3];
    }
    g->syncs = calloc(TP_GPU_SYNC_KINDS, sizeof *g->syncs);
    for (int i = 0; i < TP_GPU_SYNC_KINDS && g->syncs; i++) {
        if (!s->syncs[i][0])
            continue;
        struct tp_gpu_sync *o = &g->syncs[g->nsyncs++];
        o->kind = strdup(sync_kinds[i]);
        o->calls = s->syncs[i][0];
        o->ns = s->syncs[i][1];
        o->in_ops_ns = s->syncs[i][2];
    }
    size_t n = 0;
    for (uint32_t i = 0; i < s->nkernels; i++)
        n += s->kernels[i].launches > 0;
    g->kernels = n ? calloc(n, sizeof *g->kernels) : NULL;
    for (uint32_t i = 0; i < s->nkernels && g->kernels; i++) {
        const struct kernel *k = &s->kernels[i];
        if (!k->launches)
            continue;
        struct tp_gpu_kernel *o = &g->kernels[g->nkernels++];
        o->name = k->name[0] ? strdup(k->name) : NULL;
        o->launches = k->launches;
        o->grid_x = k->grid[0], o->grid_y = k->grid[1], o->grid_z = k->grid[2];
        o->block_x = k->block[0], o->block_y = k->block[1], o->block_z = k->block[2];
        o->shared_bytes = k->shared;
        const char *op = k->op >= 0 ? tp_ops_name(k->op) : NULL;
        o->op = op ? strdup(op) : NULL;
    }
    if (g->nkernels)
        qsort(g->kernels, g->nkernels, sizeof *g->kernels, by_launches_desc);
    g->memset_calls = s->memset_calls;
    g->memset_bytes = s->memset_bytes;
    g->unknown_frees = s->unknown_frees;
    g->untracked_allocs = s->untracked;
}

void tp_gpu_collect(struct tp_report *r, void (*frames)(uint32_t, struct tp_frame **, size_t *))
{
    struct tp_gpu *g = &r->gpu;
    g->driver_calls = atomic_load(&calls);
    g->used = g->driver_calls > 0;
    if (!g->used || atomic_load(&mapped) != 1)
        return;
    g->method = strdup("CUDA driver API calls (libcuda), interposed: sizes, copies' bytes and "
                       "launches exact; times are the host's");
    /* a copy of the tables, taken under the lock, is what is reported: the program's threads may
     * still be making calls */
    struct state *s = tp_pages_map(sizeof *st, 1);
    if (!s)
        return;
    take();
    memcpy(s, st, sizeof *s);
    give();
    collect_memory(g, s, frames);
    collect_rest(g, s);
    tp_pages_unmap(s, sizeof *s);
}
