/* Unit tests of track/sym/symtab.c on this test program itself (static functions from .symtab),
 * on libc (.dynsym), and on a library loaded and unloaded while it runs; of the module list's
 * build-ids (track/sym/modmap.c). Not preloaded. */
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/sym/sym.h"
#include "tests/symat.h"
#include "track/sym/sym.h"
#include "track/runtime.h"

static volatile int sink;
static int data_word[64];

__attribute__((noinline, used)) static void tpsym_alpha(int i)
{
    sink += i;
}
__attribute__((noinline, used)) static void tpsym_beta(int i)
{
    sink -= i;
    tpsym_alpha(i);
}
__attribute__((noinline, used)) static int tpsym_gamma(int i)
{
    return sink * i;
}

static uintptr_t A(void (*f)(int))
{
    return (uintptr_t)f;
}
/* libc's own qsort: in a sanitizer build RTLD_DEFAULT finds ASan's interceptor first. */
static uintptr_t libc_qsort(void)
{
    return (uintptr_t)dlsym(dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD), "qsort");
}

START_TEST(test_static_functions_by_name)
{
    char name[64];
    uintptr_t start = 0;
    ck_assert_int_eq(tp_symtab_lookup(A(tpsym_alpha), name, sizeof name, &start), 0);
    ck_assert_str_eq(name, "tpsym_alpha");
    ck_assert_uint_eq(start, A(tpsym_alpha));
    /* inside the function: same function, same start */
    ck_assert_int_eq(tp_symtab_lookup(A(tpsym_beta) + 3, name, sizeof name, &start), 0);
    ck_assert_str_eq(name, "tpsym_beta");
    ck_assert_uint_eq(start, A(tpsym_beta));
    ck_assert_int_eq(tp_symtab_lookup((uintptr_t)tpsym_gamma, name, sizeof name, NULL), 0);
    ck_assert_str_eq(name, "tpsym_gamma");
    /* truncated to the buffer */
    char small[6];
    ck_assert_int_eq(tp_symtab_lookup(A(tpsym_alpha), small, sizeof small, NULL), 0);
    ck_assert_str_eq(small, "tpsym");
}
END_TEST

START_TEST(test_not_a_function)
{
    char name[64];
    /* data of a mapped module is covered by no function symbol */
    ck_assert_int_eq(tp_symtab_lookup((uintptr_t)&data_word[10], name, sizeof name, NULL), -1);
    /* an address no module maps */
    ck_assert_int_eq(tp_symtab_lookup((uintptr_t)16, name, sizeof name, NULL), -1);
}
END_TEST

START_TEST(test_module_of_address)
{
    char path[4096], exe[4096];
    uintptr_t bias, lo, hi;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = 0;
    ck_assert_int_eq(tp_symtab_module(A(tpsym_alpha), path, sizeof path, &bias, &lo, &hi), 0);
    ck_assert_str_eq(path, exe);
    ck_assert(lo <= A(tpsym_alpha) && A(tpsym_alpha) < hi);
    ck_assert(lo <= (uintptr_t)&data_word[0] && (uintptr_t)&data_word[0] < hi);
    ck_assert(bias <= lo);
    uintptr_t q = libc_qsort();
    ck_assert_int_eq(tp_symtab_module(q, path, sizeof path, NULL, NULL, NULL), 0);
    ck_assert_ptr_nonnull(strstr(path, "libc.so"));
    ck_assert_int_eq(tp_symtab_module((uintptr_t)16, path, sizeof path, NULL, NULL, NULL), -1);
}
END_TEST

START_TEST(test_libc_from_dynsym)
{
    char name[64];
    uintptr_t start;
    uintptr_t q = libc_qsort();
    ck_assert_int_eq(tp_symtab_lookup(q, name, sizeof name, &start), 0);
    ck_assert_str_eq(name, "qsort");
    ck_assert_uint_eq(start, q);
}
END_TEST

/* symtab.c reads the ELF file itself: every function symbol of libc's .dynsym as libelf reads
 * it is found at its own address. */
static int by_address(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(test_libc_as_libelf)
{
    char path[4096], name[256];
    uintptr_t bias, lo, hi, start;
    ck_assert_int_eq(tp_symtab_module(libc_qsort(), path, sizeof path, &bias, &lo, &hi), 0);
    ck_assert(tp_dw_ready());
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    Elf *e = tp_dw.elf_begin(fileno(f), ELF_C_READ, NULL);
    ck_assert_ptr_nonnull(e);
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = tp_dw.elf_nextscn(e, scn)) != NULL)
        if (tp_dw.gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
            break;
    ck_assert_ptr_nonnull(scn);
    Elf_Data *d = tp_dw.elf_getdata(scn, NULL);
    size_t count = sh.sh_size / sh.sh_entsize, n = 0;
    uintptr_t *at = calloc(count, sizeof *at);
    for (size_t i = 0; i < count; i++) {
        GElf_Sym sym;
        ck_assert_ptr_nonnull(tp_dw.gelf_getsym(d, (int)i, &sym));
        int t = GELF_ST_TYPE(sym.st_info);
        if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
            continue;
        at[n++] = bias + sym.st_value;
        ck_assert_int_eq(tp_symtab_lookup(bias + sym.st_value, name, sizeof name, &start), 0);
        ck_assert_uint_eq(start, bias + sym.st_value);
    }
    qsort(at, n, sizeof *at, by_address);
    long distinct = 0;
    for (size_t i = 0; i < n; i++)
        distinct += !i || at[i] != at[i - 1];
    ck_assert_int_gt(distinct, 1000);
    free(at);
    tp_dw.elf_end(e);
    fclose(f);
}
END_TEST

START_TEST(test_dlopen_then_dlclose)
{
    const char *tb = getenv("TB");
    char lib[4096], name[64], path[4096];
    ck_assert_ptr_nonnull(tb);
    snprintf(lib, sizeof lib, "%s/victims/libtpop.so", tb);
    ck_assert_int_eq(tp_symtab_lookup(A(tpsym_alpha), name, sizeof name, NULL), 0); /* list read */
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "%s", dlerror());
    uintptr_t g = (uintptr_t)dlsym(h, "tpop_gemm");
    ck_assert(g != 0);
    /* not in the list read before: found by reading the list again */
    ck_assert_int_eq(tp_symtab_lookup(g, name, sizeof name, NULL), 0);
    ck_assert_str_eq(name, "tpop_gemm");
    ck_assert_int_eq(tp_symtab_module(g, path, sizeof path, NULL, NULL, NULL), 0);
    ck_assert_str_eq(path, lib);
    ck_assert_int_eq(dlclose(h), 0);
    tp_symtab_stale();
    ck_assert_int_eq(tp_symtab_lookup(g, name, sizeof name, NULL), -1);
    ck_assert_int_eq(tp_symtab_lookup(A(tpsym_beta), name, sizeof name, NULL), 0);
    ck_assert_str_eq(name, "tpsym_beta");
}
END_TEST

START_TEST(test_demangle)
{
    char out[128];
    tp_symtab_demangle("conv2d", out, sizeof out);
    ck_assert_str_eq(out, "conv2d");
    void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL);
    if (!h)
        return; /* no C++ runtime on this machine: nothing to demangle with */
    tp_symtab_demangle("_Z6conv2dPfi", out, sizeof out);
    ck_assert_str_eq(out, "conv2d(float*, int)");
    tp_symtab_demangle("_Zbroken", out, sizeof out);
    ck_assert_str_eq(out, "_Zbroken");
}
END_TEST

static void *lookups(void *arg)
{
    (void)arg;
    char name[64];
    uintptr_t q = libc_qsort();
    for (int i = 0; i < 2000; i++) {
        uintptr_t a = i % 3 == 0 ? A(tpsym_alpha) : i % 3 == 1 ? A(tpsym_beta) : q;
        const char *want = i % 3 == 0 ? "tpsym_alpha" : i % 3 == 1 ? "tpsym_beta" : "qsort";
        if (i % 500 == 0)
            tp_symtab_stale(); /* lists read again under the others' feet */
        if (tp_symtab_lookup(a, name, sizeof name, NULL) != 0 || strcmp(name, want) != 0)
            return (void *)1;
    }
    return NULL;
}

/* An inlined function between a call and its caller: the return address of inl_record is in
 * inl_helper's code, inlined into inl_outer. The lines are the source's own (__LINE__). */
static uintptr_t inl_ra;
static volatile int inl_line_helper, inl_line_call;
__attribute__((noinline, noclone, used)) static int inl_record(int line)
{
    inl_ra = (uintptr_t)__builtin_return_address(0);
    return line + sink;
}
static inline __attribute__((always_inline)) void inl_helper(void)
{
    inl_line_helper = inl_record(__LINE__);
}
__attribute__((noinline, used)) static void inl_outer(void)
{
    inl_helper(), inl_line_call = __LINE__;
}

static void free_frames(struct tp_frame *f, int n)
{
    for (int i = 0; i < n; i++) {
        free(f[i].function);
        free(f[i].file);
        free(f[i].module);
    }
}

START_TEST(test_inlined_frames)
{
    sink = 0;
    inl_outer();
    struct tp_symbolizer *s = tp_sym_open(0);
    ck_assert_ptr_nonnull(s);
    struct tp_frame f[TP_SYM_MAX_FRAMES];
    int n = frames_at(s, inl_ra, 1, f, TP_SYM_MAX_FRAMES);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(f[0].function, "inl_helper");
    ck_assert_int_eq(f[0].inlined, 1);
    ck_assert_int_eq(f[0].line, inl_line_helper);
    ck_assert_ptr_nonnull(strstr(f[0].file, "check_symtab.c"));
    ck_assert_str_eq(f[1].function, "inl_outer");
    ck_assert_int_eq(f[1].inlined, 0);
    ck_assert_int_eq(f[1].line, inl_line_call);
    ck_assert_ptr_nonnull(strstr(f[1].file, "check_symtab.c"));
    ck_assert_uint_eq(f[0].offset, f[1].offset);
    ck_assert_str_eq(f[0].module, f[1].module);
    free_frames(f, n);
    /* With room for one frame: the real function, with the line of its call. */
    n = frames_at(s, inl_ra, 1, f, 1);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(f[0].function, "inl_outer");
    ck_assert_int_eq(f[0].line, inl_line_call);
    free_frames(f, n);
    /* A function with nothing inlined: one frame, as before. */
    n = frames_at(s, A(tpsym_beta) + 1, 0, f, TP_SYM_MAX_FRAMES);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(f[0].function, "tpsym_beta");
    ck_assert_int_eq(f[0].inlined, 0);
    free_frames(f, n);
    tp_sym_close(s);
}
END_TEST

START_TEST(test_threads)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, lookups, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        ck_assert_ptr_null(r);
    }
}
END_TEST

/* ---- build-ids from the notes in memory (track/sym/modmap.c) ---- */

/* A note into b at *off, padded to align as a PT_NOTE segment with that alignment is. */
static void put_note(unsigned char *b, size_t *off, size_t align, const char *name, uint32_t type,
                     const unsigned char *desc, uint32_t descsz)
{
    Elf64_Nhdr nh = {(uint32_t)strlen(name) + 1, descsz, type};
    memcpy(b + *off, &nh, sizeof nh);
    *off += sizeof nh;
    memcpy(b + *off, name, nh.n_namesz);
    *off += (nh.n_namesz + align - 1) & ~(align - 1);
    memcpy(b + *off, desc, descsz);
    *off += (descsz + align - 1) & ~(align - 1);
}

static int ph_past; /* the PT_NOTE reaches a byte past the PT_LOAD segment */

/* A module whose one PT_NOTE segment is b[0..size) (the bias is b's address). */
static size_t id_of(const unsigned char *b, size_t size, size_t align, unsigned char *out,
                    size_t cap)
{
    ElfW(Phdr) ph[2] = {{.p_type = PT_LOAD, .p_memsz = size},
                        {.p_type = PT_NOTE, .p_filesz = size + (size_t)ph_past, .p_align = align}};
    struct tp_module m = {.bias = (uintptr_t)b,
                          .lo = (uintptr_t)b,
                          .hi = (uintptr_t)b + size,
                          .phdr = ph,
                          .phnum = 2};
    return tp_modmap_build_id(&m, out, cap);
}

START_TEST(test_build_id_notes)
{
    _Alignas(8) unsigned char b[256] = {0};
    unsigned char id[20], out[TP_BUILD_ID_MAX], prop[16] = {1, 2, 3};
    for (int i = 0; i < 20; i++)
        id[i] = (unsigned char)(0xa0 + i);
    for (size_t align = 4; align <= 8; align += 4) {
        /* another vendor's note and the GNU property note (type 5) before the build-id */
        size_t off = 0;
        memset(b, 0, sizeof b);
        put_note(b, &off, align, "Xen", NT_GNU_BUILD_ID, prop, 3);
        put_note(b, &off, align, "GNU", 5, prop, sizeof prop);
        put_note(b, &off, align, "GNU", NT_GNU_BUILD_ID, id, sizeof id);
        ck_assert_uint_eq(id_of(b, off, align, out, sizeof out), sizeof id);
        ck_assert_mem_eq(out, id, sizeof id);
        /* cut to the room given */
        ck_assert_uint_eq(id_of(b, off, align, out, 8), 8);
        /* the segment ends inside the build-id's descriptor: none, nothing read past it */
        ck_assert_uint_eq(id_of(b, off - 12, align, out, sizeof out), 0);
        /* a note segment past the module's mapped range is not read */
        ph_past = 1;
        ck_assert_uint_eq(id_of(b, off, align, out, sizeof out), 0);
        ph_past = 0;
        /* no build-id note at all */
        off = 0;
        put_note(b, &off, align, "GNU", 5, prop, sizeof prop);
        ck_assert_uint_eq(id_of(b, off, align, out, sizeof out), 0);
    }
}
END_TEST

/* The report's list of this process: the test program first, named by its file, with the
 * build-id the linker gave it (Debian's and Ubuntu's compilers ask for one by default), libc
 * among the others, every range a real one, nothing departed. */
START_TEST(test_modules_collect)
{
    struct tp_report r;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = 0;
    tp_report_init(&r);
    tp_modmap_collect(&r);
    ck_assert_uint_ge(r.nmodules, 2);
    ck_assert_str_eq(r.modules[0].path, exe);
    int libc = 0;
    for (size_t i = 0; i < r.nmodules; i++) {
        const struct tp_modinfo *m = &r.modules[i];
        ck_assert_uint_lt(m->lo, m->hi);
        ck_assert_int_eq(m->departed, 0);
        if (strstr(m->path, "/libc.so")) {
            libc = 1;
            ck_assert_ptr_nonnull(m->build_id);
        }
        for (const char *c = m->build_id; c && *c; c++)
            ck_assert_msg((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f'), "%s", m->build_id);
    }
    ck_assert_int_eq(libc, 1);
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    /* as libtprof.so's constructor does once the configuration is read */
    tp_state = TP_RUNNING;
    tp_dw_load();
    Suite *s = suite_create("symtab");
    TCase *tc = tcase_create("symtab");
    tcase_add_test(tc, test_static_functions_by_name);
    tcase_add_test(tc, test_not_a_function);
    tcase_add_test(tc, test_module_of_address);
    tcase_add_test(tc, test_libc_from_dynsym);
    tcase_add_test(tc, test_libc_as_libelf);
    tcase_add_test(tc, test_dlopen_then_dlclose);
    tcase_add_test(tc, test_demangle);
    tcase_add_test(tc, test_inlined_frames);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_build_id_notes);
    tcase_add_test(tc, test_modules_collect);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
