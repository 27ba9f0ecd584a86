/* The CPU figures: the parsers of the kernel's per-thread files (common/procstat.c) on fixed
 * text, the rule of the CPU verdict and its wording (report/analyze/cpuverdict.c) on fixed figures, the
 * verdict's place in the text report, and the collection (track/steps/cpu.c) of a thread that ended
 * before the report and of the live main thread. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/machine/machine.h"
#include "report/analyze/analyze.h"
#include "report/render/render.h"
#include "track/steps/steps.h"

START_TEST(test_schedstat)
{
    uint64_t run = 1, wait = 1;
    ck_assert_int_eq(tp_parse_schedstat("1019646 348256 2\n", &run, &wait), 0);
    ck_assert_uint_eq(run, 1019646);
    ck_assert_uint_eq(wait, 348256);
    ck_assert_int_eq(tp_parse_schedstat("18446744073709551615 0 0", &run, &wait), 0);
    ck_assert_uint_eq(run, UINT64_MAX);
    ck_assert_uint_eq(wait, 0);
    /* saturates rather than wraps */
    ck_assert_int_eq(tp_parse_schedstat("99999999999999999999999 5 1", &run, &wait), 0);
    ck_assert_uint_eq(run, UINT64_MAX);
    ck_assert_int_eq(tp_parse_schedstat("12345\n", &run, &wait), -1);
    ck_assert_int_eq(tp_parse_schedstat("", &run, &wait), -1);
    ck_assert_int_eq(tp_parse_schedstat(NULL, &run, &wait), -1);
}
END_TEST

START_TEST(test_ctxt)
{
    const char *status = "Name:\tv_cpu\nState:\tS (sleeping)\nThreads:\t3\n"
                         "voluntary_ctxt_switches:\t17\nnonvoluntary_ctxt_switches:\t4242\n";
    uint64_t v = 0, nv = 0;
    ck_assert_int_eq(tp_parse_ctxt(status, &v, &nv), 0);
    ck_assert_uint_eq(v, 17);
    ck_assert_uint_eq(nv, 4242);
    /* "nonvoluntary" must not be read as "voluntary", whichever comes first */
    const char *swapped = "nonvoluntary_ctxt_switches:\t9\nvoluntary_ctxt_switches:\t3\n";
    ck_assert_int_eq(tp_parse_ctxt(swapped, &v, &nv), 0);
    ck_assert_uint_eq(v, 3);
    ck_assert_uint_eq(nv, 9);
    v = nv = 7;
    ck_assert_int_eq(tp_parse_ctxt("Name:\tx\nvoluntary_ctxt_switches:\t5\n", &v, &nv), -1);
    ck_assert_uint_eq(v, 5);
    ck_assert_uint_eq(nv, 7);
}
END_TEST

START_TEST(test_stat)
{
    /* a name with a space and a ')' in it; utime 250, stime 50, starttime 12345 */
    const char *stat = "4242 (a b) c) R 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 "
                       "12345 1000000 100 18446744073709551615\n";
    uint64_t cpu = 0, start = 0;
    ck_assert_int_eq(tp_parse_stat_times(stat, &cpu, &start), 0);
    ck_assert_uint_eq(cpu, 300);
    ck_assert_uint_eq(start, 12345);
    ck_assert_int_eq(tp_parse_stat_times("4242 (x) R 1 2 3", &cpu, &start), -1);
    ck_assert_int_eq(tp_parse_stat_times("no parenthesis", &cpu, &start), -1);
}
END_TEST

START_TEST(test_cpu_max)
{
    ck_assert(tp_parse_cpu_max("max 100000\n") == 0);
    ck_assert(tp_parse_cpu_max("150000 100000\n") == 1.5);
    ck_assert(tp_parse_cpu_max("50000 100000") == 0.5);
    ck_assert(tp_parse_cpu_max("50000 0") == 0);
    ck_assert(tp_parse_cpu_max("garbage") == 0);
}
END_TEST

static void program(struct tp_program *p, uint64_t cpu, uint64_t runq, const char *src)
{
    memset(p, 0, sizeof *p);
    p->wall_ns = 1000000000;
    p->cpu_ns = cpu;
    p->runq_ns = runq;
    p->cpu_source = (char *)src;
    p->cpus_allowed = 2;
    p->load_avg = 3.5;
}

/* The rule: run-queue delay >= 20% of the runnable time and >= 10 ms, with schedstat figures. */
START_TEST(test_rule)
{
    struct tp_program p;
    program(&p, 800000000, 200000000, "schedstat"); /* exactly 20% */
    ck_assert(tp_cpu_wait_share(&p) == 0.2);
    ck_assert_int_eq(tp_cpu_wait_rule(&p), 1);
    program(&p, 800000001, 199999999, "schedstat"); /* just under */
    ck_assert_int_eq(tp_cpu_wait_rule(&p), 0);
    program(&p, 30000000, 9999999, "schedstat"); /* 25%, under 10 ms */
    ck_assert_int_eq(tp_cpu_wait_rule(&p), 0);
    program(&p, 30000000, 10000000, "schedstat"); /* 25%, 10 ms */
    ck_assert_int_eq(tp_cpu_wait_rule(&p), 1);
    program(&p, 500000000, 500000000, "stat"); /* no run-queue figures: never */
    ck_assert(tp_cpu_wait_share(&p) == 0);
    ck_assert_int_eq(tp_cpu_wait_rule(&p), 0);
    program(&p, 500000000, 500000000, NULL);
    ck_assert_int_eq(tp_cpu_wait_rule(&p), 0);
    program(&p, 0, 0, "schedstat");
    ck_assert(tp_cpu_wait_share(&p) == 0);
    ck_assert_int_eq(tp_cpu_wait_rule(&p), 0);
    /* the CPUs available: the affinity mask, or a smaller cgroup quota */
    program(&p, 0, 0, "schedstat");
    ck_assert(tp_cpus_available(&p) == 2);
    p.cpu_quota = 1.5;
    ck_assert(tp_cpus_available(&p) == 1.5);
    p.cpu_quota = 4;
    ck_assert(tp_cpus_available(&p) == 2);
}
END_TEST

static const char LINE[] =
    "CPU: the process got 0.6 of the 2 CPUs it may use, and its threads spent 40% of their "
    "runnable time waiting for a CPU. Its busy threads (those runnable at least half their time: "
    "3) are more than the 2 CPUs it may use: they waited for each other or for other load on "
    "these CPUs (load average 3.50), and the op and step times in this report include that wait: "
    "fewer threads (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS) or a quieter machine give it back.";

/* Three threads of 0.6 s, each on a CPU 0.2 s and waiting for one 0.133 s: runnable 56% of
 * their time, all three busy, on 2 CPUs; OpenBLAS and an OpenMP runtime loaded. */
static void model(struct tp_report *r, uint64_t cpu, uint64_t runq)
{
    tp_report_init(r);
    r->program.wall_ns = 1000000000;
    r->program.cpu_ns = cpu;
    r->program.runq_ns = runq;
    r->program.cpu_source = strdup("schedstat");
    r->program.cpus_allowed = 2;
    r->program.load_avg = 3.5;
    r->program.thread_runtimes = strdup("openblas openmp");
    r->nthreads = 3;
    r->threads = calloc(3, sizeof *r->threads);
    ck_assert_ptr_nonnull(r->threads);
    for (int i = 0; i < 3; i++)
        r->threads[i] = (struct tp_thread){
            .tid = 10 + i, .wall_ns = 600000000, .cpu_ns = 200000000, .runq_ns = 133333333 + !i};
}

static void runtimes(struct tp_report *r, const char *list)
{
    free(r->program.thread_runtimes);
    r->program.thread_runtimes = list ? strdup(list) : NULL;
}

START_TEST(test_verdict_text)
{
    struct tp_report r;
    model(&r, 600000000, 400000000);
    tp_analyze(&r);
    ck_assert(r.verdict.cpu_wait_share == 0.4);
    ck_assert_uint_eq(tp_cpu_busy_threads(&r), 3);
    ck_assert_ptr_nonnull(r.verdict.cpu_text);
    ck_assert_str_eq(r.verdict.cpu_text, LINE);
    /* the advice names the settings of the runtimes loaded, and none when none was */
    runtimes(&r, "mkl");
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.cpu_text, "include that wait: fewer threads "
                                                     "(MKL_NUM_THREADS) or a quieter machine give "
                                                     "it back."));
    runtimes(&r, "openmp mkl");
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.cpu_text, "fewer threads (OMP_NUM_THREADS, "
                                                     "MKL_NUM_THREADS) or a quieter machine"));
    runtimes(&r, "");
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.cpu_text, "include that wait: fewer threads or a "
                                                     "quieter machine give it back."));
    runtimes(&r, NULL); /* a report before the list: nothing known, nothing named */
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.cpu_text, "wait: fewer threads or a quieter machine"));
    runtimes(&r, "openblas openmp");
    /* a quota of one CPU and a half, one CPU got: "1 of the 1.5 CPUs"; 3 busy threads are more */
    r.program.cpu_ns = 1000000000;
    r.program.cpu_quota = 1.5;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.cpu_text, "got 1 of the 1.5 CPUs it may use"));
    ck_assert_ptr_nonnull(strstr(r.verdict.cpu_text, "at least half their time: 3) are more "
                                                     "than the 1.5 CPUs it may use: they waited"));
    r.program.cpus_allowed = 1;
    r.program.cpu_quota = 0;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.cpu_text, "of the 1 CPU it may use,"));
    ck_assert_ptr_nonnull(strstr(r.verdict.cpu_text, "are more than the 1 CPU it may use:"));
    /* merged processes: only the wait is said (they may have run one after another), and no
     * count of CPUs to hold the busy threads against (they may have run on other machines) */
    r.merged_processes = 4;
    tp_analyze(&r);
    ck_assert_str_eq(r.verdict.cpu_text,
                     "CPU: the threads of the 4 processes spent 29% of their runnable time "
                     "waiting for a CPU. Other load on these CPUs (load average 3.50) or more "
                     "busy threads than CPUs (busy threads, those runnable at least half their "
                     "time: 3) kept them waiting, and the op and step times in this report "
                     "include that wait: fewer threads (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS) or "
                     "a quieter machine give it back.");
    r.merged_processes = 0;
    /* under the rule: no line, the share still given */
    r.program.runq_ns = 100000000;
    tp_analyze(&r);
    ck_assert_ptr_null(r.verdict.cpu_text);
    ck_assert(r.verdict.cpu_wait_share == 100000000.0 / 1100000000.0);
    tp_report_free(&r);
}
END_TEST

/* One busy thread waiting for a CPU with 2 allowed is not crowding itself: the wait is other
 * load, and fewer threads would give nothing back, whatever runtimes it loaded. A helper asleep
 * its whole life (on a CPU 1 ms of 1 s) is not busy; a thread runnable exactly half its time is. */
START_TEST(test_verdict_single)
{
    struct tp_report r;
    model(&r, 601000000, 400000000);
    r.nthreads = 2;
    r.threads[0] = (struct tp_thread){
        .tid = 10, .wall_ns = 1000000000, .cpu_ns = 600000000, .runq_ns = 400000000};
    r.threads[1] = (struct tp_thread){.tid = 11, .wall_ns = 1000000000, .cpu_ns = 1000000};
    runtimes(&r, "");
    tp_analyze(&r);
    ck_assert_uint_eq(tp_cpu_busy_threads(&r), 1);
    ck_assert_str_eq(r.verdict.cpu_text,
                     "CPU: the process got 0.6 of the 2 CPUs it may use, and its threads spent "
                     "40% of their runnable time waiting for a CPU. Its busy threads (those "
                     "runnable at least half their time: 1) are no more than the 2 CPUs it may "
                     "use: other load on these CPUs (load average 3.50) kept them waiting, and "
                     "the op and step times in this report include that wait: less other load on "
                     "these CPUs (an idle machine, or taskset to CPUs nothing else runs on) gives "
                     "it back.");
    runtimes(&r, "openblas");
    r.program.cpus_allowed = 1;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.cpu_text, "its threads spent 40% of their runnable "
                                                     "time waiting for a CPU. Its busy threads "
                                                     "(those runnable at least half their time: "
                                                     "1) are no more than the 1 CPU it may use: "
                                                     "other load"));
    ck_assert_ptr_null(strstr(r.verdict.cpu_text, "NUM_THREADS"));
    r.threads[1].cpu_ns = 300000000;
    r.threads[1].runq_ns = 200000000;
    ck_assert_uint_eq(tp_cpu_busy_threads(&r), 2);
    tp_report_free(&r);
}
END_TEST

/* The runtimes whose thread counts have a setting, by a loaded module's file name. */
START_TEST(test_thread_runtime)
{
    ck_assert_str_eq(tp_thread_runtime("/usr/lib/x86_64-linux-gnu/libopenblas.so.0"), "openblas");
    ck_assert_str_eq(tp_thread_runtime("/opt/lib/libopenblasp-r0.3.21.so"), "openblas");
    ck_assert_str_eq(tp_thread_runtime("/usr/lib/x86_64-linux-gnu/libgomp.so.1"), "openmp");
    ck_assert_str_eq(tp_thread_runtime("libomp.so.5"), "openmp");
    ck_assert_str_eq(tp_thread_runtime("/opt/intel/lib/libiomp5.so"), "openmp");
    ck_assert_str_eq(tp_thread_runtime("/opt/intel/lib/libmkl_rt.so.2"), "mkl");
    ck_assert_ptr_null(tp_thread_runtime("/usr/lib/x86_64-linux-gnu/libblas.so.3"));
    ck_assert_ptr_null(tp_thread_runtime("/usr/lib/libdarknet.so"));
    ck_assert_ptr_null(tp_thread_runtime(""));
}
END_TEST

/* In the text report the CPU line comes first in the verdict, before the ops' story, and the
 * header says the CPUs, the load and the figures. */
START_TEST(test_verdict_first)
{
    struct tp_report r;
    model(&r, 600000000, 400000000);
    tp_analyze(&r);
    struct tp_buf b;
    tp_buf_init(&b);
    struct tp_text_opts o = {10, 200, 1};
    tp_render_text(&r, &o, &b);
    /* the verdict is wrapped at spaces: put the lines back together */
    char *t = strdup(tp_buf_str(&b));
    ck_assert_ptr_nonnull(t);
    for (char *q = t; *q; q++)
        if (*q == '\n')
            *q = ' ';
    const char *v = strstr(t, "VERDICT"), *cpu = strstr(t, LINE),
               *ops = strstr(t, "No op was seen");
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(cpu);
    ck_assert_ptr_nonnull(ops);
    ck_assert(v < cpu && cpu < ops);
    ck_assert_ptr_nonnull(strstr(t, "CPUs allowed 2, load average 3.50; threads on a CPU 600 ms, "
                                    "waiting for one 400 ms (40.0% of their runnable time)"));
    free(t);
    tp_buf_free(&b);
    tp_report_free(&r);
}
END_TEST

/* The time outside every op, per thread: two threads of 1 s and 0.5 s, 0.9 s of them inside ops,
 * make 0.6 s of 1.5 s; the text and the HTML say it is summed over the threads. Without the
 * per-thread figure (a report before it) it is the program's time less the ops'. */
START_TEST(test_outside_per_thread)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000000;
    r.program.in_ops_ns = 900000000;
    r.nthreads = 2;
    r.threads = calloc(2, sizeof *r.threads);
    r.threads[0].wall_ns = 1000000000;
    r.threads[1].wall_ns = 500000000;
    r.nops = 1;
    r.ops = calloc(1, sizeof *r.ops);
    r.ops[0].name = strdup("op");
    r.ops[0].kind = strdup("op");
    r.ops[0].calls = 1;
    r.ops[0].total_ns = r.ops[0].self_ns = r.ops[0].wall_ns = r.ops[0].self_wall_ns = 900000000;
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 600000000);
    ck_assert_uint_eq(r.verdict.threads_wall_ns, 1500000000);
    struct tp_buf b;
    tp_buf_init(&b);
    struct tp_text_opts o = {10, 200, 1};
    tp_render_text(&r, &o, &b);
    ck_assert_ptr_nonnull(strstr(tp_buf_str(&b), "\ntime outside every op, summed over 2 threads: "
                                                 "600 ms (40.0% of theirs); inside the "
                                                 "allocator: ~0 ns (0.0%)\n"));
    tp_buf_free(&b);
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    ck_assert_ptr_nonnull(strstr(tp_buf_str(&b), "<p id=\"times\">time outside every op, summed "
                                                 "over 2 threads: 600 ms (40.0% of theirs); "
                                                 "inside the allocator: <span title=\"an "
                                                 "estimate\">~0 ns</span> (0.0%)</p>\n"));
    tp_buf_free(&b);
    r.program.in_ops_ns = 0;
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 100000000);
    ck_assert_uint_eq(r.verdict.threads_wall_ns, 0);
    tp_report_free(&r);
}
END_TEST

/* The other threads' sleep is not time outside every op, the main thread's is. The main thread
 * (tid == pid) lives 1 s, 0.9 s of it inside ops; a helper asleep its whole 1 s life was on a CPU
 * 1 ms and waited 1 ms for one; a worker of 0.5 s, 0.2 s of it inside ops, ran 0.25 s. Outside:
 * the main thread's 100 ms and the others' 252 ms on a CPU or waiting for one (no more than their
 * 1.3 s outside ops): 352 ms of the 1.252 s the threads were counted (28.1%). */
static struct tp_report outside_report(void)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.pid = 100;
    r.program.wall_ns = 1000000000;
    r.program.in_ops_ns = 1100000000;
    r.program.main_in_ops_ns = 900000000;
    free(r.program.cpu_source);
    r.program.cpu_source = strdup("schedstat");
    r.nthreads = 3;
    r.threads = calloc(3, sizeof *r.threads);
    r.threads[0] = (struct tp_thread){.tid = 100, .wall_ns = 1000000000, .cpu_ns = 950000000};
    r.threads[1] = (struct tp_thread){
        .tid = 101, .wall_ns = 1000000000, .cpu_ns = 1000000, .runq_ns = 1000000};
    r.threads[2] = (struct tp_thread){.tid = 102, .wall_ns = 500000000, .cpu_ns = 250000000};
    r.nops = 1;
    r.ops = calloc(1, sizeof *r.ops);
    r.ops[0].name = strdup("op");
    r.ops[0].kind = strdup("op");
    r.ops[0].calls = 1;
    r.ops[0].total_ns = r.ops[0].self_ns = r.ops[0].wall_ns = r.ops[0].self_wall_ns = 900000000;
    return r;
}

static void outside_lines(struct tp_report *r, const char *text, const char *html)
{
    struct tp_buf b;
    tp_buf_init(&b);
    struct tp_text_opts o = {10, 200, 1};
    tp_render_text(r, &o, &b);
    /* the line is wrapped with an indent of 2: put it back together */
    char *t = strdup(tp_buf_str(&b)), *w = t;
    ck_assert_ptr_nonnull(t);
    for (const char *q = t; *q; q++) {
        if (q[0] == '\n' && q[1] == ' ' && q[2] == ' ') {
            *w++ = ' ';
            q += 2;
        } else {
            *w++ = *q;
        }
    }
    *w = 0;
    ck_assert_msg(strstr(t, text), "%s", t);
    free(t);
    tp_buf_free(&b);
    tp_buf_init(&b);
    tp_render_html(r, 10, &b);
    ck_assert_msg(strstr(tp_buf_str(&b), html), "%s", tp_buf_str(&b));
    tp_buf_free(&b);
}

START_TEST(test_outside_asleep)
{
    struct tp_report r = outside_report();
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 352000000);
    ck_assert_uint_eq(r.verdict.threads_wall_ns, 2500000000);
    ck_assert_uint_eq(r.verdict.threads_time_ns, 1252000000);
    outside_lines(&r,
                  "\ntime outside every op, summed over 3 threads (the main thread's wall time, "
                  "the others' time on a CPU or waiting for one): 352 ms (28.1% of theirs); "
                  "inside the allocator: ~0 ns (0.0%)\n",
                  "<p id=\"times\">time outside every op, summed over 3 threads (the main "
                  "thread's wall time, the others' time on a CPU or waiting for one): 352 ms "
                  "(28.1% of theirs); inside the allocator:");
    /* no run queue figures (stat): the line says what was counted */
    free(r.program.cpu_source);
    r.program.cpu_source = strdup("stat");
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 351000000);
    outside_lines(&r,
                  "\ntime outside every op, summed over 3 threads (the main thread's wall time, "
                  "the others' time on a CPU): 351 ms (28.1% of theirs);",
                  "summed over 3 threads (the main thread's wall time, the others' time on a "
                  "CPU): 351 ms (28.1% of theirs);");
    /* no main thread among them: every thread is counted by its time on a CPU or waiting for
     * one, no more than their 1.4 s outside ops; the 0.9 s the first ran inside ops cannot be
     * told from its time outside, so all its 950 ms count */
    free(r.program.cpu_source);
    r.program.cpu_source = strdup("schedstat");
    r.program.pid = 7;
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 1202000000);
    ck_assert_uint_eq(r.verdict.threads_time_ns, 1202000000);
    outside_lines(&r,
                  "summed over 3 threads (each one's time on a CPU or waiting for one): 1.20 s "
                  "(100.0% of theirs);",
                  "summed over 3 threads (each one's time on a CPU or waiting for one): 1.20 s "
                  "(100.0% of theirs);");
    /* with CPU samples, the others count in the share of their samples outside every op: 2 of
     * 10 (the rest were working for the op the main thread ran) make 50.4 ms of their 252 ms;
     * the figure is then an estimate */
    r.program.pid = 100;
    r.samples.hz = 100;
    r.samples.other_threads = 10;
    r.samples.other_threads_outside = 2;
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 150400000);
    ck_assert_uint_eq(r.verdict.threads_time_ns, 1252000000);
    outside_lines(&r,
                  "\ntime outside every op, summed over 3 threads (the main thread's wall time, "
                  "the others' time on a CPU or waiting for one but not working for another "
                  "thread's op, by CPU samples): ~150 ms (12.0% of theirs); inside the "
                  "allocator: ~0 ns (0.0%)\n",
                  "summed over 3 threads (the main thread's wall time, the others' time on a CPU "
                  "or waiting for one but not working for another thread's op, by CPU samples): "
                  "~150 ms (12.0% of theirs);");
    r.program.pid = 7;
    tp_analyze(&r);
    outside_lines(&r,
                  "summed over 3 threads (each one's time on a CPU or waiting for one but not "
                  "working for another thread's op, by CPU samples): ~240 ms (20.0% of theirs);",
                  "(each one's time on a CPU or waiting for one but not working for another "
                  "thread's op, by CPU samples): ~240 ms (20.0% of theirs);");
    free(r.program.cpu_source);
    r.program.cpu_source = strdup("stat");
    r.program.pid = 100;
    tp_analyze(&r);
    outside_lines(&r,
                  "(the main thread's wall time, the others' time on a CPU but not working for "
                  "another thread's op, by CPU samples): ~150 ms",
                  "(the main thread's wall time, the others' time on a CPU but not working for "
                  "another thread's op, by CPU samples): ~150 ms");
    r.program.pid = 7;
    tp_analyze(&r);
    outside_lines(&r,
                  "(each one's time on a CPU but not working for another thread's op, by CPU "
                  "samples): ~240 ms",
                  "(each one's time on a CPU but not working for another thread's op, by CPU "
                  "samples): ~240 ms");
    free(r.program.cpu_source);
    r.program.cpu_source = strdup("schedstat");
    /* samples taken, none on the other threads (asleep): their time on a CPU is all there is */
    r.program.pid = 100;
    r.samples.other_threads = r.samples.other_threads_outside = 0;
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 352000000);
    r.program.pid = 7;
    /* a report without the main thread's share counts every thread's whole life */
    r.program.main_in_ops_ns = -1;
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 1400000000);
    ck_assert_uint_eq(r.verdict.threads_time_ns, 0);
    outside_lines(&r, "\ntime outside every op, summed over 3 threads: 1.40 s (56.0% of theirs);",
                  "summed over 3 threads: 1.40 s (56.0% of theirs);");
    tp_report_free(&r);
}
END_TEST

static void *ended_thread(void *arg)
{
    (void)arg;
    tp_cpu_thread_begin();
    tp_cpu_in_op(1000, 100); /* flushed when the thread ends */
    pthread_setname_np(pthread_self(), "tp-ended");
    return (void *)(intptr_t)syscall(SYS_gettid);
}

/* A thread that ended before the report is listed as ended, with its name and tid; the live
 * main thread as live; the sums are the threads'. */
START_TEST(test_collect)
{
    pthread_t t;
    void *tid;
    ck_assert_int_eq(pthread_create(&t, NULL, ended_thread, NULL), 0);
    ck_assert_int_eq(pthread_join(t, &tid), 0);
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000000000ull;
    tp_cpu_in_op(234, 34); /* the reporting thread's, flushed by the report */
    tp_cpu_collect(&r);
    ck_assert_uint_eq(r.program.in_ops_ns, tp_ticks_to_ns(1234));
    ck_assert_uint_eq(r.program.hooks_ns, tp_ticks_to_ns(134));
    ck_assert_uint_eq(r.nthreads, 2);
    int seen_ended = 0, seen_main = 0;
    uint64_t cpu = 0;
    for (size_t i = 0; i < r.nthreads; i++) {
        const struct tp_thread *x = &r.threads[i];
        cpu += x->cpu_ns;
        if (x->tid == (int64_t)(intptr_t)tid) {
            seen_ended = 1;
            ck_assert_int_eq(x->exited, 1);
            ck_assert_str_eq(x->name, "tp-ended");
        }
        if (x->tid == (int64_t)getpid()) {
            seen_main = 1;
            ck_assert_int_eq(x->exited, 0);
            ck_assert_uint_gt(x->cpu_ns, 0);
        }
    }
    ck_assert(seen_ended && seen_main);
    ck_assert_uint_eq(r.program.cpu_ns, cpu);
    ck_assert_uint_ge(r.program.cpus_allowed, 1);
    ck_assert_ptr_nonnull(r.program.cpu_source);
    /* this test program loads no thread pool's runtime */
    ck_assert_str_eq(r.program.thread_runtimes, "");
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cpu");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_schedstat);
    tcase_add_test(tc, test_ctxt);
    tcase_add_test(tc, test_stat);
    tcase_add_test(tc, test_cpu_max);
    suite_add_tcase(s, tc);
    tc = tcase_create("verdict");
    tcase_add_test(tc, test_rule);
    tcase_add_test(tc, test_verdict_text);
    tcase_add_test(tc, test_verdict_single);
    tcase_add_test(tc, test_thread_runtime);
    tcase_add_test(tc, test_verdict_first);
    tcase_add_test(tc, test_outside_per_thread);
    tcase_add_test(tc, test_outside_asleep);
    suite_add_tcase(s, tc);
    tc = tcase_create("collect");
    tcase_add_test(tc, test_collect);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
