/* What a sampled function outside every op is (see track/sym/sym.h). */
#include "track/sym/sym.h"

#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"
#include "report/analyze/analyze.h"

int tp_outside_wait_name(const char *name)
{
    /* libc's sched_yield is what OpenBLAS's and other pools' idle threads call in a loop;
     * blas_thread_server is OpenBLAS's idle thread itself; ggml's threads spin in ggml_barrier */
    if (!name)
        return 0;
    const char *f;
    for (size_t i = 0; (f = tp_spin_function(i)) != NULL; i++)
        if (!strcmp(name, f))
            return 1;
    return strstr(name, "sched_yield") || !strcmp(name, "blas_thread_server");
}

/* A language runtime's interpreter executable (python3.11): its functions are no model's ops, and
 * rebuilding it is no advice for a model's author. (libpython is in the list of track/sym/syslibs.c.) */
static int interpreter(const char *module)
{
    return module && !strncmp(module, "python", 6);
}

static const char *kind_of(const struct tp_symkind *k, const char *name, const char *module)
{
    if ((module && tp_spin_module(module)) || tp_outside_wait_name(name))
        return "wait";
    if (interpreter(module))
        return "interpreter";
    if (module && tp_syslib_denied(module))
        return "system";
    if (!k->found)
        return "no_symbol";
    if (k->exported)
        return "export";
    if (k->instrumented)
        return "instrumented";
    return "local";
}

/* The function's sampled addresses as module offsets, for the reporter to find the function
 * inlined there that holds most of them (report/record.c): no debug information is read here. */
static void sampled_at(struct tp_outside_fn *o, const struct tp_sampled_pc *pcs, size_t npcs,
                       const char *path, uintptr_t bias)
{
    o->at = calloc(npcs, sizeof *o->at);
    for (size_t i = 0; o->at && i < npcs; i++) {
        struct tp_sampled_at *a = &o->at[o->nat];
        if (!(a->module = strdup(path)))
            break;
        a->offset = pcs[i].pc - bias;
        a->n = pcs[i].n;
        o->nat++;
    }
}

void tp_outside_describe(struct tp_outside_fn *o, const struct tp_sampled_pc *pcs, size_t npcs)
{
    char raw[512], name[512], path[4096];
    uintptr_t start, bias, lo, hi;
    uintptr_t pc = pcs[0].pc;
    if (tp_symtab_lookup(pc, raw, sizeof raw, &start) == 0) {
        tp_symtab_demangle(raw, name, sizeof name);
        o->name = strdup(name);
    }
    int known = tp_symtab_module(pc, path, sizeof path, &bias, &lo, &hi) == 0;
    if (known)
        o->module = strdup(tp_base_name(path, NULL));
    struct tp_symkind k;
    if (tp_symtab_kind(pc, &k) < 0)
        memset(&k, 0, sizeof k);
    o->kind = strdup(kind_of(&k, o->name, o->module));
    o->stripped = o->module && k.stripped;
    o->size = o->name ? k.size : 0;
    if (known && o->name &&
        (!strcmp(o->kind, "local") || !strcmp(o->kind, "export") ||
         !strcmp(o->kind, "instrumented")))
        sampled_at(o, pcs, npcs, path, bias);
}
