/* The environment of the images a profiled process starts.
 *
 * The new image learns who it is from TPROF_IMAGE and TPROF_ROOT_PID in the environment exec
 * gives it, and the environment a program passes is often not one that we updated: a shell
 * execs with its own list of exported variables (bash even points environ at it), built before
 * it forked; Open MPI's launcher and Python's subprocess with env=... build theirs before the
 * fork too. With its parent's TPROF_IMAGE the new image would take the name of its parent's
 * report, or of the report the forked child wrote just before this exec, and overwrite it. So
 * an image that preloads this library gets this image's own entries whatever envp holds: a copy
 * of envp, on the stack (a vfork child must not allocate; there this process's identity is still
 * its parent's, which is right for the new image: a new pid, its first image).
 *
 * An image that does not preload it (an LD_PRELOAD emptied, naming other libraries, or none) is
 * not profiled, and nothing of tprof's may reach it: its environment is the program's business
 * alone (a test that compares environments, a sandbox that lists them, a program that passes
 * them on elsewhere). tprof's entries are left out of it, including those environ got from our
 * own setenv (lifecycle.c), which every envp copied from environ carries. */
#include "preload/execenv.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "preload/lifecycle.h"
#include "track/rawalloc.h"
#include "track/runtime.h"

extern char **environ;

/* What tprof adds to an environment: this image's identity (lifecycle.c) and the hashes of the
 * warnings already printed in this run. The first two in this order (tp_ident_env's). */
static const char *const own_vars[] = {"TPROF_IMAGE", "TPROF_ROOT_PID", "TPROF_WARNED"};
#define NOWN (sizeof own_vars / sizeof own_vars[0])

static char self_path[4096];
static const char *self_base = "libtprof.so"; /* until init learns better */
static int self_known;
static dev_t self_dev;
static ino_t self_ino;

void tp_execenv_init(void)
{
    Dl_info di;
    if (!dladdr((void *)&tp_execenv_init, &di) || !di.dli_fname ||
        strlen(di.dli_fname) >= sizeof self_path)
        return;
    strcpy(self_path, di.dli_fname);
    const char *slash = strrchr(self_path, '/');
    self_base = slash ? slash + 1 : self_path;
    struct stat st;
    if (stat(self_path, &st) == 0) {
        self_dev = st.st_dev;
        self_ino = st.st_ino;
        self_known = 1;
    }
}

/* One LD_PRELOAD entry names this library: the same file name (the loader searches a bare name
 * in the library path; a copy elsewhere is tprof all the same), or a path to this very file. */
static int names_us(const char *entry, size_t len)
{
    char path[4096];
    if (len == 0 || len >= sizeof path)
        return 0;
    memcpy(path, entry, len);
    path[len] = 0;
    const char *slash = strrchr(path, '/');
    if (!strcmp(slash ? slash + 1 : path, self_base))
        return 1;
    struct stat st;
    return slash && self_known && stat(path, &st) == 0 && st.st_dev == self_dev &&
           st.st_ino == self_ino;
}

int tp_execenv_preloads_us(const char *v)
{
    while (v && *v) {
        size_t len = strcspn(v, " :");
        if (names_us(v, len))
            return 1;
        v += len;
        v += strspn(v, " :");
    }
    return 0;
}

size_t tp_execenv_len(char *const envp[])
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    return n;
}

/* Which of tprof's variables the entry sets (an index into own_vars), or -1. */
static int own_var(const char *e)
{
    for (size_t k = 0; k < NOWN; k++) {
        size_t l = strlen(own_vars[k]);
        if (!strncmp(e, own_vars[k], l) && e[l] == '=')
            return (int)k;
    }
    return -1;
}

/* environ's value of a variable, read as the C library's getenv reads it: a program may define a
 * getenv of its own (bash answers from its shell variables). */
static const char *environ_value(const char *name)
{
    size_t l = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, name, l) && (*e)[l] == '=')
            return *e + l + 1;
    return NULL;
}

/* The value of the last LD_PRELOAD entry: the one the dynamic loader goes by. */
static const char *preload_of(char *const envp[], size_t n)
{
    const char *v = NULL;
    for (size_t i = 0; i < n; i++)
        if (!strncmp(envp[i], "LD_PRELOAD=", 11))
            v = envp[i] + 11;
    return v;
}

char *const *tp_execenv_fix(char *const envp[], size_t n, char **v, struct tp_execenv *x)
{
    x->heap = NULL;
    if (!envp)
        return envp;
    int ours = tp_execenv_preloads_us(preload_of(envp, n));
    if (ours)
        tp_run_dir_ensure(); /* the new image is one of the run's: it may leave its record */
    /* tprof is off in this process: it has no identity to pass on to an image that preloads it */
    if (ours && !tp_ident_env(x->img, sizeof x->img, x->root, sizeof x->root))
        return envp;
    int change = 0, has[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        int k = own_var(envp[i]);
        if (k >= 0 && !ours)
            change = 1;
        else if (k == 0 || k == 1) {
            has[k] = 1;
            change |= strcmp(envp[i], k == 0 ? x->img : x->root) != 0;
        }
    }
    int add = ours && (!has[0] || !has[1]);
    if (!change && !add)
        return envp;
    if (!v) {
        if (tp_in_vfork_child())
            return envp;
        struct tp_own g = tp_own_begin();
        v = x->heap = tp_alloc((n + 3) * sizeof *v);
        tp_own_end(g);
        if (!v)
            return envp;
    }
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        int k = own_var(envp[i]);
        if (k >= 0 && !ours)
            continue;
        v[j++] = k == 0 ? x->img : k == 1 ? x->root : envp[i];
    }
    if (add && !has[0])
        v[j++] = x->img;
    if (add && !has[1])
        v[j++] = x->root;
    v[j] = NULL;
    return v;
}

/* Through the program's own setenv and unsetenv, which own environ. They change it under another
 * thread's getenv as any setenv does; they run only when environ's LD_PRELOAD and tprof's entries
 * disagree, which takes the program itself changing LD_PRELOAD with setenv or putenv first. */
void tp_execenv_sync_environ(void)
{
    if (tp_in_vfork_child()) /* also when tprof is off here: then it added nothing */
        return;
    struct tp_own g = tp_own_begin();
    size_t n = tp_execenv_len(environ);
    if (tp_execenv_preloads_us(preload_of(environ, n))) {
        char e[2][TP_ROOT_ENV_MAX];
        if (tp_ident_env(e[0], sizeof e[0], e[1], sizeof e[1])) {
            for (int k = 0; k < 2; k++) {
                char *eq = strchr(e[k], '=');
                const char *cur = environ_value(own_vars[k]);
                if (eq && (!cur || strcmp(cur, eq + 1) != 0))
                    setenv(own_vars[k], eq + 1, 1);
            }
        }
    } else {
        for (size_t k = 0; k < NOWN; k++)
            if (environ_value(own_vars[k]))
                unsetenv(own_vars[k]);
    }
    tp_own_end(g);
}
