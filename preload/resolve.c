#include "resolve.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "internal.h"
#include "sites.h"

struct search {
    const char *name;
    void *found;
};

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
        return 0;
    void *f = dlsym(h, s->name);
    dlclose(h); /* only drops the reference RTLD_NOLOAD took */
    if (f && !tp_addr_is_ours((uintptr_t)f)) {
        s->found = f;
        return 1;
    }
    return 0;
}

void *tp_resolve_next(const char *name)
{
    int g = tp_guard;
    tp_guard = 1; /* a failing dlsym allocates its error message */
    void *f = dlsym(RTLD_NEXT, name);
    if (!f || tp_addr_is_ours((uintptr_t)f)) {
        struct search s = {name, NULL};
        dl_iterate_phdr(ask, &s);
        f = s.found;
    }
    tp_guard = g;
    return f;
}
