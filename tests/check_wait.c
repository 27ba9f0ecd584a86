/* Work or wait: which modules' text is spin waiting and how a sample is classed (track/ops/wait.c),
 * the share of an op's time that was waiting, its rule and the verdict's sentence on fixed figures
 * (report/analyze/opwait.c). */
#include <check.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/analyze/analyze.h"
#include "report/render/render.h"
#include "report/report.h"
#include "track/ops/ops.h"

START_TEST(test_spin_modules)
{
    ck_assert_int_eq(tp_spin_module("/usr/lib/x86_64-linux-gnu/libgomp.so.1"), 1);
    ck_assert_int_eq(tp_spin_module("/site-packages/torch.libs/libgomp-a34b3233.so.1"), 1);
    ck_assert_int_eq(tp_spin_module("libomp.so.5"), 1);
    ck_assert_int_eq(tp_spin_module("/opt/intel/lib/libiomp5.so"), 1);
    ck_assert_int_eq(tp_spin_module("/usr/lib/libgompish.so"), 0);
    ck_assert_int_eq(tp_spin_module("/usr/lib/x86_64-linux-gnu/libc.so.6"), 0);
    ck_assert_int_eq(tp_spin_module("/home/u/libgomp.so.1/libfoo.so"), 0);
    ck_assert_int_eq(tp_spin_module(""), 0);
}
END_TEST

static int own_code(int x)
{
    return x + 1;
}

/* A sample's class: in libgomp's text a spin, in the program's own code work, inside a hooked
 * waiting call (whatever the address) a wait. */
START_TEST(test_classify)
{
    ck_assert_int_ge(omp_get_max_threads(), 1); /* libgomp is loaded */
    tp_wait_map_modules();
    uintptr_t gomp = (uintptr_t)&omp_get_max_threads, own = (uintptr_t)&own_code;
    ck_assert_int_eq(tp_wait_classify(gomp), TP_SAMPLE_SPIN);
    ck_assert_int_eq(tp_wait_classify(own), TP_SAMPLE_WORK);
    tp_wait_map_modules(); /* again, as after a dlopen: nothing changes */
    ck_assert_int_eq(tp_wait_classify(gomp), TP_SAMPLE_SPIN);
    tp_wait_remap_modules(); /* afresh, as after a dlclose: libgomp is still loaded */
    ck_assert_int_eq(tp_wait_classify(gomp), TP_SAMPLE_SPIN);
    ck_assert_int_eq(tp_wait_classify(own), TP_SAMPLE_WORK);
    uint64_t t0 = tp_wait_enter(); /* tprof is not running here: nothing timed, still inside */
    ck_assert_uint_eq(t0, 0);
    ck_assert_int_eq(tp_wait_classify(own), TP_SAMPLE_INWAIT);
    ck_assert_int_eq(tp_wait_classify(gomp), TP_SAMPLE_INWAIT);
    tp_wait_leave(t0, TP_WAIT_YIELD);
    ck_assert_int_eq(tp_wait_classify(own), TP_SAMPLE_WORK);
}
END_TEST

START_TEST(test_kind_names)
{
    char s[128];
    tp_wait_kind_names(0, s, sizeof s);
    ck_assert_str_eq(s, "");
    tp_wait_kind_names(TP_WAIT_BARRIER, s, sizeof s);
    ck_assert_str_eq(s, "pthread_barrier_wait");
    tp_wait_kind_names(TP_WAIT_YIELD | TP_WAIT_FUTEX | TP_WAIT_SEM, s, sizeof s);
    ck_assert_str_eq(s, "sched_yield,sem_wait,futex");
    tp_wait_kind_names(TP_WAIT_COND | TP_WAIT_JOIN, s, sizeof s);
    ck_assert_str_eq(s, "pthread_cond_wait,pthread_join");
    tp_wait_kind_names(TP_WAIT_COND | TP_WAIT_JOIN, s, 10); /* cut, still a string */
    ck_assert_uint_lt(strlen(s), 10);
}
END_TEST

static void op(struct tp_op *o, const char *name, uint64_t blocked, uint64_t spin, uint64_t work,
               const char *work_method, const char *kinds)
{
    memset(o, 0, sizeof *o);
    o->name = strdup(name);
    o->wait_blocked_ns = blocked;
    o->wait_spin_ns = spin;
    o->wait_ns = blocked + spin;
    o->work_ns = work;
    o->work_method = strdup(work_method);
    o->wait_kinds = kinds ? strdup(kinds) : NULL;
}

/* The share, its mark and the rule: half or more of the op's time, and 10 ms or more. */
START_TEST(test_share_rule)
{
    struct tp_op o;
    op(&o, "a", 30000000, 0, 10000000, "time_less_waits", "pthread_barrier_wait");
    ck_assert_double_eq_tol(tp_op_wait_share(&o), 0.75, 1e-9);
    ck_assert_int_eq(tp_op_wait_estimated(&o), 0);
    ck_assert_int_eq(tp_op_wait_rule(&o), 1);
    o.work_ns = 30000000; /* exactly half */
    ck_assert_int_eq(tp_op_wait_rule(&o), 1);
    o.work_ns = 30000001;
    ck_assert_int_eq(tp_op_wait_rule(&o), 0);
    o.work_ns = 0;
    o.wait_blocked_ns = o.wait_ns = 9999999; /* all waiting, but too short */
    ck_assert_int_eq(tp_op_wait_rule(&o), 0);
    o.wait_ns = 0;
    ck_assert_double_eq(tp_op_wait_share(&o), 0); /* nothing known */
    free(o.work_method);
    o.work_method = strdup("samples");
    ck_assert_int_eq(tp_op_wait_estimated(&o), 1);
    free(o.name);
    free(o.work_method);
    free(o.wait_kinds);
    op(&o, "b", 0, 5, 0, "time_less_waits", NULL);
    ck_assert_int_eq(tp_op_wait_estimated(&o), 1); /* a spin is always counted from samples */
    free(o.name);
    free(o.work_method);
}
END_TEST

/* The sentence, for the op with the most waiting under the rule; none when no op meets it. */
START_TEST(test_sentence)
{
    struct tp_report r;
    tp_report_init(&r);
    r.nops = 3;
    r.ops = calloc(3, sizeof *r.ops);
    op(&r.ops[0], "busy", 20000000, 0, 80000000, "samples", "futex");
    op(&r.ops[1], "ggml_barrier", 210000000, 150000000, 40000000, "samples",
       "pthread_barrier_wait");
    op(&r.ops[2], "small", 20000000, 0, 0, "time_less_waits", "sched_yield,futex");
    tp_wait_verdict(&r);
    ck_assert_str_eq(r.verdict.wait_op, "ggml_barrier");
    ck_assert_str_eq(
        r.verdict.wait_text,
        "Waiting: ggml_barrier: ~90.0% of the thread time while it ran (on its threads and on "
        "threads with no op open) was waiting for other threads, not work (in "
        "pthread_barrier_wait: 210 ms; spinning in the OpenMP runtime: ~150 ms). Fewer threads "
        "(OMP_NUM_THREADS, OPENBLAS_NUM_THREADS or the program's own thread count) may be faster.");
    ck_assert_double_eq_tol(r.ops[0].wait_share, 0.2, 1e-9);
    ck_assert_double_eq_tol(r.ops[2].wait_share, 1.0, 1e-9);
    /* exact figures only: no mark */
    r.ops[1].wait_ns = 1;
    r.ops[1].wait_spin_ns = 0;
    tp_wait_verdict(&r);
    ck_assert_str_eq(r.verdict.wait_op, "small");
    ck_assert_str_eq(r.verdict.wait_text,
                     "Waiting: small: 100.0% of the thread time while it ran (on its threads and "
                     "on threads with no op open) was waiting for other threads, not work (in "
                     "sched_yield, futex: 20.0 ms). Fewer threads (OMP_NUM_THREADS, "
                     "OPENBLAS_NUM_THREADS or the program's own thread count) may be faster.");
    r.ops[2].wait_ns = 0;
    tp_wait_verdict(&r);
    ck_assert_ptr_null(r.verdict.wait_text);
    ck_assert_ptr_null(r.verdict.wait_op);
    tp_report_free(&r);
}
END_TEST

/* The sentence's other parts: spinning only; blocked with no call named (a report whose
 * wait_kinds is null). */
START_TEST(test_sentence_parts)
{
    struct tp_report r;
    tp_report_init(&r);
    r.nops = 1;
    r.ops = calloc(1, sizeof *r.ops);
    op(&r.ops[0], "omp_region", 0, 600000000, 200000000, "samples", NULL);
    tp_wait_verdict(&r);
    ck_assert_str_eq(r.verdict.wait_text,
                     "Waiting: omp_region: ~75.0% of the thread time while it ran (on its threads "
                     "and on threads with no op open) was waiting for other threads, not work "
                     "(spinning in the OpenMP runtime: ~600 ms). Fewer threads (OMP_NUM_THREADS, "
                     "OPENBLAS_NUM_THREADS or the program's own thread count) may be faster.");
    r.ops[0].wait_blocked_ns = r.ops[0].wait_ns = 600000000;
    r.ops[0].wait_spin_ns = 0;
    free(r.ops[0].work_method);
    r.ops[0].work_method = strdup("time_less_waits");
    tp_wait_verdict(&r);
    ck_assert_str_eq(r.verdict.wait_text,
                     "Waiting: omp_region: 75.0% of the thread time while it ran (on its threads "
                     "and on threads with no op open) was waiting for other threads, not work "
                     "(in waiting calls: 600 ms). Fewer threads (OMP_NUM_THREADS, "
                     "OPENBLAS_NUM_THREADS or the program's own thread count) may be faster.");
    /* All in pthread_join: threads joined at shutdown (MPI_Finalize), no thread-count advice;
     * with another waiting call beside it, the advice is back. */
    free(r.ops[0].name);
    r.ops[0].name = strdup("MPI_Finalize");
    r.ops[0].wait_kinds = strdup("pthread_join");
    tp_wait_verdict(&r);
    ck_assert_str_eq(r.verdict.wait_text,
                     "Waiting: MPI_Finalize: 75.0% of the thread time while it ran (on its "
                     "threads and on threads with no op open) was waiting for its threads to end, "
                     "not work (in pthread_join: 600 ms).");
    free(r.ops[0].wait_kinds);
    r.ops[0].wait_kinds = strdup("pthread_join,futex");
    tp_wait_verdict(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.wait_text, "(in pthread_join, futex: 600 ms). Fewer "
                                                      "threads (OMP_NUM_THREADS, "));
    tp_report_free(&r);
}
END_TEST

/* The text report's WORK AND WAIT table: ops with 1 ms of waiting or more, most first, "~" on
 * sampled figures, "-" for none, and what did not fit the rows said. */
START_TEST(test_table)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000000;
    r.nops = 4;
    r.ops = calloc(4, sizeof *r.ops);
    op(&r.ops[0], "a_barrier", 300000000, 0, 100000000, "samples", "pthread_barrier_wait");
    op(&r.ops[1], "b_spin", 0, 50000000, 50000000, "samples", NULL);
    op(&r.ops[2], "c_join", 2000000, 0, 2000000, "time_less_waits", "pthread_join");
    op(&r.ops[3], "d_little", 999999, 0, 5000000, "time_less_waits", "futex");
    for (int i = 0; i < 4; i++)
        r.ops[i].total_ns = r.ops[i].self_ns = 400000000;
    tp_analyze(&r);
    struct tp_buf b;
    tp_buf_init(&b);
    struct tp_text_opts o = {2, 100, 1};
    tp_render_text(&r, &o, &b);
    const char *t = tp_buf_str(&b);
    ck_assert_ptr_nonnull(
        strstr(t, "WORK AND WAIT (ops whose threads waited for each other; ~ from CPU samples)"));
    ck_assert_ptr_nonnull(
        strstr(t, "\nop                         wait%   blocked      spin      work waited in\n"));
    ck_assert_ptr_nonnull(strstr(
        t,
        "\na_barrier                 ~75.0%    300 ms         -   ~100 ms pthread_barrier_wait\n"));
    ck_assert_ptr_nonnull(
        strstr(t, "\nb_spin                    ~50.0%         -  ~50.0 ms  ~50.0 ms -\n"));
    ck_assert_ptr_nonnull(strstr(t, "(1 more in the JSON report)"));
    ck_assert_ptr_null(strstr(t, "\nc_join "));     /* past the 2 rows */
    ck_assert_ptr_null(strstr(t, "\nd_little   ")); /* less than 1 ms */
    tp_buf_free(&b);
    tp_report_free(&r);
}
END_TEST

/* tprof merge: the figures add up (saturating), methods and calls are the first input's that has
 * them. */
START_TEST(test_merge_add)
{
    struct tp_op d, a, b;
    memset(&d, 0, sizeof d);
    op(&a, "x", 10, 20, 30, "samples", NULL);
    a.cpu_ns = 40;
    a.cpu_method = strdup("samples");
    op(&b, "x", UINT64_MAX, 1, 2, "time_less_waits", "sched_yield");
    b.wait_ns = UINT64_MAX;
    tp_op_wait_add(&d, &a);
    tp_op_wait_add(&d, &b);
    ck_assert_uint_eq(d.wait_blocked_ns, UINT64_MAX);
    ck_assert_uint_eq(d.wait_spin_ns, 21);
    ck_assert_uint_eq(d.wait_ns, UINT64_MAX);
    ck_assert_uint_eq(d.work_ns, 32);
    ck_assert_uint_eq(d.cpu_ns, 40);
    ck_assert_str_eq(d.work_method, "samples");
    ck_assert_str_eq(d.cpu_method, "samples");
    ck_assert_str_eq(d.wait_kinds, "sched_yield");
    ck_assert_ptr_null(d.wait_spin_method);
    struct tp_op *all[] = {&d, &a, &b};
    for (int i = 0; i < 3; i++) {
        free(all[i]->name);
        free(all[i]->cpu_method);
        free(all[i]->work_method);
        free(all[i]->wait_spin_method);
        free(all[i]->wait_kinds);
    }
}
END_TEST

/* No op: the sampled functions the verdict names are those that work; an OpenMP runtime's code is
 * said apart, as spinning. */
START_TEST(test_outside_spin)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000000;
    r.samples.hz = 100;
    r.samples.total = r.samples.outside_ops = 100;
    r.samples.outside_spin = 70;
    r.noutside_ops = 2;
    r.outside_ops = calloc(2, sizeof *r.outside_ops);
    r.outside_ops[0].module = strdup("libgomp.so.1");
    r.outside_ops[0].samples = 70;
    r.outside_ops[0].share = 0.7;
    r.outside_ops[1].name = strdup("work");
    r.outside_ops[1].module = strdup("v_ompwait");
    r.outside_ops[1].samples = 30;
    r.outside_ops[1].share = 0.3;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text,
                                 " The time goes mostly to work (~30% of the run's 100 CPU "
                                 "samples). TPROF_OPS can name functions as ops. 70% of the "
                                 "run's 100 CPU samples were spinning in an OpenMP runtime: "
                                 "waiting for other threads, not work."));
    ck_assert_ptr_null(strstr(r.verdict.text, "libgomp"));
    free(r.outside_ops[1].module); /* only the runtime: nothing to name */
    r.outside_ops[1].module = strdup("libomp.so.5");
    tp_analyze(&r);
    ck_assert_ptr_null(strstr(r.verdict.text, "goes mostly to"));
    ck_assert_ptr_nonnull(
        strstr(r.verdict.text, " 70% of the run's 100 CPU samples were spinning"));
    r.samples.outside_spin = 0; /* under 1%: not said */
    tp_analyze(&r);
    ck_assert_ptr_null(strstr(r.verdict.text, "spinning"));
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wait");
    TCase *tc = tcase_create("classify");
    tcase_add_test(tc, test_spin_modules);
    tcase_add_test(tc, test_classify);
    suite_add_tcase(s, tc);
    tc = tcase_create("rule");
    tcase_add_test(tc, test_kind_names);
    tcase_add_test(tc, test_share_rule);
    tcase_add_test(tc, test_sentence);
    tcase_add_test(tc, test_sentence_parts);
    tcase_add_test(tc, test_table);
    tcase_add_test(tc, test_merge_add);
    tcase_add_test(tc, test_outside_spin);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
