/* Which file a report name leads to, decided the way the kernel would decide it for this user
 * (the report writer, common/out/fileio.c, is its one caller).
 *
 * Symbolic links are followed here, by hand, one component at a time, not by open(): the writer
 * must know the end of a link chain to replace the file there atomically and keep the link.
 * Because the kernel does not see these links being followed, its fs.protected_symlinks rule is
 * applied here, whatever the setting is: a link is followed only if it is ours or the
 * directory owner's, or its directory is not sticky and world-writable. Another user's FIFO in
 * such a directory is refused too (fs.protected_fifos). Nothing is allocated: reports are written
 * from exit paths and signal handlers. */
#ifndef TPROF_NAMEWALK_H
#define TPROF_NAMEWALK_H

#include <stddef.h>
#include <sys/stat.h>

#define TP_NAME_MAX 4096

enum {
    TP_T_FILE,    /* a regular file or a new name: written atomically */
    TP_T_FD,      /* one of this process's descriptors (/dev/stderr, /dev/fd/N, ...) */
    TP_T_INPLACE, /* a device, FIFO, terminal or directory: opened where it is */
};

struct tp_target {
    int kind;
    int fd;     /* TP_T_FD: the descriptor */
    int exists; /* path exists (st is valid) */
    struct stat st;
    const char *why;        /* why the name was refused, with errno EACCES */
    char path[TP_NAME_MAX]; /* the name with every symbolic link on the way replaced */
};

/* Walk path into t. 0, or -1 with errno (EACCES with t->why for a refused link or FIFO). */
int tp_name_walk(const char *path, struct tp_target *t);

/* The directory a walked name lies in ("." for a bare name), n bytes. */
void tp_dir_of(const char *path, char *dir, size_t n);

#endif
