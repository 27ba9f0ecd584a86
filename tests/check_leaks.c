/* Leak suppressions (LeakSanitizer's pattern rules and file format) and which call sites are a
 * system library's own keeping. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/suppress.h"
#include "report/report.h"

START_TEST(test_match)
{
    ck_assert(tp_suppress_match("foo", "a_foo_b")); /* a substring */
    ck_assert(!tp_suppress_match("foo", "fo"));
    ck_assert(tp_suppress_match("^foo", "foobar")); /* anchored at the start */
    ck_assert(!tp_suppress_match("^foo", "xfoo"));
    ck_assert(tp_suppress_match("foo$", "xfoo")); /* anchored at the end */
    ck_assert(!tp_suppress_match("foo$", "foox"));
    ck_assert(tp_suppress_match("^foo$", "foo"));
    ck_assert(!tp_suppress_match("^foo$", "foofoo")); /* LSan: the first occurrence only */
    ck_assert(tp_suppress_match("a*c", "xabxcx"));    /* in order, anything between */
    ck_assert(!tp_suppress_match("c*a", "xabxcx"));
    ck_assert(tp_suppress_match("^a*c$", "abc"));
    ck_assert(tp_suppress_match("lib*$", "/usr/lib/libz.so")); /* `*` then `$`: any end */
    ck_assert(tp_suppress_match("*", "x"));
    ck_assert(!tp_suppress_match("*", "")); /* an empty name matches nothing */
    ck_assert(!tp_suppress_match("x", NULL));
    ck_assert(tp_suppress_match("nope\nbar", "foobar")); /* any of the patterns */
    ck_assert(!tp_suppress_match(NULL, "foo"));
}
END_TEST

START_TEST(test_parse)
{
    char *p, why[200];
    ck_assert_int_eq(tp_suppress_parse("# c\n\n  leak:^a$  \r\nleak:b*c\n", &p, why, sizeof why),
                     0);
    ck_assert_str_eq(p, "^a$\nb*c");
    free(p);
    ck_assert_int_eq(tp_suppress_parse("# only comments\n\n", &p, why, sizeof why), 0);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(tp_suppress_parse("leak:a\nleak:\n", &p, why, sizeof why), -1);
    ck_assert_str_eq(why, "line 2: expected leak:<pattern>, found 'leak:'");
    ck_assert_ptr_null(p);
    ck_assert_int_eq(tp_suppress_parse("interceptor_via_fun:x\n", &p, why, sizeof why), -1);
    ck_assert_str_eq(why, "line 1: expected leak:<pattern>, found 'interceptor_via_fun:x'");
    ck_assert_int_eq(tp_suppress_load("/nonexistent/x.supp", &p, why, sizeof why), -1);
    ck_assert_str_eq(why, "cannot be read");
}
END_TEST

/* A site from (function, module) pairs, innermost first. */
static struct tp_site site(const char *const *fm, size_t n)
{
    struct tp_site s;
    memset(&s, 0, sizeof s);
    s.frames = calloc(n, sizeof *s.frames);
    for (size_t i = 0; i < n; i++) {
        s.frames[i].function = fm[2 * i] ? strdup(fm[2 * i]) : NULL;
        s.frames[i].module = strdup(fm[2 * i + 1]);
    }
    s.nframes = n;
    return s;
}

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LD   "/lib64/ld-linux-x86-64.so.2"
#define EXE  "/home/u/prog"

static void expect(const char *const *fm, size_t n, int sys, const char *what)
{
    struct tp_site s = site(fm, n);
    char w[64];
    ck_assert_int_eq(tp_site_system(&s), sys);
    if (what) {
        tp_site_system_what(&s, w, sizeof w);
        ck_assert_str_eq(w, what);
    }
    tp_site_free_frames(&s);
}

START_TEST(test_system_sites)
{
    const char *stdio[] = {
        "_IO_file_doallocate", LIBC, "_IO_doallocbuf", LIBC, "printf", LIBC, "main", EXE};
    expect(stdio, 4, 1, "stdio buffer");
    const char *dtv[] = {"allocate_dtv", LD, "_dl_allocate_tls", LD, "pthread_create", LIBC,
                         "main",         EXE};
    expect(dtv, 4, 1, "ld.so TLS");
    const char *quad[] = {"register_printf_specifier",
                          LIBC,
                          NULL,
                          "/usr/lib/x86_64-linux-gnu/libquadmath.so.0.0.0",
                          "call_init",
                          LD};
    expect(quad, 3, 1, "libquadmath");
    const char *gomp[] = {NULL,
                          "/usr/lib/x86_64-linux-gnu/libgomp.so.1",
                          "GOMP_parallel",
                          "/usr/lib/x86_64-linux-gnu/libgomp.so.1",
                          "main",
                          EXE};
    expect(gomp, 3, 1, "libgomp");
    /* python3's start-up: mbstowcs loads libc's conversion state, kept for the process. */
    const char *conv[] = {"__gconv_lookup_cache",
                          LIBC,
                          "__gconv_find_transform",
                          LIBC,
                          "__wcsmbs_load_conv",
                          LIBC,
                          "mbstowcs",
                          LIBC,
                          "Py_DecodeLocale",
                          EXE};
    expect(conv, 5, 1, "character-set conversion data");
    const char *wcs[] = {"__wcsmbs_load_conv", LIBC, "__mbsrtowcs_l", LIBC, "main", EXE};
    expect(wcs, 3, 1, "character-set conversion data");
    /* libc handing a block to the program: the program's leak. */
    const char *dup[] = {"__strdup", LIBC, "main", EXE};
    expect(dup, 2, 0, NULL);
    const char *own[] = {"main", EXE};
    expect(own, 1, 0, NULL);
    /* A runtime's frame above the program's code does not make the program's block its own. */
    const char *above[] = {"make", EXE, NULL, "/usr/lib/x86_64-linux-gnu/libgomp.so.1"};
    expect(above, 2, 0, NULL);
    expect(NULL, 0, 0, NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("leaks");
    TCase *tc = tcase_create("leaks");
    tcase_add_test(tc, test_match);
    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_system_sites);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
