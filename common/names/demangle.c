/* libstdc++'s demangler (see common/names/names.h).
 *
 * A C program (python3) that loads C++ libraries (torch) with dlopen's default RTLD_LOCAL has
 * libstdc++ loaded but out of the global scope, where dlsym(RTLD_DEFAULT) never finds it: it is
 * then asked for by its soname, among the objects already loaded (RTLD_NOLOAD loads nothing),
 * unless the caller may load it. The reference taken then is never dropped: libstdc++ defines
 * STB_GNU_UNIQUE symbols, which make the dynamic loader keep it loaded anyway. */
#include "common/names/names.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

tp_demangle_fn tp_demangler(int load)
{
    static _Atomic(tp_demangle_fn) found;
    tp_demangle_fn d = atomic_load(&found);
    if (d)
        return d;
    d = (tp_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!d) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | (load ? 0 : RTLD_NOLOAD));
        d = h ? (tp_demangle_fn)dlsym(h, "__cxa_demangle") : NULL;
        if (h && !d)
            dlclose(h);
    }
    if (d)
        atomic_store(&found, d);
    return d;
}

char *tp_demangle(const char *name, int load)
{
    if (!name || strncmp(name, "_Z", 2) != 0)
        return NULL;
    tp_demangle_fn d = tp_demangler(load);
    int status = -1;
    char *s = d ? d(name, NULL, NULL, &status) : NULL;
    if (s && status != 0) {
        free(s);
        s = NULL;
    }
    return s;
}
