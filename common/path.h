/* Report path templates: %p pid, %r MPI rank, %h host name, %% a percent sign.
 *
 * One report per process image: when the template has no %p and the process is not the root of
 * the profiled tree (a forked child, a spawned program), ".<pid>" goes before the extension. The
 * plain name belongs to the last image of a process, the one that did the work: an image that
 * execs another reports, if at all, under ".<image>" (track/output.c), so the program a wrapper
 * (env, a shell's exec, a launcher script) starts gets the name the user asked for. */
#ifndef TPROF_PATH_H
#define TPROF_PATH_H

#include <stddef.h>

struct tp_path_ctx {
    long pid;
    long rank;
    const char *host;
    int add_pid;   /* 1: not the root process: make the name unique by pid */
    int image_seq; /* >0: the Nth image of this pid after exec: ".exec<N>" on a ".sig<M>" report */
    int sig_seq;   /* >0: the Nth report written on demand (TPROF_SIGNAL): ".sig<N>" */
    const char *image; /* non-NULL: the report of an image as it execs another: ".<image>" */
};

/* Expand tmpl into out (size n). Returns 0, or -1 when the result does not fit or the template
 * has an unknown %-sequence (then out holds a one-line reason). */
int tp_path_expand(const char *tmpl, const struct tp_path_ctx *ctx, char *out, size_t n);

/* The MPI rank from OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID or PMIX_RANK, else 0. */
long tp_mpi_rank(const char *(*get)(const char *));

#endif
