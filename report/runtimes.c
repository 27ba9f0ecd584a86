/* What the recorder and the reporter both say of a module, a wait or a site's memory (see
 * report/report.h): one list of names each, so that the JSON the recorder writes and the report
 * the reporter makes of it never disagree. */
#include "report/report.h"

#include <stdio.h>
#include <string.h>

#include "common/out/out.h"

const char *tp_thread_runtime(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    if (!strncmp(b, "libopenblas", 11))
        return "openblas";
    if (tp_spin_module(b))
        return "openmp";
    if (!strncmp(b, "libmkl_", 7))
        return "mkl";
    return NULL;
}

int tp_spin_module(const char *path)
{
    const char *b = tp_base_name(path, NULL);
    static const char *const names[] = {"libgomp.so",  "libgomp-", "libomp.so",
                                        "libiomp5.so", "libomp-",  "libiomp5-"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strncmp(b, names[i], strlen(names[i])))
            return 1;
    return 0;
}

const char *tp_spin_function(size_t i)
{
    static const char *const names[] = {"ggml_barrier"};
    return i < sizeof names / sizeof names[0] ? names[i] : NULL;
}

void tp_wait_kind_names(unsigned kinds, char *out, size_t n)
{
    /* the order of track/ops/wait.c's bits */
    static const char *const names[] = {
        "sched_yield", "pthread_barrier_wait", "pthread_cond_wait", "sem_wait", "pthread_join",
        "futex",       "cuda_synchronize"};
    size_t at = 0;
    if (n)
        out[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && at < n; i++)
        if (kinds & (1u << i)) {
            int k = snprintf(out + at, n - at, "%s%s", at ? "," : "", names[i]);
            if (k < 0)
                break;
            at += (size_t)k;
        }
}

static const char *const role_names[] = {NULL, "tensor data (torch)", "array data (numpy)"};

const char *tp_site_role_name(int role)
{
    return role > 0 && role < TP_ROLE_COUNT ? role_names[role] : NULL;
}

int tp_site_role_parse(const char *name)
{
    for (int r = 1; name && r < TP_ROLE_COUNT; r++)
        if (!strcmp(name, role_names[r]))
            return r;
    return TP_ROLE_NONE;
}

int tp_frame_is_allocator(const char *fn)
{
    return fn && (!strncmp(fn, "_Znwm", 5) || !strncmp(fn, "_Znam", 5) ||
                  !strncmp(fn, "operator new", 12));
}
