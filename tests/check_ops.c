/* Unit tests of the op registry and the per-thread op stack (track/ops/ops.c), linked into this
 * program from the track/ library with nothing defined in its place, not preloaded. The TSC is
 * left off, so ticks are CLOCK_MONOTONIC nanoseconds and the relations between total and self
 * times hold exactly. Each test forks (Check's default) and starts from
 * fresh tables. */
#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/workspec.h"
#include "track/heap/heap.h"
#include "track/runtime.h"
#include "track/sites/sites.h"
#include "track/ops/ops.h"
#include "report/report.h"
#include "track/out/trace_file.h"
#include "track/out/out.h"
#include "tests/probe.h"

/* The heap as the trace's counter track sees it: the one live block of this size, recorded at
 * a made-up address and call site (nothing here is preloaded: the heap table sees only this). */
static void heap_live(size_t bytes)
{
    tp_heap_init(NULL, NULL);
    tp_sites_init(1, 64, 0, NULL);
    tp_heap_alloc((void *)(uintptr_t)0x10000, bytes, (void *)(uintptr_t)0x401000, NULL, 0);
}

static void setup_ops(int max_ops, int warmup)
{
    tp_config_defaults(&tp_cfg);
    tp_cfg.max_ops = (uint64_t)max_ops;
    tp_cfg.warmup = warmup;
    tp_ops_init();
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    while (nanosleep(&ts, &ts))
        ;
}

static struct tp_report rep;

static void collect(void)
{
    tp_report_init(&rep);
    tp_ops_collect(&rep);
}

static const struct tp_op *op(const char *name)
{
    for (size_t i = 0; i < rep.nops; i++)
        if (!strcmp(rep.ops[i].name, name))
            return &rep.ops[i];
    ck_abort_msg("op %s not in the report", name);
    return NULL;
}

static int has_note(const char *text)
{
    for (size_t i = 0; i < rep.nnotes; i++)
        if (strstr(rep.notes[i], text))
            return 1;
    return 0;
}

/* Two threads intern 3,000 names (12 chunks of the table, the name index rehashed twice), one
 * forwards and one backwards, and run each op 5 times: every name gets one id, the same on both
 * threads, and every op has exactly 10 calls; nothing is refused. */
#define GROW_N 3000
static int grow_ids[2][GROW_N];

static void *grow_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    char name[32];
    for (int k = 0; k < GROW_N; k++) {
        int i = t ? GROW_N - 1 - k : k;
        snprintf(name, sizeof name, "grow_%d", i);
        int id = tp_op_intern(name, NULL, TP_SRC_API);
        grow_ids[t][i] = id;
        for (int c = 0; c < 5 && id >= 0; c++) {
            tp_op_begin(id, 0, 0);
            tp_op_end(id, 0, 0, 0, 0, NULL);
        }
    }
    return NULL;
}

START_TEST(test_grow_threads)
{
    setup_ops(0, 0);
    pthread_t th;
    pthread_create(&th, NULL, grow_thread, (void *)(intptr_t)1);
    grow_thread((void *)(intptr_t)0);
    pthread_join(th, NULL);
    char name[32];
    for (int i = 0; i < GROW_N; i++) {
        ck_assert_int_ge(grow_ids[0][i], 0);
        ck_assert_int_eq(grow_ids[0][i], grow_ids[1][i]);
        snprintf(name, sizeof name, "grow_%d", i);
        ck_assert_int_eq(tp_op_intern(name, NULL, TP_SRC_API), grow_ids[0][i]);
    }
    ck_assert_int_eq(tp_ops_count(), GROW_N);
    collect();
    ck_assert_uint_eq(rep.nops, GROW_N);
    for (size_t i = 0; i < rep.nops; i++)
        ck_assert_uint_eq(rep.ops[i].calls, 10);
    ck_assert_int_eq(rep.partial, 0);
}
END_TEST

/* A child forked with ops in two chunks starts from empty counts and histograms (their pages
 * given back) and records its own calls: 2 of op 5, 4 of op 299 (warm-up 0: every call in the
 * histogram), nothing of the parent's 3 each; the parent keeps its own. */
static void run_op(int id, int n)
{
    for (int c = 0; c < n; c++) {
        tp_op_begin(id, 0, 0);
        tp_op_end(id, 0, 0, 0, 0, NULL);
    }
}

START_TEST(test_fork_child_empty)
{
    setup_ops(0, 0);
    char name[32];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "fk_%d", i);
        run_op(tp_op_intern(name, NULL, TP_SRC_API), 3);
    }
    pid_t p = fork();
    if (p == 0) {
        tp_ops_fork_child();
        run_op(tp_op_intern("fk_5", NULL, TP_SRC_API), 2);
        run_op(tp_op_intern("fk_299", NULL, TP_SRC_API), 4);
        collect();
        int ok = rep.nops == 2 && op("fk_5")->calls == 2 && op("fk_5")->latency.n == 2 &&
                 op("fk_299")->calls == 4 && op("fk_299")->latency.n == 4;
        _exit(ok ? 0 : 1);
    }
    int st = -1;
    ck_assert_int_eq(waitpid(p, &st, 0), p);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    collect();
    ck_assert_uint_eq(rep.nops, 300);
    ck_assert_uint_eq(op("fk_299")->calls, 3);
    ck_assert_uint_eq(op("fk_299")->latency.n, 3);
}
END_TEST

START_TEST(test_intern)
{
    setup_ops(3, 1);
    int a = tp_op_intern("a", "matmul", TP_SRC_BLAS);
    int b = tp_op_intern("b", NULL, TP_SRC_API);
    ck_assert_int_ge(a, 0);
    ck_assert_int_ne(a, b);
    ck_assert_int_eq(tp_op_intern("a", "other", TP_SRC_INSTR), a);
    ck_assert_str_eq(tp_ops_name(a), "a");
    ck_assert_ptr_null(tp_ops_name(17));
    ck_assert_int_ge(tp_op_intern("c", "conv", TP_SRC_PLT), 0);
    ck_assert_int_eq(tp_op_intern("d", "conv", TP_SRC_PLT), -1); /* table of 3 is full */
    ck_assert_int_eq(tp_op_intern("e", "conv", TP_SRC_PLT), -1);
    ck_assert_int_eq(tp_op_intern("c", "conv", TP_SRC_PLT), 2); /* known names still work */
    ck_assert_int_eq(tp_op_begin(-1, 0, 0), 0);
    ck_assert_int_eq(tp_op_begin(b, 0, 0), 1);
    tp_op_end(b, 0, 0, 0, 0, NULL);
    collect();
    ck_assert_uint_eq(rep.nops, 1); /* ops never called are left out */
    ck_assert_str_eq(op("b")->kind, "op");
    ck_assert_str_eq(op("b")->source, "api");
    ck_assert_int_eq(rep.partial, 1);
    ck_assert(has_note("op table full (TPROF_MAX_OPS=3): 2 ops were not recorded (2 refused "
                       "lookups): d, e"));
}
END_TEST

START_TEST(test_nested_self_total)
{
    setup_ops(16, 0);
    int outer = tp_op_intern("outer", "op", TP_SRC_INSTR),
        inner = tp_op_intern("inner", "op", TP_SRC_INSTR);
    ck_assert_uint_eq(tp_ops_first_ns(), 0);
    ck_assert_int_eq(tp_op_begin(outer, 0x10, 0), 1);
    ck_assert_uint_gt(tp_ops_first_ns(), 0);
    sleep_ms(5);
    ck_assert_int_eq(tp_op_begin(inner, 0x20, 0), 1);
    ck_assert_int_eq(tp_op_depth(), 2);
    ck_assert_int_eq(tp_ops_current(), inner);
    ck_assert_int_eq(tp_op_top_is(TP_SRC_INSTR), 1);
    ck_assert_int_eq(tp_op_top_is(TP_SRC_BLAS), 0);
    sleep_ms(10);
    tp_op_end(inner, 0x20, 0, 100, 40, NULL);
    sleep_ms(5);
    tp_op_end(outer, 0x10, 0, 0, 0, NULL);
    ck_assert_int_eq(tp_op_depth(), 0);
    ck_assert_int_eq(tp_ops_current(), -1);
    collect();
    const struct tp_op *o = op("outer"), *i = op("inner");
    ck_assert_uint_eq(o->calls, 1);
    ck_assert_uint_eq(i->calls, 1);
    ck_assert_uint_eq(o->self_ns, o->total_ns - i->total_ns);
    ck_assert_uint_eq(i->self_ns, i->total_ns);
    ck_assert_uint_ge(i->total_ns, 10000000);
    ck_assert_uint_ge(o->self_ns, 10000000);
    ck_assert_uint_eq(i->flops, 100);
    ck_assert_uint_eq(i->bytes, 40);
    ck_assert_int_eq(i->flops_known, 1);
    ck_assert_uint_eq(o->flops, 0);
    ck_assert_int_eq(o->flops_known, 0);
    ck_assert_uint_eq(rep.nnotes, 0);
    ck_assert_int_eq(rep.partial, 0);
}
END_TEST

/* An op that recurses into itself: every call counts, the total only once. */
START_TEST(test_recursion)
{
    setup_ops(16, 0);
    int a = tp_op_intern("a", "op", TP_SRC_INSTR);
    tp_op_begin(a, 0x10, 0);
    sleep_ms(2);
    tp_op_begin(a, 0x10, 0);
    sleep_ms(2);
    tp_op_end(a, 0x10, 0, 0, 0, NULL);
    tp_op_end(a, 0x10, 0, 0, 0, NULL);
    collect();
    ck_assert_uint_eq(op("a")->calls, 2);
    ck_assert_uint_eq(op("a")->self_ns, op("a")->total_ns);
    ck_assert_uint_ge(op("a")->total_ns, 4000000);
}
END_TEST

/* longjmp over frames: a begin whose frame address is at or above an open frame's. */
START_TEST(test_longjmp_by_frame_address)
{
    setup_ops(16, 0);
    int a = tp_op_intern("a", "op", TP_SRC_PLT), b = tp_op_intern("b", "op", TP_SRC_PLT),
        c = tp_op_intern("c", "op", TP_SRC_PLT);
    tp_op_begin(a, 0, 1000);
    tp_op_begin(b, 0, 900);
    sleep_ms(1);
    tp_op_begin(c, 0, 950); /* b's frame is gone: it was longjmp'd over */
    ck_assert_int_eq(tp_op_depth(), 2);
    ck_assert_int_eq(tp_ops_current(), c);
    tp_op_begin(b, 0, 0); /* no frame address: nothing to judge by */
    ck_assert_int_eq(tp_op_depth(), 3);
    tp_op_end(b, 0, 0, 0, 0, NULL);
    tp_op_end(c, 0, 950, 0, 0, NULL);
    tp_op_end(a, 0, 1000, 0, 0, NULL);
    ck_assert_int_eq(tp_op_depth(), 0);
    collect();
    ck_assert_uint_eq(op("b")->calls, 2);
    /* Every nanosecond of a is in exactly one op's self time. */
    ck_assert_uint_eq(op("a")->self_ns + op("b")->self_ns + op("c")->self_ns, op("a")->total_ns);
    ck_assert_uint_eq(op("b")->self_ns, op("b")->total_ns);
    ck_assert_uint_ge(op("b")->total_ns, 1000000);
    ck_assert(has_note("1 op calls were left by longjmp or an exception"));
}
END_TEST

/* An end below open frames closes them (they were skipped); the time is still consistent. */
START_TEST(test_end_repairs_skipped)
{
    setup_ops(16, 0);
    int a = tp_op_intern("a", "op", TP_SRC_INSTR), b = tp_op_intern("b", "op", TP_SRC_INSTR),
        c = tp_op_intern("c", "op", TP_SRC_INSTR);
    tp_op_begin(a, 1, 0);
    tp_op_begin(b, 2, 0);
    tp_op_begin(c, 3, 0);
    sleep_ms(2);
    tp_op_end(a, 1, 0, 0, 0, NULL);
    ck_assert_int_eq(tp_op_depth(), 0);
    collect();
    ck_assert_uint_eq(op("a")->calls, 1);
    ck_assert_uint_eq(op("b")->calls, 1);
    ck_assert_uint_eq(op("c")->calls, 1);
    ck_assert_uint_eq(op("a")->self_ns, op("a")->total_ns - op("b")->total_ns);
    ck_assert_uint_eq(op("b")->self_ns, op("b")->total_ns - op("c")->total_ns);
    ck_assert(has_note("2 op calls were left by longjmp or an exception"));
}
END_TEST

START_TEST(test_unpaired)
{
    setup_ops(16, 0);
    int a = tp_op_intern("a", "op", TP_SRC_INSTR), b = tp_op_intern("b", "op", TP_SRC_INSTR);
    tp_op_end(a, 0, 0, 0, 0, NULL); /* nothing open */
    tp_op_begin(a, 1, 0);
    tp_op_end(b, 1, 0, 0, 0, NULL); /* another op */
    tp_op_end(a, 2, 0, 0, 0, NULL); /* the same op, another frame */
    ck_assert_int_eq(tp_op_depth(), 1);
    tp_op_end(a, 1, 0, 0, 0, NULL);
    collect();
    ck_assert_uint_eq(op("a")->calls, 1);
    ck_assert_uint_eq(rep.nops, 1);
    ck_assert(has_note("3 op ends had no matching begin and were dropped"));
    ck_assert_int_eq(rep.partial, 0);
}
END_TEST

START_TEST(test_stack_overflow)
{
    setup_ops(16, 0);
    int a = tp_op_intern("a", "op", TP_SRC_API);
    int pushed = 0;
    for (int i = 0; i < 130; i++)
        pushed += tp_op_begin(a, 0, 0);
    ck_assert_int_eq(pushed, 128);
    ck_assert_int_eq(tp_op_depth(), 128);
    for (int i = 0; i < pushed; i++)
        tp_op_end(a, 0, 0, 0, 0, NULL);
    ck_assert_int_eq(tp_op_depth(), 0);
    collect();
    ck_assert_uint_eq(op("a")->calls, 128);
    ck_assert_int_eq(rep.partial, 1);
    ck_assert(has_note("2 op calls nested deeper than 128 were not timed"));
}
END_TEST

START_TEST(test_not_running_or_guarded)
{
    setup_ops(16, 0);
    int a = tp_op_intern("a", "op", TP_SRC_API);
    tp_state = TP_FINISHING;
    ck_assert_int_eq(tp_op_begin(a, 0, 0), 0);
    tp_state = TP_RUNNING;
    tp_guard = 1;
    ck_assert_int_eq(tp_op_begin(a, 0, 0), 0);
    tp_guard = 0;
    ck_assert_int_eq(tp_op_depth(), 0);
    ck_assert_uint_eq(tp_ops_first_ns(), 0);
}
END_TEST

/* The first TPROF_WARMUP calls of each op stay out of its latency distribution. */
START_TEST(test_warmup)
{
    setup_ops(16, _i);
    int a = tp_op_intern("a", "op", TP_SRC_API), b = tp_op_intern("b", "op", TP_SRC_API);
    for (int i = 0; i < 5; i++) {
        tp_op_begin(a, 0, 0);
        tp_op_end(a, 0, 0, 0, 0, NULL);
    }
    tp_op_begin(b, 0, 0);
    tp_op_end(b, 0, 0, 0, 0, NULL);
    collect();
    int w = _i;
    ck_assert_uint_eq(op("a")->calls, 5);
    ck_assert_uint_eq(op("a")->warmup_calls, (uint64_t)w);
    ck_assert_uint_eq(op("a")->latency.n, (uint64_t)(5 - w));
    ck_assert_uint_le(op("a")->warmup_ns, op("a")->total_ns);
    ck_assert_uint_eq(op("b")->warmup_calls, w >= 1 ? 1 : 0);
    ck_assert_uint_eq(op("b")->latency.n, w >= 1 ? 0 : 1);
}
END_TEST

START_TEST(test_work_and_shapes)
{
    setup_ops(16, 0);
    int a = tp_op_intern("gemm", "matmul", TP_SRC_BLAS);
    struct tp_shape_key k1, k2;
    memset(&k1, 0xab, sizeof k1); /* padding differs between keys of equal fields */
    memset(&k2, 0xcd, sizeof k2);
    k1.m = k2.m = 64, k1.n = k2.n = 32, k1.k = k2.k = 16;
    k1.transa = k2.transa = 'N', k1.transb = k2.transb = 'T', k1.layout = k2.layout = 'R';
    k1.side = k2.side = 0, k1.uplo = k2.uplo = 0;
    k1.named = k2.named = NULL; /* a BLAS shape: more[] is not compared */
    k1.token = k2.token = 0;    /* no thread's number for it */
    k1.dtype[0] = k1.dtype[1] = k2.dtype[0] = k2.dtype[1] = NULL; /* no ggml node */
    struct tp_shape_key tri = {10, 20, 0, 'T', 0, 'C', 'R', 'L'}, vec = {0, 4096};
    for (int i = 0; i < 3; i++) {
        tp_op_begin(a, 0, 0);
        tp_op_end(a, 0, 0, 1000, 10, i ? &k2 : &k1);
    }
    tp_op_begin(a, 0, 0);
    tp_op_add_work(7, 3); /* the annotation API adds to the innermost op */
    tp_op_end(a, 0, 0, 0, 0, &tri);
    tp_op_begin(a, 0, 0);
    tp_op_end(a, 0, 0, 5, 5, &vec);
    tp_op_add_work(1, 1); /* no op open: nothing */
    collect();
    const struct tp_op *o = op("gemm");
    ck_assert_uint_eq(o->calls, 5);
    ck_assert_uint_eq(o->flops, 3012);
    ck_assert_uint_eq(o->bytes, 38);
    ck_assert_uint_eq(o->nshapes, 3);
    uint64_t calls = 0, tot = 0;
    for (size_t i = 0; i < o->nshapes; i++) {
        const struct tp_shape *s = &o->shapes[i];
        calls += s->calls;
        tot += s->total_ns;
        if (s->k) {
            ck_assert_str_eq(s->desc, "m=64 n=32 k=16 NT row");
            ck_assert_uint_eq(s->calls, 3);
            ck_assert_uint_eq(s->flops, 3000);
            ck_assert_uint_eq(s->bytes, 30);
            ck_assert_int_eq(s->transb, 'T');
            ck_assert_int_eq(s->layout, 'R');
        } else if (s->m) {
            ck_assert_str_eq(s->desc, "m=10 n=20 T col right lower");
            ck_assert_uint_eq(s->flops, 7);
            ck_assert_uint_eq(s->bytes, 3);
        } else {
            ck_assert_str_eq(s->desc, "n=4096");
            ck_assert_int_eq(s->layout, 0);
        }
    }
    ck_assert_uint_eq(calls, 5);
    ck_assert_uint_eq(tot, o->total_ns);
}
END_TEST

/* A key with a token (a work entry's, track/work/argwork.c) finds the slot its token went to last
 * without a compare; another token, or a fork in between, searches again. */
START_TEST(test_shape_tokens)
{
    setup_ops(16, 0);
    int a = tp_op_intern("kern", "op", TP_SRC_INSTR);
    static const struct tp_work_fn w;
    struct tp_shape_key k1 = {4, 5, 6}, k2 = {7, 8, 9};
    k1.named = k2.named = &w;
    k1.more[0] = 1, k2.more[0] = 2;
    k1.token = 1, k2.token = 2;
    int order[] = {1, 1, 2, 1, 2, 2, 2, 1};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        tp_op_begin(a, 0, 0);
        tp_op_end(a, 0, 0, order[i], 10, order[i] == 1 ? &k1 : &k2);
    }
    collect();
    const struct tp_op *o = op("kern");
    ck_assert_uint_eq(o->nshapes, 2);
    for (size_t i = 0; i < 2; i++) {
        const struct tp_shape *s = &o->shapes[i];
        ck_assert_uint_eq(s->calls, 4);
        ck_assert_uint_eq(s->flops, s->m == 4 ? 4 : 8);
        ck_assert_uint_eq(s->bytes, 40);
    }
}
END_TEST

START_TEST(test_shape_table_full)
{
    setup_ops(16, 0);
    int a = tp_op_intern("gemm", "matmul", TP_SRC_BLAS);
    for (int i = 1; i <= 66; i++) {
        struct tp_shape_key k = {i, i, i, 'N', 'N', 'C'};
        tp_op_begin(a, 0, 0);
        tp_op_end(a, 0, 0, 2, 1, &k);
    }
    collect();
    ck_assert_uint_eq(op("gemm")->calls, 66);
    ck_assert_uint_eq(op("gemm")->flops, 132); /* the op's figures stay whole */
    ck_assert_uint_eq(op("gemm")->nshapes, 64);
    ck_assert(has_note("2 calls had shapes beyond the 64 kept per op"));
}
END_TEST

/* Heap requested while an op is open belongs to the innermost op. */
START_TEST(test_alloc_attribution)
{
    setup_ops(16, 0);
    int a = tp_op_intern("a", "op", TP_SRC_API), b = tp_op_intern("b", "op", TP_SRC_API);
    tp_ops_on_alloc(1000); /* outside every op */
    tp_op_begin(a, 0, 0);
    tp_ops_on_alloc(10);
    tp_op_begin(b, 0, 0);
    tp_ops_on_alloc(512 * 1024);
    tp_ops_on_alloc(1);
    tp_op_end(b, 0, 0, 0, 0, NULL);
    tp_ops_on_alloc(20);
    tp_op_end(a, 0, 0, 0, 0, NULL);
    collect();
    ck_assert_uint_eq(op("a")->alloc_bytes, 30);
    ck_assert_uint_eq(op("a")->alloc_count, 2);
    ck_assert_uint_eq(op("b")->alloc_bytes, 512 * 1024 + 1);
    ck_assert_uint_eq(op("b")->alloc_count, 2);
}
END_TEST

/* Marks: a step is the time between consecutive marks. */
START_TEST(test_step_marks)
{
    setup_ops(16, 1);
    for (int i = 0; i < 4; i++) {
        tp_step_mark();
        sleep_ms(2);
    }
    collect();
    ck_assert_str_eq(rep.steps.name, "tprof_step");
    ck_assert_uint_eq(rep.steps.count, 3);
    ck_assert_uint_eq(rep.steps.warmup, 1);
    ck_assert_uint_eq(rep.steps.latency.n, 2);
    ck_assert_uint_ge(rep.steps.latency.min, 2000000);
}
END_TEST

/* A step function: the outermost of nested (recursive) calls is the step. */
START_TEST(test_step_function)
{
    setup_ops(16, 0);
    tp_cfg.step = strdup("train_step");
    for (int i = 0; i < 3; i++) {
        tp_step_begin(NULL);
        tp_step_begin(NULL);
        tp_step_end();
        tp_step_end();
    }
    tp_step_end(); /* unpaired: ignored */
    collect();
    ck_assert_str_eq(rep.steps.name, "train_step");
    ck_assert_uint_eq(rep.steps.count, 3);
    ck_assert_uint_eq(rep.steps.latency.n, 3);
}
END_TEST

/* TPROF_SCHEDULE=1:1:2 with marks: steps 2 and 3 (0-based) and the ops inside them only. */
START_TEST(test_schedule_marks)
{
    setup_ops(16, 0);
    tp_cfg.sched_wait = 1, tp_cfg.sched_warmup = 1, tp_cfg.sched_active = 2;
    int a = tp_op_intern("a", "op", TP_SRC_API);
    int recorded = 0;
    recorded += tp_op_begin(a, 0, 0); /* before the first mark: no step yet */
    if (recorded)
        tp_op_end(a, 0, 0, 0, 0, NULL);
    for (int step = 0; step < 6; step++) {
        tp_step_mark(); /* starts step `step` */
        for (int i = 0; i <= step; i++) {
            int p = tp_op_begin(a, 0, 0);
            recorded += p;
            if (p)
                tp_op_end(a, 0, 0, 0, 0, NULL);
        }
    }
    tp_step_mark(); /* ends step 5 */
    ck_assert_int_eq(recorded, 3 + 4);
    collect();
    ck_assert_uint_eq(op("a")->calls, 7);
    ck_assert_uint_eq(rep.steps.count, 2);
    ck_assert_int_eq(rep.steps.window_first, 2);
    ck_assert_int_eq(rep.steps.window_last, 3);
    ck_assert(has_note("TPROF_SCHEDULE=1:1:2: ops and steps cover steps 2 to 3 only"));
}
END_TEST

/* Many threads on one op and one shape: exact totals. */
enum { THREADS = 4, PER_THREAD = 20000 };

static void *hammer(void *arg)
{
    int a = tp_op_intern("shared", "matmul", TP_SRC_BLAS);
    struct tp_shape_key k = {8, 8, 8, 'N', 'N', 'R'};
    char name[32];
    for (int i = 0; i < PER_THREAD; i++) {
        /* interned concurrently by every thread: the same names must give the same ids */
        snprintf(name, sizeof name, "op%d", i % 50);
        int b = tp_op_intern(name, "op", TP_SRC_API);
        tp_op_begin(a, 0, 0);
        tp_op_begin(b, 0, 0);
        tp_ops_on_alloc(3);
        tp_op_end(b, 0, 0, 0, 0, NULL);
        tp_op_end(a, 0, 0, 1024, 16, &k);
    }
    (void)arg;
    return NULL;
}

START_TEST(test_threads_exact)
{
    setup_ops(64, 1);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, hammer, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    collect();
    ck_assert_uint_eq(rep.nops, 51);
    const struct tp_op *o = op("shared");
    ck_assert_uint_eq(o->calls, THREADS * PER_THREAD);
    ck_assert_uint_eq(o->flops, 1024ull * THREADS * PER_THREAD);
    ck_assert_uint_eq(o->bytes, 16ull * THREADS * PER_THREAD);
    ck_assert_uint_eq(o->warmup_calls, 1);
    ck_assert_uint_eq(o->latency.n, THREADS * PER_THREAD - 1);
    ck_assert_uint_eq(o->nshapes, 1);
    ck_assert_uint_eq(o->shapes[0].calls, THREADS * PER_THREAD);
    ck_assert_uint_eq(o->alloc_count, 0);
    uint64_t calls = 0, allocs = 0;
    for (size_t i = 0; i < rep.nops; i++)
        if (strncmp(rep.ops[i].name, "op", 2) == 0) {
            calls += rep.ops[i].calls;
            allocs += rep.ops[i].alloc_bytes;
        }
    ck_assert_uint_eq(calls, THREADS * PER_THREAD);
    ck_assert_uint_eq(allocs, 3ull * THREADS * PER_THREAD);
    ck_assert_uint_eq(rep.nnotes, 0);
}
END_TEST

/* TPROF_FOLDED: one node per path of nested ops, with exact calls and self = total - children. */
START_TEST(test_optree_paths)
{
    tp_config_defaults(&tp_cfg);
    tp_cfg.warmup = 0;
    tp_cfg.folded = strdup("x.folded");
    tp_ops_init();
    tp_optree_init();
    ck_assert_int_eq(tp_optree_on, 1);
    int a = tp_op_intern("fwd", "op", TP_SRC_INSTR), b = tp_op_intern("mm", "matmul", TP_SRC_BLAS),
        c = tp_op_intern("relu", "op", TP_SRC_INSTR);
    for (int rep_ = 0; rep_ < 3; rep_++) {
        tp_op_begin(a, 1, 0);
        tp_op_begin(b, 2, 0);
        sleep_ms(2);
        tp_op_end(b, 2, 0, 0, 0, NULL);
        tp_op_begin(c, 3, 0);
        tp_op_begin(b, 2, 0); /* mm inside relu: a different path from mm inside fwd */
        tp_op_end(b, 2, 0, 0, 0, NULL);
        tp_op_end(c, 3, 0, 0, 0, NULL);
        tp_op_end(a, 1, 0, 0, 0, NULL);
    }
    tp_op_begin(b, 2, 0); /* mm at the outermost level */
    tp_op_end(b, 2, 0, 0, 0, NULL);
    tp_report_init(&rep);
    tp_ops_collect(&rep);
    tp_optree_collect(&rep);
    ck_assert_uint_eq(rep.nopstacks, 5);
    uint64_t self_sum = 0, mm_calls = 0;
    int seen = 0;
    for (size_t i = 0; i < rep.nopstacks; i++) {
        const struct tp_opstack *s = &rep.opstacks[i];
        char path[128] = "";
        for (size_t d = 0; d < s->depth; d++) {
            strcat(path, d ? ";" : "");
            strcat(path, s->ops[d]);
        }
        self_sum += s->self_ns;
        ck_assert_uint_le(s->self_ns, s->total_ns);
        uint64_t want = 3;
        if (!strcmp(path, "fwd"))
            seen |= 1;
        else if (!strcmp(path, "fwd;mm")) {
            seen |= 2;
            mm_calls += s->calls;
            ck_assert_uint_ge(s->self_ns, 6000000);
        } else if (!strcmp(path, "fwd;relu"))
            seen |= 4;
        else if (!strcmp(path, "fwd;relu;mm")) {
            seen |= 8;
            mm_calls += s->calls;
        } else if (!strcmp(path, "mm")) {
            seen |= 16;
            mm_calls += s->calls;
            want = 1;
        } else
            ck_abort_msg("unexpected path %s", path);
        ck_assert_uint_eq(s->calls, want);
    }
    ck_assert_int_eq(seen, 31);
    ck_assert_uint_eq(mm_calls, op("mm")->calls);
    /* The paths' self times are the ops' self times, split by path. */
    uint64_t op_self = op("fwd")->self_ns + op("mm")->self_ns + op("relu")->self_ns;
    ck_assert_uint_le(self_sum > op_self ? self_sum - op_self : op_self - self_sum, 5);
    ck_assert_uint_eq(rep.opstacks_dropped, 0);
}
END_TEST

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void setup_trace(uint64_t cap, uint64_t max)
{
    tp_config_defaults(&tp_cfg);
    tp_cfg.warmup = 0;
    tp_cfg.trace = strdup("t.json");
    tp_cfg.trace_cap = cap;
    tp_cfg.trace_max = max;
    tp_ops_init();
    tp_trace_init();
    ck_assert_int_eq(tp_trace_on, 1);
}

static void render_trace(struct tp_buf *b, uint64_t peak)
{
    tp_report_init(&rep);
    tp_ops_collect(&rep);
    rep.program.pid = 42;
    rep.program.wall_ns = 1000000;
    rep.memory.peak_bytes = peak;
    rep.memory.peak_ns = 500;
    tp_buf_init(b);
    tp_trace_render(&rep, b);
    ck_assert(tp_buf_ok(b));
}

/* Every call under the cap is an event; calls past it are summarised per op, with their count. */
START_TEST(test_trace_cap)
{
    setup_trace(5, 64 << 20);
    int a = tp_op_intern("gemm_op", "matmul", TP_SRC_BLAS),
        b = tp_op_intern("norm_op", "norm", TP_SRC_INSTR);
    struct tp_shape_key k = {.m = 2, .n = 3, .k = 4, .transa = 'N', .transb = 'N', .layout = 'R'};
    for (int i = 0; i < 6; i++) {
        tp_op_begin(a, 1, 0);
        tp_op_end(a, 1, 0, 48, 0, &k);
    }
    for (int i = 0; i < 2; i++) {
        tp_op_begin(b, 2, 0);
        tp_op_end(b, 2, 0, 0, 0, NULL);
    }
    heap_live(777);
    struct tp_buf t;
    render_trace(&t, 4096);
    const char *s = tp_buf_str(&t);
    ck_assert_uint_eq(rep.outputs.trace_calls, 8);
    ck_assert_uint_eq(rep.outputs.trace_events, 5);
    ck_assert_uint_eq(rep.outputs.trace_past_cap, 3);
    ck_assert_uint_eq(rep.outputs.trace_past_max, 0);
    ck_assert_uint_eq(count(s, "\"ph\":\"X\",\"name\":\"gemm_op\",\"cat\":\"matmul\""), 5);
    /* no per-call args on the events (speedscope would make each call a frame of its own):
     * the GFLOP/s of each call is a sample of a counter named by the op and shape */
    ck_assert_uint_eq(count(s, "\"flops\""), 0);
    ck_assert_uint_eq(count(s, "{\"ph\":\"C\",\"name\":\"gemm_op m=2 n=3 k=4 NN row\","
                               "\"cat\":\"GFLOP/s\""),
                      5);
    ck_assert_uint_eq(count(s, "\"args\":{\"GFLOP/s\":"), 5);
    /* the calls past the cap: one instant event per op, never a complete event */
    ck_assert_uint_eq(count(s, "{\"ph\":\"i\",\"s\":\"p\",\"name\":\"gemm_op: calls not drawn "
                               "(past TPROF_TRACE_CAP)\""),
                      1);
    ck_assert_uint_eq(count(s, "\"op\":\"gemm_op\",\"calls\":1,"), 1);
    ck_assert_uint_eq(count(s, "\"op\":\"norm_op\",\"calls\":2,"), 1);
    ck_assert_uint_eq(count(s, "\"ph\":\"X\""), 5);
    ck_assert_uint_eq(count(s, "\"why\":\"past TPROF_TRACE_CAP\""), 2);
    /* the exact peak and the live bytes at exit are on the heap track */
    ck_assert_uint_eq(count(s, "\"ts\":0.500,\"args\":{\"live_bytes\":4096}"), 1);
    ck_assert_uint_eq(count(s, "\"name\":\"heap\""), 2);
    ck_assert_uint_eq(count(s, "\"events\":5,\"summarised_past_cap\":3,"), 1);
    ck_assert_uint_eq(rep.outputs.trace_bytes, t.len);
    tp_buf_free(&t);
}
END_TEST

/* Past the size budget, events stop and the rest is summarised: the file never exceeds it. */
START_TEST(test_trace_budget)
{
    setup_trace(1000000, 8192);
    int a = tp_op_intern("a_rather_long_op_name_for_the_budget", "op", TP_SRC_INSTR);
    for (int i = 0; i < 500; i++) {
        tp_op_begin(a, 1, 0);
        tp_op_end(a, 1, 0, 0, 0, NULL);
    }
    struct tp_buf t;
    render_trace(&t, 100);
    ck_assert_uint_le(t.len, 8192);
    ck_assert_uint_eq(rep.outputs.trace_calls, 500);
    ck_assert_uint_eq(rep.outputs.trace_past_cap, 0);
    ck_assert_uint_gt(rep.outputs.trace_events, 10);
    ck_assert_uint_gt(rep.outputs.trace_past_max, 0);
    ck_assert_uint_eq(rep.outputs.trace_events + rep.outputs.trace_past_max, 500);
    char want[128];
    snprintf(want, sizeof want, "\"op\":\"a_rather_long_op_name_for_the_budget\",\"calls\":%llu,",
             (unsigned long long)rep.outputs.trace_past_max);
    ck_assert_uint_eq(count(tp_buf_str(&t), want), 1);
    ck_assert_uint_eq(count(tp_buf_str(&t), "past TPROF_TRACE_MAX"), 2); /* name and why */
    tp_buf_free(&t);
}
END_TEST

int main(void)
{
    tp_state = TP_RUNNING; /* as libtprof.so is once started */
    Suite *s = suite_create("ops");
    TCase *tc = tcase_create("stack");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_intern);
    tcase_add_test(tc, test_nested_self_total);
    tcase_add_test(tc, test_recursion);
    tcase_add_test(tc, test_longjmp_by_frame_address);
    tcase_add_test(tc, test_end_repairs_skipped);
    tcase_add_test(tc, test_unpaired);
    tcase_add_test(tc, test_stack_overflow);
    tcase_add_test(tc, test_not_running_or_guarded);
    tcase_add_loop_test(tc, test_warmup, 0, 3);
    tcase_add_test(tc, test_work_and_shapes);
    tcase_add_test(tc, test_shape_table_full);
    tcase_add_test(tc, test_shape_tokens);
    tcase_add_test(tc, test_alloc_attribution);
    tcase_add_test(tc, test_step_marks);
    tcase_add_test(tc, test_step_function);
    tcase_add_test(tc, test_schedule_marks);
    tcase_add_test(tc, test_threads_exact);
    tcase_add_test(tc, test_optree_paths);
    tcase_add_test(tc, test_trace_cap);
    tcase_add_test(tc, test_trace_budget);
    tcase_add_test(tc, test_grow_threads);
    tcase_add_test(tc, test_fork_child_empty);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
