/* Finding the real definition of an interposed symbol.
 *
 * dlsym(RTLD_NEXT) only sees the global scope. A BLAS that a plugin or a Python extension loaded
 * with RTLD_LOCAL is not there, yet the plugin's own PLT still binds to our wrapper (the preloaded
 * library comes first in every lookup scope): then every loaded object's dynamic symbol table is
 * read in turn, through its hash table, as the dynamic linker itself would look it up.
 *
 * Never through dlopen(RTLD_NOLOAD), not even to get a handle for dlsym: when the object has not
 * been opened by the program itself (a dependency of a plugin), such a dlopen runs the
 * constructors still pending in its group, out of the order the loader chose, and this lookup can
 * run inside another library's constructor.
 *
 * Nor is the object that holds a definition kept loaded (RTLD_NODELETE): the program may unload a
 * plugin and load it again, and expects its constructors to run again and a new file on disk to
 * be read. Instead a definition is cached only while its object is loaded: after every dlclose,
 * tp_real_forget() drops the cached definitions whose object went away, and the next call
 * looks again. */
#include "preload/real.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "track/runtime.h"
#include "report/report.h"
#include "track/sym/sym.h"
#include "track/sites/sites.h"

struct search {
    const char *name;
    uintptr_t found;
    int ifunc;
};

static struct tp_real *_Atomic missing_list;
static struct tp_real *_Atomic found_list; /* every tp_real that ever had a definition */

static int ask(const struct tp_module *m, void *arg)
{
    struct search *s = arg;
    if (!*m->name)
        return 0; /* the main program: dlsym(RTLD_NEXT) already looked there */
    if (m->self)
        return 0; /* ourselves */
    uintptr_t f = tp_modmap_symbol(m, s->name, &s->ifunc);
    if (f && !tp_addr_is_ours(f)) {
        s->found = f;
        return 1;
    }
    return 0;
}

void *tp_real(const char *name)
{
    struct tp_own g = tp_own_begin(); /* a failing dlsym allocates its error message */
    void *f = dlsym(RTLD_NEXT, name);
    if (!f || tp_addr_is_ours((uintptr_t)f)) {
        struct search s = {name, 0, 0};
        tp_modmap_each(ask, &s);
        f = NULL;
        /* dladdr waits for a dlopen running on another thread to finish (it takes the loader's
         * lock, which dlopen holds until the new objects are relocated and initialised) and
         * runs no constructor: the object found is then whole, or gone. */
        Dl_info info;
        if (s.found && dladdr((void *)s.found, &info) && info.dli_fname) {
            f = (void *)s.found;
            if (s.ifunc) /* the x86-64 resolver takes no argument and returns the function */
                f = ((void *(*)(void))s.found)();
        }
    }
    tp_own_end(g);
    return f;
}

void *tp_real_lookup(struct tp_real *r)
{
    int e = errno;
    unsigned long long adds = tp_modmap_loads();
    void *f = NULL;
    /* adds == 0: the counter is not available; look every time. */
    if (!adds || adds != atomic_load_explicit(&r->tried_adds, memory_order_relaxed)) {
        f = tp_real(r->name);
        if (f) {
            atomic_store_explicit(&r->fn, f, memory_order_release);
            int expect = 0;
            if (atomic_compare_exchange_strong(&r->found_listed, &expect, 1)) {
                r->found_next = atomic_load(&found_list);
                while (!atomic_compare_exchange_weak(&found_list, &r->found_next, r))
                    ;
            }
        } else {
            atomic_store_explicit(&r->tried_adds, adds, memory_order_relaxed);
        }
    }
    errno = e;
    return f;
}

void tp_real_forget(void)
{
    int e = errno;
    for (struct tp_real *r = atomic_load(&found_list); r; r = r->found_next) {
        void *f = atomic_load_explicit(&r->fn, memory_order_acquire);
        if (f && !tp_modmap_mapped((uintptr_t)f)) {
            atomic_store_explicit(&r->tried_adds, 0, memory_order_relaxed);
            atomic_compare_exchange_strong(&r->fn, &f, NULL);
        }
    }
    errno = e;
}

void tp_real_missing(struct tp_real *r)
{
    int e = errno;
    atomic_fetch_add_explicit(&r->missed, 1, memory_order_relaxed);
    int expect = 0;
    if (atomic_compare_exchange_strong(&r->listed, &expect, 1)) {
        r->next = atomic_load(&missing_list);
        while (!atomic_compare_exchange_weak(&missing_list, &r->next, r))
            ;
        tp_warn("%s: real function not found", r->name);
    }
    errno = e;
}

void tp_resolve_collect(struct tp_report *rep)
{
    for (struct tp_real *r = atomic_load(&missing_list); r; r = r->next) {
        unsigned long long n = (unsigned long long)atomic_load(&r->missed);
        tp_report_note(rep,
                       "%s: real function not found in any loaded object; %llu call%s did "
                       "nothing",
                       r->name, n, n == 1 ? "" : "s");
    }
}
