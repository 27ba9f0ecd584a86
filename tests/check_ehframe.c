/* track/unwind/ehframe.c against libdw, on real binaries: for every FDE of the .eh_frame_hdr table of
 * cc1, libc.so.6, libstdc++.so.6, libdw.so.1, bash and python3 (those installed), every row of
 * its rules, at the row's first and last address, the rule the stack walk takes
 * (tp_cfa_rule_from) is the same from this reader as from libdw's dwarf_cfi_addrframe, and no FDE
 * is left to libdw. The files are read from their images in memory (mmap), as the reader reads a
 * loaded module: the tables' addresses then lie at a "bias" of the mapping's. Also: an address in
 * no FDE, and a module without the table. */
#include <check.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "track/sym/sym.h"
#include "track/unwind/ehrule.h"
#include "track/runtime.h"
#include "tests/probe.h"

struct image {
    void *map;
    size_t size;
    int fd;
    struct tp_eh_src src;
    Elf *elf;
    Dwarf_CFI *cfi;
};

/* The file mapped, its PT_GNU_EH_FRAME found and the PT_LOAD segment holding it: addresses of
 * the image are the file's virtual addresses plus src.bias. 0 when the file is not there. */
static int open_image(const char *path, struct image *im)
{
    memset(im, 0, sizeof *im);
    im->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (im->fd < 0 || fstat(im->fd, &st) != 0)
        return 0;
    im->size = (size_t)st.st_size;
    im->map = mmap(NULL, im->size, PROT_READ, MAP_PRIVATE, im->fd, 0);
    ck_assert_ptr_ne(im->map, MAP_FAILED);
    const Elf64_Ehdr *eh = im->map;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)im->map + eh->e_phoff);
    const Elf64_Phdr *hdr = NULL;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_GNU_EH_FRAME)
            hdr = &ph[i];
    ck_assert_ptr_nonnull(hdr);
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || hdr->p_offset < ph[i].p_offset ||
            hdr->p_offset >= ph[i].p_offset + ph[i].p_filesz)
            continue;
        uintptr_t base = (uintptr_t)im->map + ph[i].p_offset;
        im->src.bias = base - ph[i].p_vaddr;
        im->src.lo = base;
        im->src.hi = base + ph[i].p_filesz;
        im->src.hdr = (uintptr_t)im->map + hdr->p_offset;
        im->src.file = 1;
    }
    ck_assert_uint_ne(im->src.hdr, 0);
    im->elf = tp_dw.elf_begin(im->fd, ELF_C_READ_MMAP, NULL);
    ck_assert_ptr_nonnull(im->elf);
    im->cfi = tp_dw.dwarf_getcfi_elf(im->elf);
    ck_assert_ptr_nonnull(im->cfi);
    return 1;
}

static void close_image(struct image *im)
{
    tp_eh_forget(); /* the next image may be mapped where this one was */
    tp_dw.dwarf_cfi_end(im->cfi);
    tp_dw.elf_end(im->elf);
    munmap(im->map, im->size);
    close(im->fd);
}

static struct tp_cfa_rule libdw_rule(struct image *im, uintptr_t pc)
{
    Dwarf_Frame *fr = NULL;
    struct tp_eh_frame f;
    if (tp_dw.dwarf_cfi_addrframe(im->cfi, pc - im->src.bias, &fr) != 0 || !fr)
        return (struct tp_cfa_rule){0, 0, 0, TP_CFA_NO, 0};
    tp_eh_frame_of_dw(fr, &f);
    tp_dw.free(fr);
    return tp_cfa_rule_from(&f);
}

static void same_rule(struct image *im, const char *path, uintptr_t pc, struct tp_cfa_rule mine)
{
    struct tp_cfa_rule dw = libdw_rule(im, pc);
    if (memcmp(&dw, &mine, sizeof dw) != 0)
        ck_abort_msg("%s at %#lx: libdw {%d %d %d %#x %u}, read here {%d %d %d %#x %u}", path,
                     (unsigned long)(pc - im->src.bias), dw.cfa_off, dw.ra_off, dw.rbp_off,
                     dw.flags, dw.need, mine.cfa_off, mine.ra_off, mine.rbp_off, mine.flags,
                     mine.need);
}

/* Every row of every FDE of path; returns the number of rows (0 when the file is missing). */
static long every_row(const char *path, long *walkable)
{
    struct image im;
    if (!open_image(path, &im))
        return 0;
    long n = tp_eh_fde_count(&im.src), rows = 0;
    ck_assert_int_gt(n, 100);
    for (long i = 0; i < n; i++) {
        uintptr_t start, end;
        ck_assert_int_eq(tp_eh_fde_range(&im.src, i, &start, &end), 0);
        for (uintptr_t pc = start; pc < end;) {
            struct tp_eh_frame f;
            uintptr_t row_end;
            int st = tp_eh_frame_at(&im.src, pc, &f, &row_end);
            if (st != TP_EH_FOUND)
                ck_abort_msg("%s: FDE %ld at %#lx: %d, not read", path, i,
                             (unsigned long)(pc - im.src.bias), st);
            struct tp_cfa_rule r = tp_cfa_rule_from(&f);
            *walkable += !(r.flags & TP_CFA_NO);
            same_rule(&im, path, pc, r);
            if (row_end > pc + 1) {
                ck_assert_int_eq(tp_eh_frame_at(&im.src, row_end - 1, &f, NULL), TP_EH_FOUND);
                same_rule(&im, path, row_end - 1, tp_cfa_rule_from(&f));
            }
            rows++;
            pc = row_end > pc ? row_end : pc + 1;
        }
    }
    close_image(&im);
    return rows;
}

static const char *cc1_path(void)
{
    static char path[4096];
    FILE *p = popen("gcc -print-prog-name=cc1 2>/dev/null", "r");
    if (!p || !fgets(path, sizeof path, p))
        path[0] = 0;
    if (p)
        pclose(p);
    path[strcspn(path, "\n")] = 0;
    return path;
}

START_TEST(test_same_as_libdw)
{
    const char *files[] = {cc1_path(),
                           "/usr/lib/x86_64-linux-gnu/libc.so.6",
                           "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                           "/usr/lib/x86_64-linux-gnu/libdw.so.1",
                           "/usr/bin/bash",
                           "/usr/bin/python3"};
    long total = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        long walkable = 0, rows = every_row(files[i], &walkable);
        if (rows)
            printf("%s: %ld rows, %ld with a rule the walk follows\n", files[i], rows, walkable);
        /* most rows of compiled code are "CFA = rsp/rbp + k, return address at CFA - 8" */
        ck_assert_int_ge(walkable * 10, rows * 9);
        total += rows;
    }
    /* libc.so.6 at least is there wherever this test can run */
    ck_assert_int_gt(total, 1000);
}
END_TEST

/* Before the first FDE, past an FDE's end, and with no table: not found, or left to libdw. */
START_TEST(test_edges)
{
    struct image im;
    ck_assert(open_image("/usr/lib/x86_64-linux-gnu/libc.so.6", &im));
    struct tp_eh_frame f;
    uintptr_t start, end;
    ck_assert_int_eq(tp_eh_fde_range(&im.src, 0, &start, &end), 0);
    ck_assert_int_eq(tp_eh_frame_at(&im.src, start - 1, &f, NULL), TP_EH_NONE);
    ck_assert_int_eq(tp_eh_frame_at(&im.src, start, &f, NULL), TP_EH_FOUND);
    ck_assert_int_eq(tp_eh_fde_range(&im.src, -1, &start, &end), -1);
    ck_assert_int_eq(tp_eh_fde_range(&im.src, tp_eh_fde_count(&im.src), &start, &end), -1);
    struct tp_eh_src none = im.src;
    none.hdr = 0;
    ck_assert_int_eq(tp_eh_frame_at(&none, start, &f, NULL), TP_EH_ASK_DW);
    ck_assert_int_eq(tp_eh_fde_count(&none), -1);
    /* a table that would lie past the readable bytes is not read */
    struct tp_eh_src cut = im.src;
    cut.hi = cut.hdr + 8;
    ck_assert_int_eq(tp_eh_frame_at(&cut, start, &f, NULL), TP_EH_ASK_DW);
    /* absolute addresses in a relocated image are not trusted */
    struct tp_eh_src mem = im.src;
    mem.file = 0;
    ck_assert_int_eq(tp_eh_frame_at(&mem, start, &f, NULL), TP_EH_FOUND);
    close_image(&im);
}
END_TEST

int main(void)
{
    tp_state = TP_RUNNING; /* as libtprof.so's constructor leaves it */
    if (!tp_dw_load()) {
        fprintf(stderr, "libdw.so.1 cannot be loaded\n");
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("ehframe");
    TCase *tc = tcase_create("rules");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_same_as_libdw);
    tcase_add_test(tc, test_edges);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
