/* Work specifications (common/workspec.h, workabi.h): precedence, parentheses, min/max, unary
 * minus, shapes in the order parameters first appear; 64-bit overflow, division by zero and
 * negative results make a call's work unknown; every malformed entry is refused with a reason and
 * the set kept; a prototype's parameters placed in registers and on the stack as the x86-64 ABI
 * passes them. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/workspec.h"

static uint64_t flops_of(const char *text, const int64_t *vals, int *rc)
{
    struct tp_work_set *set = NULL;
    char why[200];
    ck_assert_msg(tp_work_parse(&set, text, why, sizeof why) == 0, "%s: %s", text, why);
    uint64_t f = 0, b = 0;
    *rc = tp_work_eval(&set->fn[0], vals, &f, &b);
    free(set);
    return f;
}

START_TEST(test_arithmetic)
{
    const int64_t v[] = {3, 5, 7};
    int rc;
    ck_assert_uint_eq(flops_of("f: flops=a+b*c", v, &rc), 38);
    ck_assert_uint_eq(flops_of("f: flops=(a+b)*c", v, &rc), 56);
    flops_of("f: flops=c-b-a", v, &rc);
    ck_assert_int_eq(rc, -1); /* 7-5-3 < 0: unknown, left-associative */
    /* values come in the order the parameters first appear: c = 3, a = 5, b = 7 */
    ck_assert_uint_eq(flops_of("f: flops=c/a*b", v, &rc), 0);
    const int64_t w[] = {7, 3, 5};
    ck_assert_uint_eq(flops_of("f: flops=x/y*z", w, &rc), 7 / 3 * 5);
    ck_assert_uint_eq(flops_of("f: flops = min(a, b) * max(b,c) + -a + 3", v, &rc), 21);
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(flops_of("f: flops=2*a*b*c bytes=4*(a*b+c)", v, &rc), 210);
}
END_TEST

START_TEST(test_unknown)
{
    const int64_t big[] = {INT64_MAX / 2 + 1, 0};
    int rc;
    flops_of("f: flops=2*a", big, &rc);
    ck_assert_int_eq(rc, -1); /* overflow */
    flops_of("f: flops=a+a", big, &rc);
    ck_assert_int_eq(rc, -1);
    flops_of("f: flops=a/b", big, &rc);
    ck_assert_int_eq(rc, -1); /* division by zero */
    ck_assert_uint_eq(flops_of("f: flops=a/2*2", big, &rc), (uint64_t)INT64_MAX / 2 + 1);
    ck_assert_int_eq(rc, 0);
}
END_TEST

START_TEST(test_set)
{
    struct tp_work_set *set = NULL;
    char why[200], shape[100];
    ck_assert_int_eq(tp_work_parse(&set,
                                   "# comment\ngemv: flops=2*rows*cols bytes=4*(rows*cols+rows)\n"
                                   "ns::conv2d: bytes=kw*oc ; relu: flops=n  # tail",
                                   why, sizeof why),
                     0);
    ck_assert_int_eq(set->n, 3);
    const struct tp_work_fn *g = tp_work_find(set, "gemv"), *c = tp_work_find(set, "ns::conv2d");
    ck_assert_ptr_nonnull(g);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_null(tp_work_find(set, "conv2d"));
    ck_assert_int_eq(g->nvars, 2);
    const int64_t v[] = {512, 256};
    tp_work_shape(g, v, shape, sizeof shape);
    ck_assert_str_eq(shape, "rows=512 cols=256");
    uint64_t f, b;
    ck_assert_int_eq(tp_work_eval(c, v, &f, &b), 0);
    ck_assert_uint_eq(f, 0); /* no flops formula */
    ck_assert_uint_eq(b, 512 * 256);
    /* a later entry replaces the earlier; a bad text leaves the set as it was */
    ck_assert_int_eq(tp_work_parse(&set, "relu: flops=3*n", why, sizeof why), 0);
    ck_assert_int_eq(set->n, 3);
    ck_assert_int_eq(tp_work_parse(&set, "x: flops=1; y: flops=(", why, sizeof why), -1);
    ck_assert_int_eq(set->n, 3);
    ck_assert_ptr_null(tp_work_find(set, "x"));
    free(set);
}
END_TEST

START_TEST(test_errors)
{
    static const char *const bad[][2] = {
        {"gemv flops=2", "expected ':' after the function name"},
        {": flops=2", "expected a function name"},
        {"gemv:", "expected flops= or bytes="},
        {"gemv: flop=2", "expected flops= or bytes="},
        {"gemv: flops=2*", "formula ends too early"},
        {"gemv: flops=(a", "expected ')'"},
        {"gemv: flops=a) bytes=2", "unexpected character in formula"},
        {"gemv: flops=a flops=b", "flops given twice"},
        {"gemv: flops=min(a)", "expected ',' in min or max"},
        {"gemv: flops=99999999999999999999", "number too large"},
        {"gemv: flops=2x", "bad number"},
        {"gemv: flops=a+b+c+d+e+f+g+h+i", "more than 8 parameters"},
        {"gemv: flops=a $ b", "expected flops= or bytes="},
        {"gemv: flops=a$b", "unexpected character in formula"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct tp_work_set *set = NULL;
        char why[200];
        ck_assert_int_eq(tp_work_parse(&set, bad[i][0], why, sizeof why), -1);
        ck_assert_msg(!strncmp(why, bad[i][1], strlen(bad[i][1])), "%s: %s", bad[i][0], why);
        ck_assert_ptr_null(set);
    }
}
END_TEST

/* Prototypes: each parameter's register or stack slot under the x86-64 System V ABI. */
START_TEST(test_abi)
{
    struct tp_work_set *set = NULL;
    char why[200];
    ck_assert_int_eq(
        tp_work_parse(&set,
                      "f(float a, const float *p, unsigned char c, double d, size_t n, short s, "
                      "int i, long l, int k, float b): flops=k+l+n+s+c+i+nz(a)+nz(b)",
                      why, sizeof why),
        0);
    const struct tp_work_fn *f = &set->fn[0];
    ck_assert_int_eq(f->nparams, 10);
    struct tp_work_place pl[TP_WORK_MAX_VARS];
    ck_assert_int_eq(
        tp_work_place(f->params, f->nparams, (char(*)[32])f->vars, f->nvars, pl, why, sizeof why),
        0);
    /* vars in order: k l n s c i a b; integers p c n s i l in rdi..r9, then k on the stack; floats
     * a d b in xmm0..2 */
    static const struct {
        int where, idx, size, is_signed, is_float;
    } want[] = {{TP_WORK_STACK, 0, 4, 1, 0}, {TP_WORK_INT, 5, 8, 1, 0}, {TP_WORK_INT, 2, 8, 0, 0},
                {TP_WORK_INT, 3, 2, 1, 0},   {TP_WORK_INT, 1, 1, 0, 0}, {TP_WORK_INT, 4, 4, 1, 0},
                {TP_WORK_SSE, 0, 4, 1, 1},   {TP_WORK_SSE, 2, 4, 1, 1}};
    for (int v = 0; v < 8; v++) {
        ck_assert_msg(pl[v].where == want[v].where && pl[v].idx == want[v].idx &&
                          pl[v].size == want[v].size && pl[v].is_float == want[v].is_float,
                      "%s: where %d idx %d size %d", f->vars[v], pl[v].where, pl[v].idx,
                      pl[v].size);
        if (!want[v].is_float)
            ck_assert_int_eq(pl[v].is_signed, want[v].is_signed);
    }
    /* values: an int's low 32 bits sign-extended; a float rounded away from zero */
    ck_assert_int_eq(tp_work_value(0xffffffffull, &pl[0]), -1);
    ck_assert_int_eq(tp_work_value(0x1ff, &pl[4]), 255);
    float half = 0.5f, mhalf = -2.25f;
    uint32_t hb, mb;
    memcpy(&hb, &half, 4);
    memcpy(&mb, &mhalf, 4);
    ck_assert_int_eq(tp_work_value(hb, &pl[6]), 1);
    ck_assert_int_eq(tp_work_value(mb, &pl[6]), -3);
    ck_assert_int_eq(tp_work_value(0, &pl[6]), 0);
    free(set);
    set = NULL;
    /* a struct by value stops the placement; a name the prototype lacks is said */
    ck_assert_int_eq(
        tp_work_parse(&set, "g(struct s v, int n): flops=n; h(int n): flops=m", why, sizeof why),
        0);
    f = &set->fn[0];
    ck_assert_int_eq(
        tp_work_place(f->params, f->nparams, (char(*)[32])f->vars, f->nvars, pl, why, sizeof why),
        -1);
    ck_assert_str_eq(why, "parameter 'n': it comes after one passed in a way tprof does not read");
    f = &set->fn[1];
    ck_assert_int_eq(
        tp_work_place(f->params, f->nparams, (char(*)[32])f->vars, f->nvars, pl, why, sizeof why),
        -1);
    ck_assert_str_eq(why, "parameter 'm': no parameter has that name");
    ck_assert_int_eq(tp_work_parse(&set, "x(int): flops=1", why, sizeof why), -1);
    free(set);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("workspec");
    TCase *tc = tcase_create("workspec");
    tcase_add_test(tc, test_arithmetic);
    tcase_add_test(tc, test_unknown);
    tcase_add_test(tc, test_set);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_abi);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
