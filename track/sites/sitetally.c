/* Per-thread counts of allocations, frees and bytes per call site (struct tp_tally, sites.h).
 *
 * A thread's block has a row for every site the table may ever hold: it is mapped for that
 * capacity without reserving memory, and only the pages of the rows the thread writes are ever
 * touched, so the table grows without the blocks moving (the hot path indexes a thread's rows
 * with the site number and nothing else). */
#include "common/pages.h"
#include "track/sites/sites.h"

#include <pthread.h>
#include <stddef.h>

struct tally_block {
    struct tally_block *next; /* every block ever made, newest first; never unlinked */
    _Atomic int in_use;
    struct tp_tally *rows; /* nrows rows */
};

static uint32_t nrows;
static _Atomic(struct tally_block *) blocks;
static struct tp_tally_wide *spill; /* shared rows: threads without a block, carries; atomic adds */
static _Atomic int
    spill_used; /* the report reads spill's rows only then (their pages are unmapped) */
static struct tp_tally_wide fallback_rows[1];
static pthread_key_t tally_key;
static int have_key;

TP_TLS struct tp_tally *tp_tally_mine;
static TP_TLS struct tally_block *my_block;
static TP_TLS int tally_retired; /* this thread's block was given back at its exit */

/* At a thread's exit (key destructor): its block goes to the next new thread. Allocations the
 * thread still makes afterwards (later destructors) go to the shared rows. */
static void tally_release(void *arg)
{
    struct tally_block *b = arg;
    tp_tally_mine = NULL;
    my_block = NULL;
    tally_retired = 1;
    if (b)
        atomic_store_explicit(&b->in_use, 0, memory_order_release);
}

/* This thread's first count: take a free block or make one. */
static struct tp_tally *tally_acquire(void)
{
    if (tally_retired || !have_key)
        return NULL;
    struct tally_block *b;
    for (b = atomic_load_explicit(&blocks, memory_order_acquire); b; b = b->next) {
        int free_ = 0;
        if (atomic_load_explicit(&b->in_use, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&b->in_use, &free_, 1))
            break;
    }
    if (!b) {
        size_t rows = sizeof(struct tp_tally) * nrows;
        unsigned char *m = tp_pages_map(4096 + rows, 1);
        if (!m)
            return NULL;
        b = (struct tally_block *)m;
        b->rows = (struct tp_tally *)(m + 4096); /* page-aligned: tp_tally_resident() */
        atomic_store(&b->in_use, 1);
        struct tally_block *head = atomic_load(&blocks);
        do
            b->next = head;
        while (!atomic_compare_exchange_weak(&blocks, &head, b));
    }
    if (pthread_setspecific(tally_key, b) != 0) {
        atomic_store(&b->in_use, 0);
        return NULL;
    }
    my_block = b;
    return tp_tally_mine = b->rows;
}

/* Atomic adds to the shared rows. */
static void spill_add(uint32_t site, uint64_t allocs, uint64_t frees, uint64_t bytes)
{
    if (!atomic_load_explicit(&spill_used, memory_order_relaxed))
        atomic_store(&spill_used, 1);
    if (allocs)
        atomic_fetch_add_explicit(&spill[site].allocs, allocs, memory_order_relaxed);
    if (frees)
        atomic_fetch_add_explicit(&spill[site].frees, frees, memory_order_relaxed);
    if (bytes)
        atomic_fetch_add_explicit(&spill[site].bytes, bytes, memory_order_relaxed);
}

void tp_tally_carry(uint32_t site, uint64_t allocs, uint64_t frees, uint64_t bytes)
{
    spill_add(site, allocs << 32, frees << 32, bytes << 32);
}

void tp_tally_slow(uint32_t site, uint64_t allocs, uint64_t frees, uint64_t bytes)
{
    if (tally_acquire()) { /* the row's own path, carries and all */
        if (allocs)
            tp_site_count_alloc(site, bytes);
        if (frees)
            tp_site_count_free(site);
        return;
    }
    spill_add(site, allocs, frees, bytes);
}

int tp_tally_init(uint32_t rows)
{
    /* Blocks of an earlier initialisation (the unit tests initialise again) may have another
     * capacity: start a new list. */
    atomic_store(&blocks, NULL);
    atomic_store(&spill_used, 0);
    tp_tally_mine = NULL;
    my_block = NULL;
    tally_retired = 0;
    nrows = rows;
    spill = rows > 1 ? tp_pages_map(sizeof *spill * rows, 1) : NULL;
    if (!spill) {
        spill = fallback_rows;
        have_key = 0; /* no tables: every count goes to the one shared row */
        return -1;
    }
    have_key = pthread_key_create(&tally_key, tally_release) == 0;
    return 0;
}

void tp_tally_sum(uint32_t id, uint64_t *allocs, uint64_t *frees, uint64_t *bytes)
{
    uint64_t a = 0, f = 0, b = 0;
    if (atomic_load(&spill_used)) {
        a = atomic_load_explicit(&spill[id].allocs, memory_order_relaxed);
        f = atomic_load_explicit(&spill[id].frees, memory_order_relaxed);
        b = atomic_load_explicit(&spill[id].bytes, memory_order_relaxed);
    }
    for (struct tally_block *k = atomic_load_explicit(&blocks, memory_order_acquire); k;
         k = k->next) {
        a += atomic_load_explicit(&k->rows[id].allocs, memory_order_relaxed);
        f += atomic_load_explicit(&k->rows[id].frees, memory_order_relaxed);
        b += atomic_load_explicit(&k->rows[id].bytes, memory_order_relaxed);
    }
    *allocs = a;
    *frees = f;
    *bytes = b;
}

uint64_t tp_tally_resident(uint32_t used)
{
    size_t bytes = sizeof(struct tp_tally) * used;
    uint64_t r = 0;
    if (atomic_load(&spill_used))
        r += tp_pages_resident(spill, sizeof *spill * used);
    for (struct tally_block *k = atomic_load_explicit(&blocks, memory_order_acquire); k;
         k = k->next)
        r += 4096 + tp_pages_resident(k->rows, bytes);
    return r;
}

/* Zero a row only if it is not: a row read and left alone stays shared with the parent (no
 * copy-on-write of pages a child that execs at once never needed). */
#define ZERO_ROWS(rows, n)                                                                         \
    for (uint32_t i = 0; i < (n); i++) {                                                           \
        if (atomic_load_explicit(&(rows)[i].allocs, memory_order_relaxed) ||                       \
            atomic_load_explicit(&(rows)[i].frees, memory_order_relaxed) ||                        \
            atomic_load_explicit(&(rows)[i].bytes, memory_order_relaxed)) {                        \
            atomic_store(&(rows)[i].allocs, 0);                                                    \
            atomic_store(&(rows)[i].frees, 0);                                                     \
            atomic_store(&(rows)[i].bytes, 0);                                                     \
        }                                                                                          \
    }

void tp_tally_fork_child(uint32_t used)
{
    /* Only this thread exists now. */
    if (atomic_load(&spill_used))
        ZERO_ROWS(spill, used);
    for (struct tally_block *b = atomic_load(&blocks); b; b = b->next) {
        ZERO_ROWS(b->rows, used);
        if (b != my_block)
            atomic_store(&b->in_use, 0);
    }
}
