/* The sites' classification (report/siteclass.c): which are a system library's own keeping, and
 * what is live at exit, split between the program, system libraries and suppressions. Included
 * by report/report.h, after the model. */
#ifndef TPROF_SITECLASS_H
#define TPROF_SITECLASS_H

/* Every frame of the site inside a system library (/lib, /usr/lib...): libc's stdio buffers,
 * constructors of libraries loaded at start-up; kept on purpose, not the program's doing. */
int tp_site_system_only(const struct tp_site *s);
/* A system library's own keeping (report/siteclass.c): system_only, or the frames below the
 * program's code hold the dynamic loader (TLS, link maps), a runtime that keeps its own state
 * (libgfortran, libquadmath, libgomp, OpenBLAS), or libc's stdio buffers, locale or time-zone
 * data. Derived from the frames alone. */
int tp_site_system(const struct tp_site *s);
/* What keeps it, in a few words: "stdio buffer", "ld.so TLS", "libgfortran"... */
void tp_site_system_what(const struct tp_site *s, char *out, size_t n);

/* What a site's memory is, from its allocating frames (tp_site_role): a framework's tensors,
 * torch's (c10's CPU allocator) or numpy's (its data allocator; for a stripped numpy, its core
 * module calling the C allocator itself outside its import). Never a system library's keeping. */
enum { TP_ROLE_NONE, TP_ROLE_TORCH, TP_ROLE_NUMPY, TP_ROLE_COUNT };
int tp_site_role(const struct tp_site *s);
/* The interpreter allocated it: the allocating frame (past libc and the loader) is in libpython
 * or a python executable that links it in, or a frame is an extension module's PyInit_. */
int tp_site_in_interpreter(const struct tp_site *s);
/* Set each of the n sites' role (if none), system (tp_site_system, never for a site with a role)
 * and interpreter (not system, and tp_site_in_interpreter; or a role, in a process where some
 * site has an interpreter's frames). Idempotent. */
void tp_sites_classify(struct tp_site *v, size_t n);

/* What is live at exit, split: the memory's live_at_exit_program/system/suppressed/interpreter
 * figures, or for a report written before they existed, what its sites' flags say (the rest being
 * the program's). suppressed_sites counts the report's sites whose leak was suppressed. */
struct tp_leak_split {
    uint64_t program_bytes, program_allocs;
    uint64_t system_bytes, system_allocs;
    uint64_t suppressed_bytes, suppressed_allocs;
    uint64_t interpreter_bytes, interpreter_allocs;
    size_t suppressed_sites;
};
void tp_leak_split(const struct tp_memory *m, struct tp_leak_split *o);
/* Classify every site (tp_sites_classify: a report from before the flags, a model built by
 * hand) and, when the split figures are missing, fill them from tp_leak_split. Idempotent;
 * tp_analyze() calls it. */
void tp_memory_classify(struct tp_memory *m);

#endif
