/* The advice table on the time outside every op (report/analyze/advice.c): each row's sentence, exactly,
 * from a report without ops whose samples landed in functions of each kind. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze/analyze.h"
#include "report/render/render.h"
#include "report/report.h"

/* A report of 200 CPU samples, 100 of them outside every op, with the functions given. */
static void report_of(struct tp_report *r, size_t n)
{
    tp_report_init(r);
    r->program.wall_ns = 1000000000;
    r->samples.hz = 100;
    r->samples.total = 200;
    r->samples.outside_ops = 100;
    r->noutside_ops = n;
    r->outside_ops = calloc(n, sizeof *r->outside_ops);
}

static void fn(struct tp_report *r, size_t i, const char *name, const char *module,
               const char *kind, uint64_t samples)
{
    struct tp_outside_fn *f = &r->outside_ops[i];
    f->name = name ? strdup(name) : NULL;
    f->module = module ? strdup(module) : NULL;
    f->kind = strdup(kind);
    f->samples = samples;
    f->share = (double)samples / 100;
}

static const char *said(struct tp_report *r)
{
    tp_analyze(r);
    return r->verdict.text;
}

#define HEAD                                                                                       \
    "No op was seen (no BLAS call, nothing matching TPROF_OPS, no annotated region): this report " \
    "covers the heap only. "

START_TEST(test_export)
{
    struct tp_report r;
    report_of(&r, 2);
    fn(&r, 0, "gemm_tile", "libmodel.so", "export", 60);
    fn(&r, 1, "softmax_row", "libmodel.so", "export", 30);
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to gemm_tile (~30% of the run's 200 CPU "
                          "samples), softmax_row (~15%). To time gemm_tile and softmax_row "
                          "as ops: TPROF_OPS=gemm_tile,softmax_row (or tprof run --ops "
                          "gemm_tile,softmax_row). No heap allocation was seen.");
    tp_report_free(&r);
}
END_TEST

/* A C++ name: a glob of its name without its parameters, quoted for the shell. */
START_TEST(test_export_cxx)
{
    struct tp_report r;
    report_of(&r, 1);
    fn(&r, 0, "net::conv_layer(float*, int)", "libnet.so", "export", 60);
    ck_assert_str_eq(said(&r), HEAD "The time goes mostly to net::conv_layer(float*, int) (~30% of "
                                    "the run's 200 CPU samples). To time it as an op: "
                                    "TPROF_OPS='net::conv_layer(*' (or tprof run --ops "
                                    "'net::conv_layer(*'). No heap allocation was seen.");
    tp_report_free(&r);
}
END_TEST

START_TEST(test_instrumented)
{
    struct tp_report r;
    report_of(&r, 1);
    fn(&r, 0, "crunch", "v_hot", "instrumented", 100);
    ck_assert_str_eq(said(&r), HEAD "The time goes mostly to crunch (~50% of the run's 200 CPU "
                                    "samples). To time it as an op: TPROF_OPS=crunch (or tprof run "
                                    "--ops crunch). No heap allocation was seen.");
    tp_report_free(&r);
}
END_TEST

START_TEST(test_local)
{
    struct tp_report r;
    report_of(&r, 1);
    fn(&r, 0, "sample_topp", "run", "local", 11);
    r.samples.total = 1800;
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to sample_topp (~0.6% of the run's 1800 CPU "
                          "samples). sample_topp is run's own, and run was not built with "
                          "-finstrument-functions, so no hook reaches it: rebuild it with "
                          "-finstrument-functions and TPROF_OPS=sample_topp (or tprof run --ops "
                          "sample_topp), or mark it with tprof.h regions. No heap allocation was "
                          "seen.");
    tp_report_free(&r);
}
END_TEST

/* The module's hot tiny functions among the samples (st_size at most 64 bytes), left out of the
 * rebuild: a C++ one as GCC matches it (without its template arguments); never one of
 * another module, one to be timed as an op, nor one whose entry would also leave that op out
 * (sample, a substring of sample_topp); a function of unknown size is never taken as tiny, nor
 * one of a single sample. */
START_TEST(test_local_tiny)
{
    struct tp_report r;
    report_of(&r, 7);
    fn(&r, 0, "sample_topp", "run", "local", 40);
    fn(&r, 1, "clampf", "run", "local", 4);
    fn(&r, 2, "float vec::dot<float, 4>(float const*, float const*)", "run", "local", 3);
    fn(&r, 3, "rng_next", "libother.so", "local", 2);
    fn(&r, 4, "sample", "run", "local", 2);
    fn(&r, 5, "unknown_size", "run", "local", 2);
    fn(&r, 6, "stray", "run", "local", 1);
    r.outside_ops[0].size = 900;
    r.outside_ops[1].size = 24;
    r.outside_ops[2].size = 64;
    r.outside_ops[3].size = 16;
    r.outside_ops[4].size = 20;
    r.outside_ops[6].size = 8;
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to sample_topp (~20% of the run's 200 CPU "
                          "samples). sample_topp is run's own, and run was not built with "
                          "-finstrument-functions, so no hook reaches it: rebuild it with "
                          "-finstrument-functions -finstrument-functions-exclude-function-list="
                          "clampf,vec::dot (clampf and float vec::dot<float, 4>(float const*, "
                          "float const*), hot and of at most 64 bytes: their hooks may cost "
                          "more than their work) and TPROF_OPS=sample_topp (or tprof run --ops "
                          "sample_topp), or mark it with tprof.h regions. No heap allocation was "
                          "seen.");
    r.outside_ops[2].size = 65; /* one tiny function */
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to sample_topp (~20% of the run's 200 CPU "
                          "samples). sample_topp is run's own, and run was not built with "
                          "-finstrument-functions, so no hook reaches it: rebuild it with "
                          "-finstrument-functions -finstrument-functions-exclude-function-list="
                          "clampf (clampf, hot and of at most 64 bytes: its hooks may cost "
                          "more than its work) and TPROF_OPS=sample_topp (or tprof run --ops "
                          "sample_topp), or mark it with tprof.h regions. No heap allocation was "
                          "seen.");
    tp_report_free(&r);
}
END_TEST

START_TEST(test_inlined)
{
    struct tp_report r;
    report_of(&r, 1);
    fn(&r, 0, "main", "v_adv_o2", "local", 100);
    r.outside_ops[0].inlined = strdup("matmul");
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to main (~50% of the run's 200 CPU "
                          "samples). matmul is inlined into main, so no call of it exists to "
                          "hook: mark it with a tprof.h region, or keep it a call of its own "
                          "with __attribute__((noinline)) and build v_adv_o2 with "
                          "-finstrument-functions. No heap allocation was seen.");
    free(r.outside_ops[0].kind); /* a caller TPROF_OPS can hook: name it */
    r.outside_ops[0].kind = strdup("export");
    free(r.outside_ops[0].name);
    r.outside_ops[0].name = strdup("forward");
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to forward (~50% of the run's 200 CPU "
                          "samples). matmul is inlined into forward: time forward as an op "
                          "with TPROF_OPS=forward (or tprof run --ops forward), or keep "
                          "matmul a call of its own with __attribute__((noinline)) or "
                          "-fno-inline. No heap allocation was seen.");
    tp_report_free(&r);
}
END_TEST

START_TEST(test_no_symbol)
{
    struct tp_report r;
    report_of(&r, 1);
    fn(&r, 0, NULL, "darknet", "no_symbol", 90);
    r.outside_ops[0].stripped = 1;
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to code without a symbol in darknet "
                          "(~45% of the run's 200 CPU samples). darknet is stripped, so its "
                          "code has no names: an unstripped build of it, or its debug "
                          "symbols package, would name the functions. No heap allocation "
                          "was seen.");
    r.outside_ops[0].stripped = 0; /* not stripped: never said so */
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to code without a symbol in darknet "
                          "(~45% of the run's 200 CPU samples). The code without a symbol "
                          "in darknet has none in its symbol table either (generated or "
                          "hand-written code): there is no name to give TPROF_OPS. No heap "
                          "allocation was seen.");
    free(r.outside_ops[0].module); /* in no file */
    r.outside_ops[0].module = NULL;
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to code without a symbol in ? (~45% of "
                          "the run's 200 CPU samples). The code without a symbol is in no "
                          "loaded file (JIT-generated code): there is no name to give "
                          "TPROF_OPS. No heap allocation was seen.");
    tp_report_free(&r);
}
END_TEST

START_TEST(test_wait)
{
    struct tp_report r;
    report_of(&r, 2);
    fn(&r, 0, "__sched_yield", "libc.so.6", "wait", 80);
    fn(&r, 1, "crunch_local", "prog", "local", 20);
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to crunch_local (~10% of the run's 200 CPU "
                          "samples). crunch_local is prog's own, and prog was not built with "
                          "-finstrument-functions, so no hook reaches it: rebuild it with "
                          "-finstrument-functions and TPROF_OPS=crunch_local (or tprof run --ops "
                          "crunch_local), or mark it with tprof.h regions. __sched_yield (~40% of "
                          "the run's CPU samples) is threads waiting for work in a runtime's "
                          "yield loop, not work: no op to name there. No heap allocation was "
                          "seen.");
    r.noutside_ops = 1; /* only the waiting */
    ck_assert_str_eq(said(&r),
                     HEAD "__sched_yield (~40% of the run's CPU samples) is threads "
                          "waiting for work in a runtime's yield loop, not work: no op to "
                          "name there. No heap allocation was seen.");
    r.noutside_ops = 2;
    tp_report_free(&r);
}
END_TEST

START_TEST(test_system)
{
    struct tp_report r;
    report_of(&r, 1);
    fn(&r, 0, "__cos_fma", "libm.so.6", "system", 40);
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to __cos_fma (~20% of the run's 200 CPU "
                          "samples). __cos_fma is in libm.so.6, a system library whose "
                          "functions are never ops: the time is its callers', which "
                          "TPROF_OPS or a tprof.h region can name. No heap allocation was "
                          "seen.");
    tp_report_free(&r);
}
END_TEST

START_TEST(test_interpreter)
{
    struct tp_report r;
    report_of(&r, 2);
    fn(&r, 0, NULL, "python3.11", "interpreter", 40);
    fn(&r, 1, "_PyEval_EvalFrameDefault", "python3.11", "interpreter", 30);
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to code without a symbol in python3.11 "
                          "(~20% of the run's 200 CPU samples), _PyEval_EvalFrameDefault "
                          "(~15%). Code without a symbol and _PyEval_EvalFrameDefault are in "
                          "python3.11, the interpreter running the program's own code: that "
                          "time is the script's, outside every native op, and a profiler of "
                          "that language (Python's cProfile) breaks it down. No heap "
                          "allocation was seen.");
    tp_report_free(&r);
}
END_TEST

/* Rows side by side, with ops: most of the time outside them; one hookable function among
 * others is named; two yield loops. */
START_TEST(test_mixed_with_ops)
{
    struct tp_report r;
    report_of(&r, 4);
    fn(&r, 0, "gemm_tile", "libmodel.so", "export", 40);
    fn(&r, 1, "crunch_local", "prog", "local", 30);
    fn(&r, 2, "__sched_yield", "libc.so.6", "wait", 10);
    fn(&r, 3, "blas_thread_server", "libopenblas.so.0", "wait", 10);
    r.ops = calloc(1, sizeof *r.ops);
    r.nops = 1;
    r.ops[0].name = strdup("cblas_sgemm");
    r.ops[0].calls = 1;
    r.ops[0].total_ns = r.ops[0].self_ns = 200000000;
    ck_assert_str_eq(
        said(&r),
        "cblas_sgemm takes 20% of the time (its FLOPs or bytes are unknown, so its bound is too); "
        "a 2x faster cblas_sgemm makes the program 1.11x faster, an infinitely fast one 1.25x. "
        "Most of the time (80%) is spent outside every op, mostly in gemm_tile (~20% of the run's "
        "200 CPU samples), crunch_local (~15%). To time gemm_tile as an op: TPROF_OPS=gemm_tile "
        "(or tprof run --ops gemm_tile). crunch_local is prog's own, and prog was not built with "
        "-finstrument-functions, so no hook reaches it: rebuild it with -finstrument-functions "
        "and TPROF_OPS=crunch_local (or tprof run --ops crunch_local), or mark it with tprof.h "
        "regions. __sched_yield and blas_thread_server (~10% of the run's CPU samples) are "
        "threads waiting for work in a runtime's yield loop, not work: no op to name there. No "
        "heap allocation was seen.");
    tp_report_free(&r);
    report_of(&r, 1); /* one interpreter function */
    fn(&r, 0, "_PyEval_EvalFrameDefault", "python3.11", "interpreter", 30);
    ck_assert_str_eq(said(&r),
                     HEAD "The time goes mostly to _PyEval_EvalFrameDefault (~15% of the "
                          "run's 200 CPU samples). _PyEval_EvalFrameDefault is in python3.11, "
                          "the interpreter running the program's own code: that time is the "
                          "script's, outside every native op, and a profiler of that language "
                          "(Python's cProfile) breaks it down. No heap allocation was seen.");
    tp_report_free(&r);
}
END_TEST

/* Most of the time outside ops, and nothing that works among the samples: only waiting; no
 * sample outside ops; sampling off. */
START_TEST(test_outside_unnamed)
{
    struct tp_report r;
    report_of(&r, 1);
    fn(&r, 0, "__sched_yield", "libc.so.6", "wait", 100);
    r.ops = calloc(1, sizeof *r.ops);
    r.nops = 1;
    r.ops[0].name = strdup("cblas_sgemm");
    r.ops[0].calls = 1;
    r.ops[0].total_ns = r.ops[0].self_ns = 200000000;
    const char *head = "cblas_sgemm takes 20% of the time (its FLOPs or bytes are unknown, so its "
                       "bound is too); a 2x faster cblas_sgemm makes the program 1.11x faster, "
                       "an infinitely fast one 1.25x. Most of the time (80%) is spent outside "
                       "every op";
    char want[1024];
    snprintf(want, sizeof want,
             "%s. __sched_yield (~50%% of the run's CPU samples) is threads waiting for work in "
             "a runtime's yield loop, not work: no op to name there. No heap allocation was "
             "seen.",
             head);
    ck_assert_str_eq(said(&r), want);
    r.noutside_ops = 0;
    snprintf(want, sizeof want,
             "%s, where no CPU sample landed (a run too short, or time spent blocked). No heap "
             "allocation was seen.",
             head);
    ck_assert_str_eq(said(&r), want);
    r.samples.hz = 0;
    snprintf(want, sizeof want,
             "%s; CPU samples (TPROF_SAMPLE_HZ, off in this run) would say where it goes and "
             "what to do about it. No heap allocation was seen.",
             head);
    ck_assert_str_eq(said(&r), want);
    r.noutside_ops = 1;
    tp_report_free(&r);
}
END_TEST

START_TEST(test_shares_of_run)
{
    struct tp_report r;
    report_of(&r, 1);
    fn(&r, 0, "sample_topp", "run", "local", 11);
    r.samples.total = 1800;
    ck_assert(tp_advice_run_share(&r, &r.outside_ops[0]) == 11.0 / 1800);
    ck_assert(tp_advice_works(&r.outside_ops[0]));
    free(r.outside_ops[0].module);
    r.outside_ops[0].module = strdup("libgomp.so.1");
    ck_assert(!tp_advice_works(&r.outside_ops[0]));
    tp_report_free(&r);
}
END_TEST

/* A demoted op of the report (too short to time), seen by the hooks of source. */
static void demoted(struct tp_report *r, size_t i, const char *name, const char *source,
                    uint64_t calls, int demoted)
{
    struct tp_op *o = &r->ops[i];
    o->name = strdup(name);
    o->kind = strdup("op");
    o->source = strdup(source);
    o->calls = calls;
    o->demoted = demoted;
    o->counted_calls = demoted ? calls - 65 : 0;
}

static const char *excl(const struct tp_report *r, struct tp_buf *t)
{
    tp_buf_free(t);
    tp_buf_init(t);
    tp_advice_exclude(r, r->program.wall_ns, t);
    return tp_buf_str(t);
}

/* The demoted functions, most calls first, five named; in the flag every one GCC can be given
 * alone: a C++ name as a part of GCC's printable name (no return type, parameters nor template
 * arguments: the longer side of them; the flag quoted for the shell for the "~"), a clone
 * without its suffix nor its return type (which has template arguments of its own); not gemm, a substring of the op gemm_nn that
 * stays, nor a function seen through the PLT, which no rebuild of this module unhooks. */
START_TEST(test_exclude)
{
    struct tp_report r;
    report_of(&r, 0);
    r.program.wall_ns = 5000000000;
    r.program.hook_ns = 2;
    r.nops = 9;
    r.ops = calloc(r.nops, sizeof *r.ops);
    demoted(&r, 0, "gemm_nn", "instrumented", 10, 0);
    demoted(&r, 1, "Box<float, int>::~Box()", "instrumented", 1000000, 1);
    demoted(&r, 2, "im2col_get_pixel", "instrumented", 40000000, 1);
    demoted(&r, 3, "lp_tiny", "plt", 90000000, 1);
    demoted(&r, 4, "void net::axpy<float, 2>(float*, int)", "instrumented", 4000000, 1);
    demoted(&r, 5, "activate", "instrumented", 60000000, 1);
    demoted(&r, 6, "gemm", "instrumented", 500000, 1);
    demoted(&r, 7, "std::vector<int> mag_array<int>(int) [clone .constprop.0]", "instrumented",
            2000000, 1);
    demoted(&r, 8, "axpy_cpu", "instrumented", 8000000, 1);
    struct tp_buf t;
    tp_buf_init(&t);
    ck_assert_str_eq(excl(&r, &t),
                     " activate, im2col_get_pixel, axpy_cpu, void net::axpy<float, 2>(float*, "
                     "int), std::vector<int> mag_array<int>(int) [clone .constprop.0] and 1 more "
                     "were called 115M times, each call "
                     "too short to time; their hooks cost ~460 ms (9.2% of the run): rebuild "
                     "with '-finstrument-functions-exclude-function-list=activate,"
                     "im2col_get_pixel,axpy_cpu,net::axpy,mag_array,::~Box' to leave them out.");
    ck_assert_ptr_nonnull(strstr(said(&r), tp_buf_str(&t)));
    r.program.hook_ns = 0.2; /* 46 ms: under 1% of the run, not worth a rebuild */
    ck_assert_str_eq(excl(&r, &t), "");
    r.program.hook_ns = 0; /* a report from before program.hook_ns */
    ck_assert_str_eq(excl(&r, &t), "");
    tp_buf_free(&t);
    tp_report_free(&r);
}
END_TEST

/* One function: its calls exactly. lp_tiny_norm, seen through the PLT, holds its name and keeps
 * it listed: the rebuild gives it no hooks to lose. None but through the PLT: nothing to rebuild. */
START_TEST(test_exclude_one)
{
    struct tp_report r;
    report_of(&r, 0);
    r.program.hook_ns = 10000;
    r.nops = 2;
    r.ops = calloc(r.nops, sizeof *r.ops);
    demoted(&r, 0, "tiny_norm", "instrumented", 1000, 1);
    demoted(&r, 1, "lp_tiny_norm", "plt", 1000, 1);
    struct tp_buf t;
    tp_buf_init(&t);
    ck_assert_str_eq(excl(&r, &t),
                     " tiny_norm was called 1000 times, each call too short to time; its hooks "
                     "cost ~20.0 ms (2.0% of the run): rebuild with "
                     "-finstrument-functions-exclude-function-list=tiny_norm to leave it out.");
    r.ops[0].demoted = 0;
    ck_assert_str_eq(excl(&r, &t), "");
    tp_buf_free(&t);
    tp_report_free(&r);
}
END_TEST

/* A demoted op among the samples outside every op (its counted calls open no op): no TPROF_OPS
 * line for it, it is an op already; the rebuild flag instead. */
START_TEST(test_exclude_sampled)
{
    struct tp_report r;
    report_of(&r, 1);
    fn(&r, 0, "tiny_gemm", "cyg_storm", "instrumented", 60);
    r.program.hook_ns = 2;
    r.nops = 1;
    r.ops = calloc(r.nops, sizeof *r.ops);
    demoted(&r, 0, "tiny_gemm", "instrumented", 20001000, 1);
    r.ops[0].total_ns = r.ops[0].self_ns = 1000;
    const char *v = said(&r);
    ck_assert_ptr_null(strstr(v, "TPROF_OPS"));
    ck_assert_ptr_nonnull(strstr(v, " tiny_gemm was called 20.0M times, each call too short to "
                                    "time; its hooks cost ~80.0 ms (8.0% of the run): rebuild "
                                    "with -finstrument-functions-exclude-function-list=tiny_gemm "
                                    "to leave it out."));
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("advice");
    TCase *tc = tcase_create("rows");
    tcase_add_test(tc, test_export);
    tcase_add_test(tc, test_export_cxx);
    tcase_add_test(tc, test_instrumented);
    tcase_add_test(tc, test_local);
    tcase_add_test(tc, test_local_tiny);
    tcase_add_test(tc, test_inlined);
    tcase_add_test(tc, test_no_symbol);
    tcase_add_test(tc, test_wait);
    tcase_add_test(tc, test_system);
    tcase_add_test(tc, test_interpreter);
    tcase_add_test(tc, test_mixed_with_ops);
    tcase_add_test(tc, test_outside_unnamed);
    tcase_add_test(tc, test_shares_of_run);
    tcase_add_test(tc, test_exclude);
    tcase_add_test(tc, test_exclude_one);
    tcase_add_test(tc, test_exclude_sampled);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
