/* Ways to start a program other than exec: posix_spawn and posix_spawnp with the environment
 * given, system() and popen() with environ. libc starts the program through its own internal
 * calls, which the exec shims (shim_exit.c) never see, so each gets the environment fixed here
 * the way exec does (preload/execenv.h): tprof's entries, up to date, for a program that
 * preloads this library, none for one that does not. This process goes on: no report. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>

#include "preload/execenv.h"
#include "preload/real.h"
#include "preload/shim.h"
#include "track/rawalloc.h"

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);

static int do_spawn(const char *name, pid_t *pid, const char *path,
                    const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                    char *const argv[], char *const envp[])
{
    spawn_fn real = (spawn_fn)tp_real(name);
    if (!real)
        return ENOSYS;
    size_t n = tp_execenv_len(envp);
    char *stack[n < TP_ENV_ON_STACK ? n + 3 : 1];
    struct tp_execenv x;
    char *const *env = tp_execenv_fix(envp, n, n < TP_ENV_ON_STACK ? stack : NULL, &x);
    int rc = real(pid, path, fa, attr, argv, env);
    if (x.heap) {
        int e = errno;
        tp_free(x.heap);
        errno = e;
    }
    return rc;
}

TP_EXPORT TP_NOINSTR int posix_spawn(pid_t *pid, const char *path,
                                     const posix_spawn_file_actions_t *fa,
                                     const posix_spawnattr_t *attr, char *const argv[],
                                     char *const envp[])
{
    return do_spawn("posix_spawn", pid, path, fa, attr, argv, envp);
}

TP_EXPORT TP_NOINSTR int posix_spawnp(pid_t *pid, const char *file,
                                      const posix_spawn_file_actions_t *fa,
                                      const posix_spawnattr_t *attr, char *const argv[],
                                      char *const envp[])
{
    return do_spawn("posix_spawnp", pid, file, fa, attr, argv, envp);
}

/* system(NULL) only asks whether a shell exists: it starts nothing. */
TP_EXPORT TP_NOINSTR int system(const char *command)
{
    int (*real)(const char *) = (int (*)(const char *))tp_real("system");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (command)
        tp_execenv_sync_environ();
    return real(command);
}

TP_EXPORT TP_NOINSTR FILE *popen(const char *command, const char *type)
{
    FILE *(*real)(const char *, const char *) =
        (FILE * (*)(const char *, const char *)) tp_real("popen");
    if (!real) {
        errno = ENOSYS;
        return NULL;
    }
    tp_execenv_sync_environ();
    return real(command, type);
}
