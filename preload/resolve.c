/* Finding the real definition of an interposed symbol.
 *
 * dlsym(RTLD_NEXT) only sees the global scope. A BLAS that a plugin or a Python extension loaded
 * with RTLD_LOCAL is not there, yet the plugin's own PLT still binds to our wrapper (the preloaded
 * library comes first in every lookup scope): then every loaded object is asked in turn.
 *
 * A definition found is cached for good, so the object that holds it must stay: tprof takes a
 * reference on it (dlopen RTLD_NOLOAD, never closed). Without that, a program that unloads a
 * plugin and its BLAS and loads them again would have its next call jump into unmapped memory.
 * The price: such a library stays mapped after the program's last dlclose of it. */
#include "resolve.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>

#include "internal.h"
#include "report.h"
#include "sites.h"

struct search {
    const char *name;
    void *found;
};

static struct tp_real *_Atomic missing_list;

static int contains(const struct dl_phdr_info *info, uintptr_t a)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz)
            return 1;
    }
    return 0;
}

static int ask(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct search *s = arg;
    (void)size;
    if (!info->dlpi_name || !*info->dlpi_name)
        return 0; /* the main program: dlsym(RTLD_NEXT) already looked there */
    if (contains(info, (uintptr_t)&tp_resolve_next))
        return 0; /* ourselves */
    void *h = dlopen(info->dlpi_name, RTLD_NOLOAD | RTLD_LAZY);
    if (!h)
        return 0; /* the vDSO, or an object being unloaded */
    void *f = dlsym(h, s->name);
    dlclose(h); /* only drops the reference RTLD_NOLOAD took */
    if (f && !tp_addr_is_ours((uintptr_t)f)) {
        s->found = f;
        return 1;
    }
    return 0;
}

/* Keep the object defining f loaded (see the top of this file). */
static void pin(void *f)
{
    Dl_info info;
    if (!dladdr(f, &info) || !info.dli_fname || !*info.dli_fname)
        return; /* the main program: never unloaded */
    (void)dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_LAZY | RTLD_NODELETE);
}

void *tp_resolve_next(const char *name)
{
    int e = errno;
    int g = tp_guard;
    tp_guard = 1; /* a failing dlsym allocates its error message (PITFALLS P1) */
    void *f = dlsym(RTLD_NEXT, name);
    if (!f || tp_addr_is_ours((uintptr_t)f)) {
        struct search s = {name, NULL};
        dl_iterate_phdr(ask, &s);
        f = s.found;
    }
    if (f)
        pin(f);
    tp_guard = g;
    errno = e;
    return f;
}

/* glibc counts every object ever loaded; the count only grows. */
static int read_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *adds = arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *adds = info->dlpi_adds;
    return 1;
}

static unsigned long long load_count(void)
{
    unsigned long long adds = 0;
    dl_iterate_phdr(read_adds, &adds);
    return adds;
}

void *tp_real_lookup(struct tp_real *r)
{
    int e = errno;
    unsigned long long adds = load_count();
    void *f = NULL;
    /* adds == 0: the counter is not available; look every time. */
    if (!adds || adds != atomic_load_explicit(&r->tried_adds, memory_order_relaxed)) {
        f = tp_resolve_next(r->name);
        if (f)
            atomic_store_explicit(&r->fn, f, memory_order_release);
        else
            atomic_store_explicit(&r->tried_adds, adds, memory_order_relaxed);
    }
    errno = e;
    return f;
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
        tp_report_note(rep, "%s: real function not found in any loaded object; %llu call%s did "
                            "nothing", r->name, n, n == 1 ? "" : "s");
    }
}
