/* pthread_create, wrapped so that each thread the program starts reads its own CPU figures when
 * it ends (track/steps/cpu.c): the kernel forgets a thread's run-queue delay once it is gone, and the
 * report comes after most of a program's threads have ended.
 *
 * The thread runs a small start function of tprof's that notes its start and sets a key whose
 * destructor reads the figures, then calls the program's function with its argument, so the
 * thread's result, its cancellation and pthread_exit are the program's own. tprof's own threads
 * (created with the guard held) and any call where tprof cannot allocate the small record go
 * straight to the real pthread_create. */
#include <errno.h>
#include <pthread.h>

#include "preload/real.h"
#include "preload/shim.h"
#include "track/heap/heap.h"
#include "track/steps/steps.h"
#include "track/rawalloc.h"
#include "track/runtime.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static struct tp_real real_create = {"pthread_create"};

struct start {
    void *(*fn)(void *);
    void *arg;
};

static TP_NOINSTR void *start_thread(void *p)
{
    struct start s = *(struct start *)p;
    struct tp_own g = tp_own_begin();
    tp_free(p);
    tp_cpu_thread_begin();
    tp_maps_stack((uintptr_t)__builtin_frame_address(0)); /* the memory ledger's stacks */
    tp_own_end(g);
    return s.fn(s.arg);
}

TP_EXPORT TP_NOINSTR int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                                        void *arg)
{
    create_fn real = (create_fn)tp_real_fn(&real_create);
    if (!real) {
        tp_real_missing(&real_create);
        return EAGAIN;
    }
    if (tp_guard)
        return real(t, a, fn, arg);
    struct tp_own g = tp_own_begin();
    struct start *s = tp_alloc(sizeof *s);
    tp_own_end(g);
    if (!s)
        return real(t, a, fn, arg);
    s->fn = fn;
    s->arg = arg;
    int rc = real(t, a, start_thread, s);
    if (rc != 0) {
        g = tp_own_begin();
        tp_free(s);
        tp_own_end(g);
    }
    return rc;
}
