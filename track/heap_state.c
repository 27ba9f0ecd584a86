/* The heap accounting's shared state (track/heap_state.h): defined below both of its users,
 * track/heap.c and track/heap_sampled.c, with the two helpers both call. */
#include "track/heap_state.h"

#include <pthread.h>

#include "track/threads.h"

_Atomic int tp_heap_mode;
int (*tp_heap_op_now)(void);
struct tp_heap_hot tp_hg;
struct tp_heap_peakinfo tp_hgp = {.peak_op = -1};
_Atomic uint64_t tp_heap_dropped;
TP_TLS int tp_heap_thread_seen;
_Atomic uint64_t tp_heap_threads_n;
pthread_key_t tp_heap_exit_key;
int tp_heap_have_exit_key;

/* A thread's first recorded allocation: count it, and have its exit flush what it keeps. */
void tp_heap_thread_first(void)
{
    tp_heap_thread_seen = 1;
    atomic_fetch_add(&tp_heap_threads_n, 1);
    tp_thread_note();
    if (tp_heap_have_exit_key)
        pthread_setspecific(tp_heap_exit_key, (void *)1);
}

/* The first block since the tag's state was other than TAG_USED, not making a peak. If the tag
 * was last given to a peak's block, this block must not pass for one live at that peak: the tag
 * moves on (once per peak, not per allocation). */
uint64_t tp_heap_tag_first_use(uint64_t tag, int state)
{
    if (state == TAG_PEAK) {
        uint64_t now = tag;
        if (atomic_compare_exchange_strong_explicit(&tp_hg.tag, &now, tag + 1, memory_order_relaxed,
                                                    memory_order_relaxed))
            now = tag + 1;
        tag = now; /* else moved by another thread: the value it has now */
    }
    atomic_store_explicit(&tp_hg.tag_state, TAG_USED, memory_order_relaxed);
    return tag;
}
