/* Unit tests of the address-to-function lookup (track/sym/symindex.c): on a made-up table of 30,000
 * symbols given in a shuffled order (boundaries, size 0, aliases, a function around a label),
 * and on this program itself, which defines 1,024 functions, aliases of them and an assembly
 * symbol of size 0, named alike by the hooks' tables (track/sym/symtab.c) and by the report's
 * symboliser (track/sym/symbolize.c), which reads the module's table once for every address. */
#include <check.h>
#include <dlfcn.h>
#include <unistd.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "report/sym/sym.h"
#include "tests/symat.h"
#include "track/sym/sym.h"
#include "track/runtime.h"
#include "common/names/names.h"

/* ---- a made-up module ---- */

#define NSYM 30000
#define STEP 64 /* symbol i at BASE + STEP*i; sizes below keep within it */
#define BASE 0x400000u

static char names[NSYM][16];

/* Symbol i: size 48 (a 16-byte gap after it), except every 7th, which has size 0. */
static uint64_t size_of(int i)
{
    return i % 7 == 3 ? 0 : 48;
}

static struct tp_sym *made_up(size_t *n)
{
    /* the symbols, then at every 10th address three aliases: a weak one, a local one and a
     * second global one later in the table, all of the same size */
    size_t cap = NSYM + 3 * (NSYM / 10) + 2, k = 0;
    struct tp_sym *v = calloc(cap, sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (int i = 0; i < NSYM; i++) {
        snprintf(names[i], sizeof names[i], "f%d", i);
        v[k++] = (struct tp_sym){BASE + (uintptr_t)STEP * i, size_of(i), names[i],
                                 (uint32_t)(10 + i), (uint8_t)tp_sym_rank(STB_GLOBAL)};
        if (i % 10 == 0 && size_of(i)) {
            v[k++] = (struct tp_sym){BASE + (uintptr_t)STEP * i, 48, "weak", 1,
                                     (uint8_t)tp_sym_rank(STB_WEAK)};
            v[k++] = (struct tp_sym){BASE + (uintptr_t)STEP * i, 48, "local", 2,
                                     (uint8_t)tp_sym_rank(STB_LOCAL)};
            v[k++] = (struct tp_sym){BASE + (uintptr_t)STEP * i, 48, "later_global",
                                     (uint32_t)(100000 + i), (uint8_t)tp_sym_rank(STB_GLOBAL)};
        }
    }
    /* symbol 1's address also has a global alias of size 0: the one with a size names it */
    v[k++] = (struct tp_sym){BASE + STEP, 0, "sizeless_alias", 0, (uint8_t)tp_sym_rank(STB_GLOBAL)};
    /* a function that encloses the label at symbol 5: [BASE+STEP*4, +3*STEP) */
    v[k++] =
        (struct tp_sym){BASE + STEP * 4 + 8, 3 * STEP, "outer", 5, (uint8_t)tp_sym_rank(STB_LOCAL)};
    /* shuffled: the result must not depend on the table's order */
    srand(17);
    for (size_t i = k - 1; i > 0; i--) {
        size_t j = (size_t)rand() % (i + 1);
        struct tp_sym t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
    *n = k;
    tp_symindex_finish(v, n, NULL);
    return v;
}

static const char *name_at(const struct tp_sym *v, size_t n, uintptr_t a)
{
    const struct tp_sym *s = tp_symindex_find(v, n, a);
    return s ? s->name : NULL;
}

START_TEST(test_made_up_boundaries)
{
    size_t n;
    struct tp_sym *v = made_up(&n);
    /* one entry per address: the 30,000 symbols and "outer" */
    ck_assert_uint_eq(n, NSYM + 1);
    for (size_t i = 1; i < n; i++)
        ck_assert_uint_lt(v[i - 1].start, v[i].start);
    ck_assert_ptr_null(name_at(v, n, 0));
    ck_assert_ptr_null(name_at(v, n, BASE - 1));
    /* from symbol 8 on, past "outer": each symbol at its first byte (f<i> at every 10th
     * address too: global and first in the table, before its weak, local and later aliases) */
    for (int i = 8; i < NSYM; i++) {
        uintptr_t a = BASE + (uintptr_t)STEP * i;
        const char *got = name_at(v, n, a);
        ck_assert_ptr_nonnull(got);
        ck_assert_str_eq(got, names[i]);
        if (size_of(i)) {
            ck_assert_str_eq(name_at(v, n, a + 47), names[i]); /* its last byte */
            ck_assert_ptr_null(name_at(v, n, a + 48));         /* the gap after it */
        } else {
            ck_assert_ptr_null(name_at(v, n, a + 1)); /* size 0: its first byte only */
        }
    }
    /* past the last symbol */
    ck_assert_ptr_null(name_at(v, n, BASE + (uintptr_t)STEP * NSYM + 1000));
    free(v);
}
END_TEST

START_TEST(test_made_up_aliases_and_nesting)
{
    size_t n;
    struct tp_sym *v = made_up(&n);
    ck_assert_str_eq(name_at(v, n, BASE), "f0");        /* global before weak and local */
    ck_assert_str_eq(name_at(v, n, BASE + STEP), "f1"); /* sized before a sizeless global */
    ck_assert_str_eq(name_at(v, n, BASE + STEP * 20 + 10), "f20");
    /* "outer" holds [BASE+4*STEP+8, BASE+7*STEP+8), around f5 (sized 48) and f6 */
    ck_assert_str_eq(name_at(v, n, BASE + STEP * 4 + 8), "outer");
    ck_assert_str_eq(name_at(v, n, BASE + STEP * 4 + 60), "outer"); /* f4 ended at +48 */
    ck_assert_str_eq(name_at(v, n, BASE + STEP * 5 + 4), "f5");     /* the innermost */
    ck_assert_str_eq(name_at(v, n, BASE + STEP * 5 + 50), "outer"); /* past f5, inside outer */
    ck_assert_str_eq(name_at(v, n, BASE + STEP * 7 + 7), "f7");
    ck_assert_ptr_null(name_at(v, n, BASE + STEP * 7 + 50)); /* past both */
    free(v);
}
END_TEST

START_TEST(test_empty)
{
    size_t n = 0;
    tp_symindex_finish(NULL, &n, NULL);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(tp_symindex_find(NULL, 0, 1234));
}
END_TEST

/* The order tp_symindex_finish keeps, stated again here and applied with qsort: by address, at
 * one address a symbol with a size, then the best rank, then the first in the table. */
static int reference_order(const void *a, const void *b)
{
    const struct tp_sym *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if ((x->size != 0) != (y->size != 0))
        return x->size ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* 20,001 symbols on up to 3,000 addresses (many aliases each), sizes and ranks mixed, odd counts: the
 * same symbols kept, in the same order, as qsort with that order gives. */
START_TEST(test_many_aliases_as_qsort)
{
    enum { N = 20001 };
    struct tp_sym *v = calloc(N, sizeof *v), *w = calloc(N, sizeof *w);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = (struct tp_sym){0x400000 + (x % 3000) * 16, (x >> 20) % 3 ? (x >> 24) % 64 : 0, NULL,
                               (uint32_t)i, (uint8_t)((x >> 30) % 4)};
    }
    memcpy(w, v, N * sizeof *v);
    size_t n = N, m = 0;
    struct tp_sym *scratch = malloc(N * sizeof *scratch);
    tp_symindex_finish(v, &n, scratch);
    free(scratch);
    qsort(w, N, sizeof *w, reference_order);
    for (size_t i = 0; i < N; i++)
        if (m == 0 || w[m - 1].start != w[i].start)
            w[m++] = w[i];
    ck_assert_uint_eq(n, m);
    ck_assert_uint_gt(n, 2900); /* about 7 aliases an address */
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(memcmp(&v[i], &w[i], sizeof v[i]), 0);
    free(v);
    free(w);
}
END_TEST

/* ---- this program: 1,024 functions, aliases, a symbol of size 0 ---- */

static volatile int sink;
#define F(p)                                                                                       \
    __attribute__((noinline, used)) static int tpix_##p(int x)                                     \
    {                                                                                              \
        return x * 3 + sink;                                                                       \
    }
#define L1(p) F(p##0) F(p##1) F(p##2) F(p##3)
#define L2(p) L1(p##0) L1(p##1) L1(p##2) L1(p##3)
#define L3(p) L2(p##0) L2(p##1) L2(p##2) L2(p##3)
#define L4(p) L3(p##0) L3(p##1) L3(p##2) L3(p##3)
#define L5(p) L4(p##0) L4(p##1) L4(p##2) L4(p##3)
L5(f)
#undef F
#define F(p) {(uintptr_t)tpix_##p, "tpix_" #p},
static const struct {
    uintptr_t at;
    const char *name;
} fns[] = {L5(f)};

/* Aliases of two of them: a global one outranks the static (local) function, a weak one too. */
int tpix_global_alias(int x) __attribute__((alias("tpix_f00000")));
int tpix_weak_alias(int x) __attribute__((weak, alias("tpix_f00001")));

/* A symbol of size 0, as hand-written assembly has, followed by padding. */
__asm__(".text\n.globl tpix_label\n.type tpix_label, @function\n.p2align 4\ntpix_label:\n"
        "ret\nnop\nnop\nnop\n.p2align 4\n");
extern void tpix_label(void);

static void symtab_name(uintptr_t a, char *out, size_t n)
{
    if (tp_symtab_lookup(a, out, n, NULL) != 0)
        snprintf(out, n, "(none)");
}

/* The real function of a (the last of its frames: the inlined ones come first). */
static void symbolize_name(struct tp_symbolizer *s, uintptr_t a, char *out, size_t n)
{
    struct tp_frame f[TP_SYM_MAX_FRAMES];
    int k = frames_at(s, a, 0, f, TP_SYM_MAX_FRAMES);
    snprintf(out, n, "%s", k > 0 && f[k - 1].function ? f[k - 1].function : "(none)");
    for (int i = 0; i < k; i++) {
        free(f[i].function);
        free(f[i].file);
        free(f[i].module);
    }
}

/* The symboliser reads a module's symbol table through libdw: counted here (this definition is
 * the one the symboliser's object, linked into this program, calls), so that the test sees each
 * table read once however many addresses are named from it. */
static int getsymtab_calls;

int dwfl_module_getsymtab(Dwfl_Module *m)
{
    static int (*real)(Dwfl_Module *);
    if (!real)
        real = (int (*)(Dwfl_Module *))dlsym(RTLD_NEXT, "dwfl_module_getsymtab");
    getsymtab_calls++;
    return real(m);
}

START_TEST(test_this_program)
{
    size_t nf = sizeof fns / sizeof fns[0];
    ck_assert_uint_eq(nf, 1024);
    struct tp_symbolizer *s = tp_sym_open(0);
    ck_assert_ptr_nonnull(s);
    char a[128], b[128];
    symbolize_name(s, fns[5].at, a, sizeof a);
    ck_assert_str_eq(a, fns[5].name);
    ck_assert_int_eq(getsymtab_calls, 1);
    for (size_t i = 0; i < nf; i++) {
        const char *want = i == 0 ? "tpix_global_alias" : i == 1 ? "tpix_weak_alias" : fns[i].name;
        symtab_name(fns[i].at, a, sizeof a);
        symbolize_name(s, fns[i].at, b, sizeof b);
        ck_assert_str_eq(a, want);
        ck_assert_str_eq(b, want);
        /* a return address inside it: the same function */
        symtab_name(fns[i].at + 1, a, sizeof a);
        ck_assert_str_eq(a, want);
    }
    uintptr_t l = (uintptr_t)tpix_label;
    symtab_name(l, a, sizeof a);
    symbolize_name(s, l, b, sizeof b);
    ck_assert_str_eq(a, "tpix_label");
    ck_assert_str_eq(b, "tpix_label");
    /* the byte after its first: not named after a symbol that does not hold it */
    symtab_name(l + 1, a, sizeof a);
    symbolize_name(s, l + 1, b, sizeof b);
    ck_assert_str_eq(a, "(none)");
    ck_assert_str_eq(b, "(none)");
    /* every address after the first: the table read once */
    ck_assert_int_eq(getsymtab_calls, 1);
    tp_sym_close(s);
}
END_TEST

/* ---- the names the PLT scan matches: TPROF_OPS globs ----
 * tp_ops_match takes a fast path for patterns of plain characters and '*' (common/config.c): it
 * must agree with fnmatch(3) and FNM_CASEFOLD on every pattern of up to 4 characters over
 * {a, B, _, *} and every name of up to 5 over {a, b, A, _}, and fall back to fnmatch for ?, [ ]. */
static int next_word(char *w, int len, const char *alpha, int na)
{
    for (int i = 0; i < len; i++) {
        const char *at = strchr(alpha, w[i]);
        if (at - alpha + 1 < na) {
            w[i] = at[1];
            return 1;
        }
        w[i] = alpha[0];
    }
    return 0;
}

START_TEST(test_glob_fast_path)
{
    char pat[8], name[8];
    long pairs = 0;
    for (int pl = 1; pl <= 4; pl++) {
        memset(pat, 'a', (size_t)pl);
        pat[pl] = 0;
        do {
            for (int nl = 1; nl <= 5; nl++) {
                memset(name, 'a', (size_t)nl);
                name[nl] = 0;
                do {
                    int want = fnmatch(pat, name, FNM_CASEFOLD) == 0;
                    ck_assert_msg(tp_ops_match(pat, name) == want, "%s %s", pat, name);
                    pairs++;
                } while (next_word(name, nl, "abA_", 4));
            }
        } while (next_word(pat, pl, "aB_*", 4));
    }
    ck_assert_int_eq(pairs, 340L * 1364L);
    ck_assert(tp_ops_match("*conv*", "Forward_CONVolutional_layer"));
    ck_assert(!tp_ops_match("*conv*,!*layer", "forward_convolutional_layer"));
    ck_assert(tp_ops_match("s?emm", "sgemm"));    /* fnmatch's ? */
    ck_assert(tp_ops_match("[sd]gemm", "dgemm")); /* and its [ ] */
    ck_assert(!tp_ops_match("[sd]gemm", "cgemm"));
    ck_assert(tp_ops_match("*gemm*", "cblas_sgemm")); /* the name's own case */
}
END_TEST

int main(void)
{
    tp_state = TP_RUNNING;
    tp_dw_load();
    Suite *s = suite_create("symindex");
    TCase *tc = tcase_create("symindex");
    tcase_set_timeout(tc, 60); /* a loaded machine: nothing here depends on its speed */
    tcase_add_test(tc, test_made_up_boundaries);
    tcase_add_test(tc, test_made_up_aliases_and_nesting);
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_many_aliases_as_qsort);
    tcase_add_test(tc, test_this_program);
    tcase_add_test(tc, test_glob_fast_path);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
