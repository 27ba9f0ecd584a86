/* The host's best hook cost, kept in a file (track/ops/hookcache.c) for the demotion line
 * (track/ops/demote.c). */
#ifndef TPROF_TRACK_OPS_HOOKCACHE_H
#define TPROF_TRACK_OPS_HOOKCACHE_H

#include <stddef.h>

/* The host's best hook cost: the lowest cost of one -finstrument-functions hook that any run on
 * this host measured, which the demotion line is drawn from (track/ops/demote.c). One run's
 * measurement moves with the machine's load (1.9 to 3.5 ns from run to run on a loaded machine),
 * and an op near the line was then timed in some runs and demoted in others; the lowest of many
 * measurements moves only when a run measures lower than all before it.
 *
 * A small text file beside the peaks cache, $XDG_CACHE_HOME/tprof/hook-<host> (tp_cache_file):
 *     tprof-hook 1
 *     hook_ns 1.874
 *     cpu_model Intel(R) Xeon(R) ...
 *     date 2026-11-28T12:00:00Z
 * A host name can follow a container or a virtual machine onto another CPU: a file whose
 * cpu_model is not this CPU's is not used, and this run's measurement replaces it. */
struct tp_hookcache {
    double hook_ns;     /* > 0 */
    char cpu_model[64]; /* "" unknown (in the file: "-") */
    char date[32];      /* UTC, ISO 8601, of the measurement */
};

/* This host's file into out (n bytes). 0, or -1 when no cache directory is known. */
int tp_hookcache_path(char *out, size_t n);
/* 0 and h filled; -1 when the file is missing, unreadable or not valid (then it is as if there
 * were none: the next save replaces it). Plain open and read into a stack buffer: the library
 * reads it at its first instrumented call. */
int tp_hookcache_load(const char *path, struct tp_hookcache *h);
/* Write atomically (common/out/fileio.c), creating directories. 0 or -1 (errno set). */
int tp_hookcache_save(const char *path, const struct tp_hookcache *h);

#endif
