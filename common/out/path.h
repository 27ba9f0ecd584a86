/* Report path templates: %p pid, %r MPI rank, %h host name, %% a percent sign.
 *
 * One report per process image: when the template has no %p and the process is not the root of
 * the profiled tree (a forked child, a spawned program), ".<pid>" goes before the extension. The
 * plain name belongs to the last image of a process, the one that did the work: an image that
 * execs another reports, if at all, under ".<image>" (track/out/output.c), so the program a wrapper
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

/* The file name of path: what follows its last '/', all of path when it has none; none when path
 * is NULL (a frame whose module or file is not known). */
const char *tp_base_name(const char *path, const char *none);

/* Is path under a directory where the system installs shared libraries (/lib/, /lib64/,
 * /usr/lib/, /usr/lib64/, at any depth)? with_programs: or programs (/bin/, /sbin/, /usr/bin/,
 * /usr/sbin/, /usr/libexec/), for the question "is this code the system's" about a frame, where an
 * executable counts too (a system program's own allocations are not what an exec'ing image is
 * reported for: track/out/output_exec.c). Without it, the question is about libraries that a program
 * loads: what the C runtime keeps (report/siteclass.c), which libraries' DWARF is not worth
 * decompressing (track/sym/symbolize.c). Not the PLT hooks' question, which excludes a package's own
 * subdirectory of /usr/lib (preload/plt/plt_mods.c). 0 for NULL. */
int tp_in_system_dir(const char *path, int with_programs);

/* The MPI rank from OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID or PMIX_RANK, else 0. */
long tp_mpi_rank(const char *(*get)(const char *));

#endif
