/* What a sampled function outside every op is (see track/sym/sym.h). */
#include "track/sym/sym.h"

#include <stdlib.h>
#include <string.h>

#include "common/out/out.h"
#include "report/analyze/analyze.h"

int tp_outside_wait_name(const char *name)
{
    /* libc's sched_yield is what OpenBLAS's and other pools' idle threads call in a loop;
     * blas_thread_server is OpenBLAS's idle thread itself */
    return name && (strstr(name, "sched_yield") || !strcmp(name, "blas_thread_server"));
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

struct tally {
    char *name;
    uint64_t n;
};

/* The innermost inlined function at pc, malloc'ed, or NULL when nothing was inlined there or
 * there is no debug information. */
static char *inlined_at(struct tp_symbolizer *sym, uintptr_t pc)
{
    struct tp_frame fr[TP_SYM_MAX_FRAMES];
    int n = tp_sym_frames(sym, pc, 0, fr, TP_SYM_MAX_FRAMES);
    char *name = NULL;
    if (n > 1 && fr[0].inlined && fr[0].function)
        name = strdup(fr[0].function);
    for (int i = 0; i < n; i++) {
        free(fr[i].function);
        free(fr[i].file);
        free(fr[i].module);
    }
    return name;
}

/* The inlined function holding more than half of the samples, malloc'ed, or NULL. */
static char *mostly_inlined(const struct tp_sampled_pc *pcs, size_t npcs,
                            struct tp_symbolizer **sym)
{
    uint64_t all = 0;
    struct tally *t = calloc(npcs, sizeof *t);
    size_t nt = 0;
    if (!t)
        return NULL;
    if (!*sym)
        *sym = tp_sym_open();
    for (size_t i = 0; i < npcs; i++) {
        all += pcs[i].n;
        char *name = *sym ? inlined_at(*sym, pcs[i].pc) : NULL;
        if (!name)
            continue;
        size_t j = 0;
        while (j < nt && strcmp(t[j].name, name))
            j++;
        if (j == nt)
            t[nt++].name = name;
        else
            free(name);
        t[j].n += pcs[i].n;
    }
    char *best = NULL;
    for (size_t j = 0; j < nt; j++) {
        if (!best && 2 * t[j].n > all)
            best = t[j].name;
        else
            free(t[j].name);
    }
    free(t);
    return best;
}

void tp_outside_describe(struct tp_outside_fn *o, const struct tp_sampled_pc *pcs, size_t npcs,
                         struct tp_symbolizer **sym)
{
    char raw[512], name[512], path[4096];
    uintptr_t start, bias, lo, hi;
    uintptr_t pc = pcs[0].pc;
    if (tp_symtab_lookup(pc, raw, sizeof raw, &start) == 0) {
        tp_symtab_demangle(raw, name, sizeof name);
        o->name = strdup(name);
    }
    if (tp_symtab_module(pc, path, sizeof path, &bias, &lo, &hi) == 0)
        o->module = strdup(tp_base_name(path, NULL));
    struct tp_symkind k;
    if (tp_symtab_kind(pc, &k) < 0)
        memset(&k, 0, sizeof k);
    o->kind = strdup(kind_of(&k, o->name, o->module));
    o->stripped = o->module && k.stripped;
    o->size = o->name ? k.size : 0;
    if (o->name && (!strcmp(o->kind, "local") || !strcmp(o->kind, "export") ||
                    !strcmp(o->kind, "instrumented")))
        o->inlined = mostly_inlined(pcs, npcs, sym);
}
