/* ggml's backend buffers by role (see track/heap/heap.h).
 *
 * A ggml program's memory is in backend buffers: the weights, the KV cache, the graph's compute
 * buffer, each one heap block (the CPU backend's ggml_aligned_malloc) or a mapping, and a heap
 * call site says only that ggml allocated it. ggml itself knows more: a buffer's type has a name
 * ("CPU") and the program or ggml's allocator says what a buffer holds with
 * ggml_backend_buffer_set_usage (weights, compute; "any" otherwise: a KV cache, a model's tensors
 * allocated in one go). So three of ggml's exports are watched through the PLT, like ops but
 * without timing: ggml_backend_buft_alloc_buffer (the buffer it returns), set_usage and
 * ggml_backend_buffer_free. A buffer's name and size are asked of ggml's own
 * ggml_backend_buffer_name and ggml_backend_buffer_get_size, found in the process; without them
 * nothing is kept. At most MAX_BUFS buffers are kept; the rest are counted. */
#include "track/heap/heap.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "report/report.h"
#include "track/runtime.h"

#define MAX_BUFS 1024

struct buf {
    uintptr_t buffer;
    char name[32];
    int usage;
    uint64_t bytes, alloc_ns, free_ns; /* CLOCK_MONOTONIC; free_ns 0: live */
};

typedef const char *(*name_fn)(uintptr_t buffer);
typedef size_t (*size_fn)(uintptr_t buffer);

static struct buf bufs[MAX_BUFS];
static int nbufs;
static _Atomic uint64_t dropped;
static atomic_flag lock = ATOMIC_FLAG_INIT;
/* 0: not looked up yet; 1: found; -1: ggml's functions are not in the process */
static _Atomic int found;
static name_fn buf_name;
static size_fn buf_size;

int tp_ggmlbuf_call(const char *name)
{
    if (!name || strncmp(name, "ggml_backend_buf", 16))
        return TP_GGMLBUF_NONE;
    if (!strcmp(name, "ggml_backend_buft_alloc_buffer"))
        return TP_GGMLBUF_ALLOC;
    if (!strcmp(name, "ggml_backend_buffer_set_usage"))
        return TP_GGMLBUF_USAGE;
    if (!strcmp(name, "ggml_backend_buffer_free"))
        return TP_GGMLBUF_FREE;
    return TP_GGMLBUF_NONE;
}

static int lookup(void)
{
    int f = atomic_load_explicit(&found, memory_order_acquire);
    if (f)
        return f > 0;
    struct tp_own g = tp_own_begin(); /* dlsym may allocate */
    name_fn n = (name_fn)dlsym(RTLD_DEFAULT, "ggml_backend_buffer_name");
    size_fn s = (size_fn)dlsym(RTLD_DEFAULT, "ggml_backend_buffer_get_size");
    tp_own_end(g);
    if (n && s) {
        buf_name = n;
        buf_size = s;
    }
    atomic_store_explicit(&found, n && s ? 1 : -1, memory_order_release);
    return n && s;
}

static void take(void)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

static void give(void)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
}

/* The live entry of buffer, or NULL. Under the lock. */
static struct buf *live(uintptr_t buffer)
{
    for (int i = nbufs - 1; i >= 0; i--)
        if (bufs[i].buffer == buffer && !bufs[i].free_ns)
            return &bufs[i];
    return NULL;
}

/* A new entry for buffer, made at t. Under the lock. */
static struct buf *add(uintptr_t buffer, uint64_t t)
{
    if (nbufs >= MAX_BUFS) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        return NULL;
    }
    const char *n = buf_name(buffer);
    struct buf *b = &bufs[nbufs++];
    *b = (struct buf){.buffer = buffer, .bytes = buf_size(buffer), .alloc_ns = t};
    snprintf(b->name, sizeof b->name, "%s", n ? n : "?");
    return b;
}

void tp_ggmlbuf_alloc(uintptr_t buffer, uint64_t t_ns)
{
    if (!buffer || !lookup())
        return;
    take();
    if (!live(buffer))
        add(buffer, t_ns);
    give();
}

void tp_ggmlbuf_usage(uintptr_t buffer, int usage)
{
    if (!buffer || !lookup())
        return;
    take();
    /* a buffer made around the PLT (from a pointer, as a mapped model's is) is seen here first */
    struct buf *b = live(buffer);
    if (!b)
        b = add(buffer, tp_now_ns());
    if (b)
        b->usage = usage;
    give();
}

void tp_ggmlbuf_free(uintptr_t buffer)
{
    if (!buffer || atomic_load_explicit(&found, memory_order_acquire) <= 0)
        return;
    take();
    struct buf *b = live(buffer);
    if (b)
        b->free_ns = tp_now_ns();
    give();
}

static const char *usage_name(int u)
{
    return u == 1 ? "weights" : u == 2 ? "compute" : "any";
}

void tp_ggmlbuf_collect(struct tp_report *r, uint64_t peak_at)
{
    struct tp_memory *m = &r->memory;
    take();
    int n = nbufs;
    m->ggml_buffers = n ? calloc((size_t)n, sizeof *m->ggml_buffers) : NULL;
    for (int i = 0; m->ggml_buffers && i < n; i++) {
        const struct buf *b = &bufs[i];
        struct tp_ggml_buffer *o = &m->ggml_buffers[m->nggml_buffers++];
        o->name = strdup(b->name);
        o->usage = strdup(usage_name(b->usage));
        o->bytes = b->bytes;
        o->alloc_ns = b->alloc_ns > tp_start_ns ? b->alloc_ns - tp_start_ns : 0;
        o->free_ns =
            b->free_ns ? (int64_t)(b->free_ns > tp_start_ns ? b->free_ns - tp_start_ns : 0) : -1;
        o->at_peak = peak_at && b->alloc_ns <= peak_at && (!b->free_ns || b->free_ns > peak_at);
    }
    give();
    uint64_t d = atomic_load(&dropped);
    if (d)
        tp_report_note(r,
                       "ggml: %llu backend buffers past the first %d are not in "
                       "memory.ggml_buffers",
                       (unsigned long long)d, MAX_BUFS);
}

void tp_ggmlbuf_fork_child(void)
{
    /* the parent's buffers are the child's too (its memory is a copy): kept as they are */
    atomic_flag_clear(&lock);
}
