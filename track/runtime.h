/* What every file of libtprof.so shares: the recursion guard, the life-cycle state, the
 * configuration, and allocation that bypasses accounting. Owned by the foundation
 * (preload/state.c, preload/hook_malloc.c); other preload files only use it. */
#ifndef TPROF_INTERNAL_H
#define TPROF_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"

#define TP_EXPORT __attribute__((visibility("default")))
#define TP_NOINSTR __attribute__((no_instrument_function))
#define TP_TLS __attribute__((tls_model("initial-exec"))) __thread
#define tp_likely(x) __builtin_expect(!!(x), 1)
#define tp_unlikely(x) __builtin_expect(!!(x), 0)

/* Life cycle (PITFALLS P6): hooks forward untouched until RUNNING and after FINISHING. */
enum tp_state { TP_BOOT = 0, TP_INITING, TP_RUNNING, TP_FINISHING, TP_DONE, TP_DISABLED };
extern _Atomic int tp_state;
static inline int tp_running(void)
{
    return atomic_load_explicit(&tp_state, memory_order_relaxed) == TP_RUNNING;
}

/* Per-thread recursion guard (P2): set while tprof's own code runs on this thread, so that
 * its allocations (uthash, stdio, the dynamic loader's for dlmopen) are forwarded but never
 * recorded. */
extern TP_TLS int tp_guard;
static inline int tp_guard_enter(void)
{
    if (tp_guard)
        return 0;
    tp_guard = 1;
    return 1;
}
static inline void tp_guard_leave(void) { tp_guard = 0; }

extern struct tp_config tp_cfg;
extern uint64_t tp_start_ns;        /* CLOCK_MONOTONIC at load */

/* Make sure the library is initialised (idempotent, cheap after the first call). */
void tp_init(void);

/* The real allocator, never recorded. Safe in any state, including before init. */
void *tp_alloc(size_t n);
void *tp_calloc(size_t n, size_t m);
void *tp_realloc(void *p, size_t n);
void tp_free(void *p);
char *tp_strdup(const char *s);

/* One line on stderr through write(2), prefixed "tprof: ". No allocation. */
void tp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Bytes of the static bootstrap arena (what dlsym allocated before the real allocator was
 * known). */
int tp_boot_owns(const void *p);

#endif
