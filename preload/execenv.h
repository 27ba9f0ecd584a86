/* The environment a new program image gets from a process under tprof (preload/execenv.c): the
 * entries tprof adds to it (TPROF_IMAGE, TPROF_ROOT_PID, TPROF_WARNED) go to an image that
 * preloads this library, kept up to date, and never to one that does not. The exec and spawn
 * shims (shim_exit.c, shim_spawn.c) call it. */
#ifndef TPROF_EXECENV_H
#define TPROF_EXECENV_H

#include <stddef.h>

#include "preload/lifecycle.h"

/* Learn this library's own file, which an LD_PRELOAD must name for tprof to come along: from
 * init, where looking it up is safe (a vfork child must not take the loader's lock). */
void tp_execenv_init(void);

/* 1 when the LD_PRELOAD value (entries separated by spaces or colons, as the dynamic loader reads
 * them) names this library: its path, a path to the same file, or its file name alone. */
int tp_execenv_preloads_us(const char *ld_preload);

/* Entries of an environment copied on the stack; a longer one is copied to the heap. */
#define TP_ENV_ON_STACK 4096
size_t tp_execenv_len(char *const envp[]);

/* An environment for exec or spawn: envp itself when it needs nothing, else a fixed copy in v
 * (room for n + 3 entries; NULL: too long for the stack, then on the heap, in *heap, for the
 * caller to tp_free). With an LD_PRELOAD that names this library, this image's identity entries
 * replace stale ones or are added; otherwise tprof's entries are left out. n: envp's length. */
struct tp_execenv {
    char img[64], root[TP_ROOT_ENV_MAX];
    char **heap;
};
char *const *tp_execenv_fix(char *const envp[], size_t n, char **v, struct tp_execenv *x);

/* The same for environ, which system() and popen() hand to the shell through libc's own spawn,
 * which no shim sees: its entries of tprof's are set or removed to agree with its LD_PRELOAD. */
void tp_execenv_sync_environ(void);

#endif
