/* Before `tprof run` execs a program: will the dynamic loader preload libtprof.so into it? Not
 * into a statically linked program (there is no dynamic loader: the ELF file has no PT_INTERP),
 * nor, in secure-execution mode, into one that changes user or group as it starts (set-uid or
 * set-gid to someone other than the caller): the loader then ignores LD_PRELOAD entries that hold
 * a slash, and tprof run passes libtprof.so by its absolute path. Such a program would run
 * without a report and without a word; a line says so before it starts.
 *
 * Secure-execution mode is what the kernel decides at exec (AT_SECURE): the new effective user
 * or group differs from the real one. A set-uid program of the caller's own (root running a
 * set-uid root program) changes nothing and is profiled like any other; the bits count for
 * nothing on a file system mounted nosuid or under no_new_privs, nor on a script (#!). */
#include "cli/cli.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/out/out.h"

/* The file execvp would run for `file`: itself when it holds a slash, else the first executable
 * regular file of that name in PATH (glibc's default when PATH is not set). 0, or -1. */
static int resolve(const char *file, char *out, size_t n)
{
    struct stat st;
    if (strchr(file, '/'))
        return snprintf(out, n, "%s", file) < (int)n ? 0 : -1;
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    for (const char *p = path;; p++) {
        size_t len = strcspn(p, ":");
        /* an empty element is the current directory */
        int w =
            len ? snprintf(out, n, "%.*s/%s", (int)len, p, file) : snprintf(out, n, "./%s", file);
        if (w > 0 && (size_t)w < n && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
            access(out, X_OK) == 0)
            return 0;
        p += len;
        if (!*p)
            return -1;
    }
}

/* 1 when the ELF file at fd has no PT_INTERP (no dynamic loader); 0 when it has one, or is not an
 * ELF executable this can read. */
static int static_elf(int fd)
{
    unsigned char id[EI_NIDENT];
    if (pread(fd, id, sizeof id, 0) != (ssize_t)sizeof id || memcmp(id, ELFMAG, SELFMAG) != 0)
        return 0;
    uint64_t phoff;
    unsigned phnum, phentsize, type;
    if (id[EI_CLASS] == ELFCLASS64) {
        Elf64_Ehdr eh;
        if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
            return 0;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize, type = eh.e_type;
    } else if (id[EI_CLASS] == ELFCLASS32) {
        Elf32_Ehdr eh;
        if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
            return 0;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize, type = eh.e_type;
    } else {
        return 0;
    }
    if ((type != ET_EXEC && type != ET_DYN) || phnum == 0 || phentsize < sizeof(uint32_t))
        return 0;
    for (unsigned i = 0; i < phnum; i++) {
        uint32_t p_type; /* the first field of both classes' program headers */
        if (pread(fd, &p_type, sizeof p_type, (off_t)(phoff + (uint64_t)i * phentsize)) !=
            (ssize_t)sizeof p_type)
            return 0;
        if (p_type == PT_INTERP)
            return 0;
    }
    return 1;
}

/* The program starts in secure-execution mode: its set-uid or set-gid bit gives it another
 * effective user or group than the caller's real one. Sets *what and *id to say which. */
static int secure_exec(const char *path, const struct stat *st, const char **what, unsigned *id)
{
    struct statvfs vfs;
    if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ||
        (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)))
        return 0;
    if ((st->st_mode & S_ISUID) && st->st_uid != getuid()) {
        *what = "set-uid (uid";
        *id = (unsigned)st->st_uid;
        return 1;
    }
    /* set-gid without group execute is mandatory locking, not set-gid */
    if ((st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != getgid()) {
        *what = "set-gid (gid";
        *id = (unsigned)st->st_gid;
        return 1;
    }
    return 0;
}

void tp_run_check_program(const char *file)
{
    char path[PATH_MAX + 256], shown[4 * sizeof path];
    if (resolve(file, path, sizeof path) < 0)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    int is_static = static_elf(fd);
    unsigned char magic[SELFMAG];
    int elf = pread(fd, magic, sizeof magic, 0) == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG);
    close(fd);
    const char *what;
    unsigned id;
    tp_escape_str(shown, sizeof shown, path);
    if (is_static)
        fprintf(stderr,
                "tprof run: %s is statically linked: no report (it has no dynamic loader to "
                "preload libtprof.so)\n",
                shown);
    else if (elf && secure_exec(path, &st, &what, &id))
        fprintf(stderr,
                "tprof run: %s is %s %u): no report (the dynamic loader ignores LD_PRELOAD "
                "paths for it)\n",
                shown, what, id);
}
