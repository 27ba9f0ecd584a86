/* Computed parameter values at the enter hook (track/work/argexpr.h), on hand-written DWARF
 * expressions as GCC emits them at -O3: register arithmetic, a stack slot read at its size and
 * sign-extended, shifts as DWARF means them; and what is refused, with its reason: a division, a
 * load from a computed address, a register the hook does not save, an entry value, an
 * unbalanced stack, a location that is an address. A caller's call-site value reads the caller's
 * registers where the function's call frame information put them. */
#include <check.h>
#include <dwarf.h>
#include <stdint.h>
#include <string.h>

#include "track/work/argexpr.h"

#define OP(a, n)       ((Dwarf_Op){.atom = (a), .number = (Dwarf_Word)(n)})
#define RUN(e, c, why) tp_argexpr_compile((e), sizeof(e) / sizeof((e)[0]), (c), (why))

static const struct tp_xctx cfa_ctx = {
    .fb_ok = 1, .fb_reg = 255, .cfa_ok = 1, .cfa_reg = 7, .cfa_off = 48};

START_TEST(test_values)
{
    uint64_t regs[17] = {0};
    const char *why = NULL;
    regs[13] = 7; /* r13 */
    /* matmul's k: r13 * 5 */
    const Dwarf_Op k[] = {OP(DW_OP_breg13, 0), OP(DW_OP_lit5, 0), OP(DW_OP_mul, 0),
                          OP(DW_OP_stack_value, 0)};
    int x = RUN(k, &cfa_ctx, &why);
    ck_assert_msg(x >= 0, "%s", why);
    ck_assert_uint_eq(tp_argexpr_run(x, regs), 35);
    /* axpy's n: the int at frame base - 76, sign-extended (<< 32, >>a 32), times 6 */
    unsigned char frame[128];
    int32_t m = -4;
    memset(frame, 0xff, sizeof frame);
    regs[7] = (uint64_t)(uintptr_t)frame; /* rsp; the CFA is rsp + 48 */
    memcpy(frame + 48 - 76 + 64, &m, 4);
    regs[7] += 64;
    const Dwarf_Op n[] = {OP(DW_OP_fbreg, -76), OP(DW_OP_deref_size, 4), OP(DW_OP_const1u, 32),
                          OP(DW_OP_shl, 0),     OP(DW_OP_const1u, 32),   OP(DW_OP_shra, 0),
                          OP(DW_OP_lit6, 0),    OP(DW_OP_mul, 0),        OP(DW_OP_stack_value, 0)};
    x = RUN(n, &cfa_ctx, &why);
    ck_assert_msg(x >= 0, "%s", why);
    ck_assert_int_eq((int64_t)tp_argexpr_run(x, regs), -24);
    /* (rsi - r15) >> 2, + 1; a shift by 64 or more shifts every bit out */
    regs[4] = 100, regs[15] = 20;
    const Dwarf_Op i[] = {OP(DW_OP_breg4, 0),      OP(DW_OP_breg15, 0), OP(DW_OP_minus, 0),
                          OP(DW_OP_lit2, 0),       OP(DW_OP_shr, 0),    OP(DW_OP_plus_uconst, 1),
                          OP(DW_OP_stack_value, 0)};
    x = RUN(i, &cfa_ctx, &why);
    ck_assert_msg(x >= 0, "%s", why);
    ck_assert_uint_eq(tp_argexpr_run(x, regs), 21);
    const Dwarf_Op big[] = {OP(DW_OP_breg4, 0), OP(DW_OP_const1u, 64), OP(DW_OP_shl, 0),
                            OP(DW_OP_stack_value, 0)};
    x = RUN(big, &cfa_ctx, &why);
    ck_assert_uint_eq(tp_argexpr_run(x, regs), 0);
}
END_TEST

START_TEST(test_refused)
{
    const char *why = NULL;
    const Dwarf_Op div[] = {OP(DW_OP_breg3, 0), OP(DW_OP_lit2, 0), OP(DW_OP_div, 0),
                            OP(DW_OP_stack_value, 0)};
    ck_assert_int_eq(RUN(div, &cfa_ctx, &why), -1);
    ck_assert_str_eq(why, "its location is computed with an operation tprof does not run");
    const Dwarf_Op at[] = {OP(DW_OP_breg3, 0), OP(DW_OP_lit8, 0), OP(DW_OP_plus, 0),
                           OP(DW_OP_deref, 0), OP(DW_OP_stack_value, 0)};
    ck_assert_int_eq(RUN(at, &cfa_ctx, &why), -1);
    ck_assert_str_eq(why, "it is read from a computed address (not supported)");
    const Dwarf_Op rax[] = {OP(DW_OP_breg0, 0), OP(DW_OP_stack_value, 0)};
    ck_assert_int_eq(RUN(rax, &cfa_ctx, &why), -1);
    ck_assert_str_eq(why, "it is computed from a register the hook does not save");
    const Dwarf_Op ev[] = {OP(DW_OP_entry_value, 1), OP(DW_OP_lit3, 0), OP(DW_OP_mul, 0),
                           OP(DW_OP_stack_value, 0)};
    ck_assert_int_eq(RUN(ev, &cfa_ctx, &why), -1);
    ck_assert_str_eq(why, "it is computed from a register's value at entry (DW_OP_entry_value), "
                          "which the prologue changed before the hook");
    const Dwarf_Op two[] = {OP(DW_OP_lit1, 0), OP(DW_OP_lit2, 0), OP(DW_OP_stack_value, 0)};
    ck_assert_int_eq(RUN(two, &cfa_ctx, &why), -1);
    ck_assert_str_eq(why, "its location is a malformed computation");
    const Dwarf_Op under[] = {OP(DW_OP_lit1, 0), OP(DW_OP_plus, 0), OP(DW_OP_stack_value, 0)};
    ck_assert_int_eq(RUN(under, &cfa_ctx, &why), -1);
    const Dwarf_Op addr[] = {OP(DW_OP_breg3, 0), OP(DW_OP_lit8, 0), OP(DW_OP_plus, 0)};
    ck_assert_int_eq(RUN(addr, &cfa_ctx, &why), -1);
    ck_assert_str_eq(why, "its location is a computed address (not supported)");
    struct tp_xctx nofb = cfa_ctx;
    nofb.fb_ok = 0;
    const Dwarf_Op fb[] = {OP(DW_OP_fbreg, -8), OP(DW_OP_deref_size, 4), OP(DW_OP_stack_value, 0)};
    ck_assert_int_eq(RUN(fb, &nofb, &why), -1);
    ck_assert_str_eq(why, "its function's frame base is not understood");
}
END_TEST

/* A caller's value: rbx << 4 with rbx still in place, r12 + 1 with r12 saved at CFA - 24, a
 * slot off the caller's rsp (the CFA); a caller-saved register is refused. */
START_TEST(test_caller)
{
    uint64_t regs[17] = {0}, stack[16] = {0};
    const char *why = NULL;
    struct tp_xctx c = cfa_ctx;
    c.caller = 1;
    c.caller_how[3] = 1;
    c.caller_how[12] = 2;
    c.caller_at[12] = -24;
    regs[3] = 3;
    regs[7] = (uint64_t)(uintptr_t)&stack[0]; /* CFA = &stack[6] */
    stack[6 - 3] = 41;                        /* caller's r12 */
    stack[6 + 1] = 9;                         /* caller's rsp + 8 */
    const Dwarf_Op a[] = {OP(DW_OP_breg3, 0), OP(DW_OP_lit4, 0), OP(DW_OP_shl, 0)};
    int x = RUN(a, &c, &why);
    ck_assert_msg(x >= 0, "%s", why);
    ck_assert_uint_eq(tp_argexpr_run(x, regs), 48);
    const Dwarf_Op b[] = {OP(DW_OP_breg12, 1)};
    x = RUN(b, &c, &why);
    ck_assert_msg(x >= 0, "%s", why);
    ck_assert_uint_eq(tp_argexpr_run(x, regs), 42);
    const Dwarf_Op s[] = {OP(DW_OP_breg7, 8), OP(DW_OP_deref_size, 4)};
    x = RUN(s, &c, &why);
    ck_assert_msg(x >= 0, "%s", why);
    ck_assert_uint_eq(tp_argexpr_run(x, regs), 9);
    const Dwarf_Op r[] = {OP(DW_OP_breg1, 0)};
    ck_assert_int_eq(RUN(r, &c, &why), -1);
    ck_assert_str_eq(why, "its caller passes it from a register the call does not preserve");
    const Dwarf_Op fb[] = {OP(DW_OP_fbreg, -20), OP(DW_OP_deref_size, 4)};
    ck_assert_int_eq(RUN(fb, &c, &why), -1);
    ck_assert_str_eq(why, "its caller passes it from the caller's frame base (not supported)");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("argexpr");
    TCase *tc = tcase_create("argexpr");
    tcase_add_test(tc, test_values);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_caller);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
