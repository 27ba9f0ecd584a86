/* The one way tprof finds the real definition of a function it interposes (but the malloc
 * family's, which must be found before any allocator works: hook_malloc.c). */
#ifndef TPROF_REAL_H
#define TPROF_REAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct tp_report;

/* dlsym(RTLD_NEXT) first; when that fails (the library was loaded RTLD_LOCAL by a plugin or a
 * Python extension, so it is not in the global scope), the dynamic symbol table of every loaded
 * object but the main program and libtprof itself, in load order (never through dlopen, which
 * could run constructors out of order). NULL if no object defines it (yet). Nothing is kept
 * loaded: the address is valid while its object is (see tp_real_forget). Runs under the
 * recursion guard (a failing dlsym allocates) and leaves errno as it found it. */
void *tp_real(const char *name);

/* One interposed function: its real definition, found on first use and cached. While it is
 * missing, it is looked for again only after another object has been loaded (dl_iterate_phdr's
 * load counter changed), so a program that keeps calling a missing function pays one
 * dl_iterate_phdr per call, not a failing dlsym and a walk of every object. */
struct tp_real {
    const char *name;
    _Atomic(void *) fn;
    _Atomic unsigned long long tried_adds; /* load counter at the last failed search, 0 never */
    _Atomic uint64_t missed;               /* calls made while no definition was found */
    _Atomic int listed;                    /* on the list of missing functions (for the report) */
    struct tp_real *next;
    _Atomic int found_listed; /* on the list tp_real_forget() checks */
    struct tp_real *found_next;
};

void *tp_real_lookup(struct tp_real *r);

/* After a dlclose: every cached definition whose object is no longer loaded is dropped, so the
 * next call looks for it again (in the library loaded anew, or the one that remains) instead of
 * jumping into unmapped memory. */
void tp_real_forget(void);

/* The real function, or NULL when no loaded object defines it. */
static inline void *tp_real_fn(struct tp_real *r)
{
    void *f = atomic_load_explicit(&r->fn, memory_order_acquire);
    return __builtin_expect(f != NULL, 1) ? f : tp_real_lookup(r);
}

/* A call found no real function and did nothing: count it; the first time, say so on stderr
 * ("tprof: NAME: real function not found"). Leaves errno as it found it. */
void tp_real_missing(struct tp_real *r);

/* Notes for the report: each function that was called while no definition existed, with the
 * number of calls that did nothing. */
void tp_resolve_collect(struct tp_report *r);

#endif
