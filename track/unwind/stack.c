/* This thread's own stack (see track/unwind/unwind.h). */
#include "track/unwind/unwind.h"

#include <pthread.h>

TP_TLS uintptr_t tp_stack_lo, tp_stack_hi;

void tp_stack_learn(void)
{
    pthread_attr_t a;
    void *lo;
    size_t size;
    /* for the main thread glibc reads /proc/self/maps with stdio */
    struct tp_own g = tp_own_begin();
    tp_stack_hi = 1;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        if (pthread_attr_getstack(&a, &lo, &size) == 0) {
            tp_stack_lo = (uintptr_t)lo;
            tp_stack_hi = (uintptr_t)lo + size;
        }
        pthread_attr_destroy(&a);
    }
    tp_own_end(g);
}
