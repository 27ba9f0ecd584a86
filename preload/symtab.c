/* Names for the ops-by-name hooks, through libdwfl over this process's maps (the same reader the
 * report uses). libdwfl is not thread-safe: one lock, taken only on a cache miss of the caller. */
#include "symtab.h"

#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *dwfl;
static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

/* (Re)read /proc/self/maps: at first use, and when an address falls in no known module. */
static int report(void)
{
    if (!dwfl && !(dwfl = dwfl_begin(&callbacks)))
        return -1;
    dwfl_report_begin_add(dwfl);
    int bad = dwfl_linux_proc_report(dwfl, getpid()) != 0;
    return dwfl_report_end(dwfl, NULL, NULL) != 0 || bad ? -1 : 0;
}

int tp_symtab_name(uintptr_t addr, char *out, size_t n)
{
    int rc = -1;
    int g = tp_guard;
    tp_guard = 1; /* libdwfl allocates */
    pthread_mutex_lock(&lock);
    if (dwfl || report() == 0) {
        Dwfl_Module *m = dwfl_addrmodule(dwfl, addr);
        if (!m && report() == 0)
            m = dwfl_addrmodule(dwfl, addr);
        const char *name = m ? dwfl_module_addrname(m, addr) : NULL;
        if (name) {
            const char *at = strchr(name, '@');
            size_t len = at ? (size_t)(at - name) : strlen(name);
            if (len >= n)
                len = n - 1;
            memcpy(out, name, len);
            out[len] = 0;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&lock);
    tp_guard = g;
    return rc;
}
