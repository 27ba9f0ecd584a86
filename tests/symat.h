/* The reporter's symboliser asked about this test program's own code (tests/check_symtab.c,
 * tests/check_symindex.c): an address of ours as a record names it, module file and offset. */
#ifndef TPROF_TESTS_SYMAT_H
#define TPROF_TESTS_SYMAT_H

#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "report/sym/sym.h"

/* Where address a lies as a record names it (track/out/collect.c): the file of its module and
 * its offset from the module's load bias. */
static inline void where(uintptr_t a, char *path, size_t n, uint64_t *off)
{
    Dl_info di;
    ck_assert(dladdr((void *)a, &di));
    if (di.dli_fname && di.dli_fname[0] == '/') {
        snprintf(path, n, "%s", di.dli_fname);
    } else {
        ssize_t k = readlink("/proc/self/exe", path, n - 1);
        path[k > 0 ? k : 0] = 0;
    }
    *off = a - (uintptr_t)di.dli_fbase;
}

/* tp_sym_frames of the code at a. */
static inline int frames_at(struct tp_symbolizer *s, uintptr_t a, int is_ret, struct tp_frame *f,
                            int max)
{
    char path[4096];
    uint64_t off;
    where(a, path, sizeof path, &off);
    return tp_sym_frames(s, path, off, is_ret, f, max);
}

#endif
