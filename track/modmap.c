#include "track/modules.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "track/runtime.h"

#define MAX_DEPARTED 256

static struct tp_departed departed[MAX_DEPARTED];
static int ndeparted;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

struct find {
    uintptr_t base;
    const char *name;
    uintptr_t lo, hi;
    int found;
};

static int range_of(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct find *f = arg;
    (void)size;
    if (info->dlpi_addr != f->base || !info->dlpi_name || strcmp(info->dlpi_name, f->name) != 0)
        return 0;
    f->lo = UINTPTR_MAX;
    f->hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (lo < f->lo)
            f->lo = lo;
        if (hi > f->hi)
            f->hi = hi;
    }
    f->found = f->hi > f->lo;
    return 1;
}

void tp_modules_before_dlclose(void *handle)
{
    struct link_map *lm = NULL;
    if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name || !*lm->l_name)
        return;
    struct find f = {lm->l_addr, lm->l_name, 0, 0, 0};
    dl_iterate_phdr(range_of, &f);
    if (!f.found)
        return;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ndeparted; i++) {
        if (departed[i].base == f.base && !strcmp(departed[i].path, f.name)) {
            pthread_mutex_unlock(&lock);
            return; /* loaded again at the same place: already known */
        }
    }
    if (ndeparted < MAX_DEPARTED) {
        struct tp_departed *d = &departed[ndeparted];
        strncpy(d->path, f.name, sizeof d->path - 1);
        d->base = f.base;
        d->lo = f.lo;
        d->hi = f.hi;
        ndeparted++;
    }
    pthread_mutex_unlock(&lock);
}

void tp_modules_fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

void tp_modules_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

void tp_modules_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
}

const struct tp_departed *tp_modules_departed(int *n)
{
    pthread_mutex_lock(&lock);
    *n = ndeparted;
    pthread_mutex_unlock(&lock);
    return departed;
}
