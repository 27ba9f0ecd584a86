/* This thread's own stack: where it begins and ends, learnt once per thread. The PLT hooks use it
 * to tell a call on the thread's stack from one on another (sigaltstack, coroutines); the malloc
 * shims' stack walk stays inside it. */
#ifndef TPROF_STACK_H
#define TPROF_STACK_H

#include <stdint.h>

#include "track/runtime.h"

extern TP_TLS uintptr_t tp_stack_lo, tp_stack_hi; /* 0 until known; hi 1 when it cannot be */

/* Learn this thread's bounds. For the main thread glibc reads /proc/self/maps with stdio: call
 * it for that thread at start-up (tp_plt_init does), not first from a hooked call that may run in
 * a signal handler. */
void tp_stack_learn(void);

static inline void tp_stack_known(void)
{
    if (tp_unlikely(!tp_stack_hi))
        tp_stack_learn();
}

static inline int tp_on_own_stack(uintptr_t a)
{
    return a >= tp_stack_lo && a < tp_stack_hi;
}

#endif
