/* tp_analyze and its parts on synthetic reports: roofline figures on both sides of the ridge and
 * on it, Amdahl projections, the verdict and its text, zero / unknown / NaN inputs, merged
 * reports, overlapping threads, idempotence. Figures are chosen so that the expected doubles are
 * exact (or computed by the same expression), and compared with ==. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/render/render.h"

static struct tp_op *add_op(struct tp_report *r, const char *name, uint64_t total, uint64_t self,
                            uint64_t flops, uint64_t bytes)
{
    r->ops = realloc(r->ops, (r->nops + 1) * sizeof *r->ops);
    ck_assert_ptr_nonnull(r->ops);
    struct tp_op *o = &r->ops[r->nops++];
    memset(o, 0, sizeof *o);
    o->name = strdup(name);
    o->kind = strdup("op");
    o->source = strdup("api");
    o->calls = 1;
    o->total_ns = total;
    o->self_ns = self;
    o->flops = flops;
    o->bytes = bytes;
    o->flops_known = flops > 0;
    return o;
}

static struct tp_op one(uint64_t total, uint64_t flops, uint64_t bytes)
{
    struct tp_op o;
    memset(&o, 0, sizeof o);
    o.total_ns = o.self_ns = total;
    o.flops = flops;
    o.bytes = bytes;
    return o;
}

/* Peaks 100 GFLOP/s and 10 GB/s: the ridge is at 10 FLOP/byte. */
START_TEST(test_roofline_compute_bound)
{
    struct tp_op o = one(1000000, 50000000, 1000000); /* 50 GFLOP/s, 50 FLOP/byte */
    tp_op_roofline(&o, 100, 10, 2000000);
    ck_assert(o.gflops == 50.0);
    ck_assert(o.intensity == 50.0);
    ck_assert(o.attainable_gflops == 100.0); /* min(100, 50 * 10) */
    ck_assert(o.efficiency == 0.5);
    ck_assert_str_eq(o.bound, "compute");
    ck_assert(o.share == 0.5);
    ck_assert(o.self_share == 0.5);
    free(o.bound);
}
END_TEST

START_TEST(test_roofline_memory_bound)
{
    struct tp_op o = one(1000000, 4000000, 2000000); /* 4 GFLOP/s, 2 FLOP/byte */
    tp_op_roofline(&o, 100, 10, 4000000);
    ck_assert(o.gflops == 4.0);
    ck_assert(o.intensity == 2.0);
    ck_assert(o.attainable_gflops == 20.0); /* 2 FLOP/byte * 10 GB/s */
    ck_assert(o.efficiency == 0.2);
    ck_assert_str_eq(o.bound, "memory");
    ck_assert(o.share == 0.25);
    free(o.bound);
}
END_TEST

START_TEST(test_roofline_at_and_near_the_ridge)
{
    /* Exactly on the ridge: not below it, so compute-bound, and both roofs agree. */
    struct tp_op o = one(1000000, 10000000, 1000000);
    tp_op_roofline(&o, 100, 10, 1000000);
    ck_assert(o.intensity == 10.0);
    ck_assert_str_eq(o.bound, "compute");
    ck_assert(o.attainable_gflops == 100.0);
    ck_assert(o.efficiency == 0.1);
    free(o.bound);
    /* One FLOP less: just below the ridge, memory-bound. */
    o = one(1000000, 9999999, 1000000);
    tp_op_roofline(&o, 100, 10, 1000000);
    ck_assert_str_eq(o.bound, "memory");
    ck_assert(o.attainable_gflops == 9999999.0 / 1000000.0 * 10);
    free(o.bound);
    /* One FLOP more: compute. */
    o = one(1000000, 10000001, 1000000);
    tp_op_roofline(&o, 100, 10, 1000000);
    ck_assert_str_eq(o.bound, "compute");
    ck_assert(o.attainable_gflops == 100.0);
    free(o.bound);
}
END_TEST

START_TEST(test_roofline_unknown)
{
    /* No FLOPs: no rate, no intensity, no bound; no division by zero anywhere. */
    struct tp_op o = one(1000, 0, 0);
    tp_op_roofline(&o, 100, 10, 1000);
    ck_assert(o.gflops == 0 && o.intensity == 0 && o.attainable_gflops == 0 && o.efficiency == 0);
    ck_assert_str_eq(o.bound, "unknown");
    ck_assert(o.share == 1.0);
    free(o.bound);
    /* FLOPs but no bytes: the rate is known, the intensity and bound are not. */
    o = one(1000, 3000, 0);
    tp_op_roofline(&o, 100, 10, 1000);
    ck_assert(o.gflops == 3.0 && o.intensity == 0);
    ck_assert_str_eq(o.bound, "unknown");
    free(o.bound);
    /* Bytes and no FLOPs (a data movement: im2col): memory-bound, its efficiency the bandwidth
     * reached, 4000 bytes in 1000 ns = 4 GB/s of 10; without a bandwidth peak, unknown. */
    o = one(1000, 0, 4000);
    tp_op_roofline(&o, 100, 10, 1000);
    ck_assert_str_eq(o.bound, "memory");
    ck_assert(o.gflops == 0 && o.intensity == 0 && o.attainable_gflops == 0);
    ck_assert(fabs(o.efficiency - 0.4) < 1e-12);
    free(o.bound);
    o = one(1000, 0, 4000);
    tp_op_roofline(&o, 100, 0, 1000);
    ck_assert_str_eq(o.bound, "unknown");
    ck_assert(o.efficiency == 0);
    free(o.bound);
    /* Peaks unknown (0), or not numbers: no bound, but rate and intensity stand. */
    double bad[][2] = {{0, 10}, {100, 0}, {0, 0}, {NAN, 10}, {100, NAN}, {INFINITY, 10}, {-1, 10}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o = one(1000, 5000, 1000);
        tp_op_roofline(&o, bad[i][0], bad[i][1], 1000);
        ck_assert_msg(!strcmp(o.bound, "unknown"), "peaks %g %g gave %s", bad[i][0], bad[i][1],
                      o.bound);
        ck_assert(o.gflops == 5.0 && o.intensity == 5.0);
        ck_assert(o.attainable_gflops == 0 && o.efficiency == 0);
        free(o.bound);
    }
    /* No time and no wall: every ratio is 0, not NaN or infinity. */
    o = one(0, 5000, 1000);
    tp_op_roofline(&o, 100, 10, 0);
    ck_assert(o.gflops == 0 && o.share == 0 && o.self_share == 0);
    ck_assert(o.intensity == 5.0);
    ck_assert_str_eq(o.bound, "memory");
    ck_assert(o.attainable_gflops == 50.0 && o.efficiency == 0);
    free(o.bound);
    /* Idempotent on the same op: the old bound is released, not leaked or kept. */
    o = one(1000, 5000, 1000);
    tp_op_roofline(&o, 100, 10, 1000);
    tp_op_roofline(&o, 0, 0, 1000);
    ck_assert_str_eq(o.bound, "unknown");
    free(o.bound);
}
END_TEST

START_TEST(test_amdahl)
{
    ck_assert(tp_amdahl(0.5, 2) == 1 / 0.75); /* 1.333... */
    ck_assert(tp_amdahl(0.5, INFINITY) == 2.0);
    ck_assert(tp_amdahl(0.75, 2) == 1 / 0.625);
    ck_assert(tp_amdahl(0.75, INFINITY) == 4.0);
    ck_assert(tp_amdahl(0.4, 2) == 1 / ((1 - 0.4) + 0.4 / 2));
    ck_assert(tp_amdahl(0.4, INFINITY) == 1 / (1 - 0.4));
    ck_assert(tp_amdahl(0.5, 4) == 1 / 0.625);
    ck_assert(tp_amdahl(0, 2) == 1.0);
    ck_assert(tp_amdahl(0, INFINITY) == 1.0);
    ck_assert(tp_amdahl(-0.5, 2) == 1.0);
    ck_assert(tp_amdahl(NAN, 2) == 1.0);
    ck_assert(tp_amdahl(0.5, NAN) == 1.0);
    ck_assert(tp_amdahl(0.5, 0) == 1.0);
    /* A wall-clock share of 1 (or more, from a bad input): the whole time, so taking no time
     * has no bound, said as 0, never as a huge number; n times faster is n times faster. */
    ck_assert(tp_amdahl(1.0, INFINITY) == 0);
    ck_assert(tp_amdahl(3.0, INFINITY) == 0);
    ck_assert(tp_amdahl(INFINITY, INFINITY) == 0);
    ck_assert(tp_amdahl(1.0, 2) == 2);
    ck_assert(tp_amdahl(3.0, 4) == 4);
}
END_TEST

/* wall 2 ms; gemm 800 us self (40%), compute-bound at 50%; conv 500 us self (25%), FLOPs
 * unknown; relu 100 us (5%). Peaks 100 GFLOP/s, 10 GB/s. */
static void model_a(struct tp_report *r)
{
    tp_report_init(r);
    r->program.wall_ns = 2000000;
    r->machine.peak_gflops = 100;
    r->machine.peak_gbps = 10;
    r->machine.source = strdup("env");
    add_op(r, "relu", 100000, 100000, 0, 0);
    add_op(r, "gemm", 1000000, 800000, 50000000, 1000000);
    add_op(r, "conv", 500000, 500000, 0, 0);
    r->memory.peak_bytes = 5000;
    r->memory.peak_op = strdup("gemm");
    r->memory.allocs = 12;
    r->memory.frees = 10;
    r->memory.alloc_ns = 2000;
    r->memory.persistent_bytes = 4000;
    r->memory.transient_bytes = 1000;
    r->memory.live_at_exit_bytes = 4096;
    r->memory.live_at_exit_allocs = 2;
    r->memory.sites = calloc(2, sizeof *r->memory.sites);
    r->memory.nsites = 2;
    struct tp_site *s = &r->memory.sites[0];
    s->frames = calloc(2, sizeof *s->frames);
    s->nframes = 2;
    s->frames[0].function = strdup("ex_alloc");
    s->frames[0].file = strdup("/src/util.c");
    s->frames[0].line = 7;
    s->frames[1].function = strdup("load_weights");
    s->frames[1].file = strdup("/src/model.c");
    s->frames[1].line = 99;
    s->live_at_peak_bytes = 4000;
    s = &r->memory.sites[1];
    s->frames = calloc(1, sizeof *s->frames);
    s->nframes = 1;
    s->frames[0].module = strdup("/usr/lib/libopenblas.so.0");
    s->frames[0].offset = 0x12345;
    s->live_at_peak_bytes = 1000;
}

START_TEST(test_verdict_and_amdahl)
{
    struct tp_report r;
    model_a(&r);
    tp_analyze(&r);
    const struct tp_verdict *v = &r.verdict;
    ck_assert_str_eq(v->op, "gemm");
    ck_assert(v->share == 0.4);
    ck_assert_str_eq(v->bound, "compute");
    ck_assert(v->efficiency == 0.5);
    ck_assert_uint_eq(v->outside_ops_ns, 2000000 - 800000 - 500000 - 100000);
    ck_assert_uint_eq(v->alloc_ns, 2000);
    ck_assert_uint_eq(v->namdahl, 3);
    /* By self time: gemm, conv, relu. */
    ck_assert_str_eq(v->amdahl[0].op, "gemm");
    ck_assert_str_eq(v->amdahl[1].op, "conv");
    ck_assert_str_eq(v->amdahl[2].op, "relu");
    ck_assert(v->amdahl[0].share == 0.4);
    ck_assert(v->amdahl[0].speedup_2x == 1 / ((1 - 0.4) + 0.4 / 2)); /* 1.25 */
    ck_assert(v->amdahl[0].speedup_max == 1 / (1 - 0.4));            /* 1.666... */
    ck_assert(v->amdahl[1].share == 0.25);
    ck_assert(v->amdahl[1].speedup_2x == 1 / 0.875);
    ck_assert(v->amdahl[1].speedup_max == 1 / 0.75);
    ck_assert(v->amdahl[2].share == 0.05);
    /* The ops themselves: conv is unknown-bound, relu too. */
    ck_assert_str_eq(r.ops[2].bound, "unknown");
    ck_assert(r.ops[1].gflops == 50.0 && r.ops[1].efficiency == 0.5);
    ck_assert(r.ops[1].share == 0.5 && r.ops[1].self_share == 0.4);
    ck_assert_str_eq(v->text,
                     "gemm takes 40% of the time and runs at 50% of what this machine can do at "
                     "its arithmetic intensity (compute-bound); a 2x faster gemm makes the program "
                     "1.25x faster, an infinitely fast one 1.67x. The heap peaks at 4.88 KiB "
                     "inside gemm; 3.91 KiB of it from load_weights (model.c:99) via ex_alloc. Of "
                     "the peak, 3.91 KiB is persistent (outlives the step that allocated it) and "
                     "1000 B transient (freed within its step). At exit, program: 4.00 KiB in 2 "
                     "blocks leaked.");
    ck_assert_uint_eq(r.nnotes, 0);
    tp_report_free(&r);
}
END_TEST

/* The time in gemm_nn, no FLOPs, called by gemm, which has the FLOPs (a work entry) and next to no
 * self time (darknet at -O1): the verdict is gemm's, on its total, with its FLOP rate and bound.
 * gemm: 1 ms of 1.25 ms, 50 GFLOP/s at 50 FLOP/byte against 100 GFLOP/s and 10 GB/s. When
 * gemm_nn takes less than half of gemm's time, the verdict is gemm_nn's. */
START_TEST(test_verdict_flops_parent)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1250000;
    r.machine.peak_gflops = 100;
    r.machine.peak_gbps = 10;
    r.machine.source = strdup("env");
    add_op(&r, "gemm", 1000000, 20000, 50000000, 1000000);
    add_op(&r, "gemm_nn", 980000, 980000, 0, 0)->parent = strdup("gemm");
    tp_analyze(&r);
    ck_assert_str_eq(r.verdict.op, "gemm");
    ck_assert_str_eq(r.verdict.bound, "compute");
    ck_assert(r.verdict.share == 0.8 && r.verdict.efficiency == 0.5);
    ck_assert_str_eq(r.verdict.text,
                     "gemm takes 80% of the time (its time in gemm_nn, which has no FLOPs of its "
                     "own: 78%) and runs at 50% of what this machine can do at its arithmetic "
                     "intensity (compute-bound); a 2x faster gemm makes the program 1.67x faster, "
                     "an infinitely fast one 5.00x. No heap allocation was seen.");
    /* through a caller without FLOPs of its own: gemm -> gemm_cpu -> gemm_nn */
    free(r.ops[1].parent);
    r.ops[1].parent = strdup("gemm_cpu");
    add_op(&r, "gemm_cpu", 990000, 10000, 0, 0)->parent = strdup("gemm");
    tp_analyze(&r);
    ck_assert_str_eq(r.verdict.op, "gemm");
    ck_assert_ptr_nonnull(
        strstr(r.verdict.text, "gemm takes 80% of the time (its time in gemm_nn, "));
    r.ops[1].total_ns = r.ops[1].self_ns = 400000;
    tp_analyze(&r);
    ck_assert_str_eq(r.verdict.op, "gemm_nn");
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "gemm_nn takes 32% of the time (its FLOPs or "
                                                 "bytes are unknown, so its bound is too)"));
    tp_report_free(&r);
}
END_TEST

/* With op calls as the unit, the split says why a block is persistent and never what it is: no
 * op that allocated anything means everything was allocated outside every op (darknet builds
 * its whole network before its first op). */
START_TEST(test_lifetime_outside_ops)
{
    struct tp_report r;
    model_a(&r);
    r.memory.lifetime_unit = strdup("op_call");
    r.memory.persistent_bytes = 5000;
    r.memory.transient_bytes = 0;
    for (size_t i = 0; i < r.nops; i++)
        r.ops[i].alloc_bytes = 0;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, " Of the peak, 4.88 KiB is persistent (allocated "
                                                 "outside every op) and 0 B transient. "));
    tp_report_free(&r);
    model_a(&r);
    r.memory.lifetime_unit = strdup("op_call");
    r.ops[0].alloc_bytes = 64;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(
        strstr(r.verdict.text, " Of the peak, 3.91 KiB is persistent (outlives the op call that "
                               "allocated it) and 1000 B transient (freed within its op call). "));
    tp_report_free(&r);
}
END_TEST

static void frame(struct tp_frame *f, const char *fn, const char *file, int line)
{
    f->function = strdup(fn);
    f->file = strdup(file);
    f->line = line;
}

/* One source line reached two ways (inlined into one caller, called from another): two sites,
 * one line in the verdict, with both sites' bytes; a larger single site of another line loses
 * to their sum. */
START_TEST(test_one_line_two_sites)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000;
    r.memory.peak_bytes = 10u << 20;
    r.memory.allocs = 3;
    r.memory.sites = calloc(3, sizeof *r.memory.sites);
    r.memory.nsites = 3;
    const char *callers[2] = {"layer_forward", "train_step"};
    for (int i = 0; i < 2; i++) {
        struct tp_site *s = &r.memory.sites[i];
        s->frames = calloc(2, sizeof *s->frames);
        s->nframes = 2;
        frame(&s->frames[0], "cache_activation", "/src/leaky.c", 25);
        frame(&s->frames[1], callers[i], "/src/leaky.c", 33 + i);
        s->live_at_peak_bytes = 3u << 20;
    }
    struct tp_site *s = &r.memory.sites[2];
    s->frames = calloc(1, sizeof *s->frames);
    s->nframes = 1;
    frame(&s->frames[0], "load_weights", "/src/leaky.c", 12);
    s->live_at_peak_bytes = 4u << 20;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(
        strstr(r.verdict.text,
               "The heap peaks at 10.0 MiB; 6.00 MiB of it from cache_activation (leaky.c:25)."));
    tp_report_free(&r);
}
END_TEST

static char *json_of(const struct tp_report *r)
{
    struct tp_buf b;
    tp_buf_init(&b);
    tp_render_json(r, &b);
    ck_assert(tp_buf_ok(&b));
    char *s = strdup(tp_buf_str(&b));
    tp_buf_free(&b);
    return s;
}

START_TEST(test_idempotent)
{
    struct tp_report r;
    model_a(&r);
    /* Threads overlap: self times add up to more than the wall. */
    add_op(&r, "worker_gemm", 1500000, 1500000, 0, 0);
    tp_analyze(&r);
    char *first = json_of(&r);
    tp_analyze(&r);
    tp_analyze(&r);
    char *third = json_of(&r);
    ck_assert_str_eq(first, third);
    ck_assert_uint_eq(r.nnotes, 1); /* the overlap note, once */
    ck_assert_ptr_nonnull(strstr(r.notes[0], "several threads"));
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 0);
    ck_assert_str_eq(r.verdict.op, "worker_gemm");
    ck_assert(r.verdict.share == 0.75);
    free(first);
    free(third);
    tp_report_free(&r);
}
END_TEST

/* A report without wall-clock times (a tprof before them) whose op ran on 3 threads: its self
 * time is read as one thread's, capped at the program's time; no 300%, no 1000000x. */
START_TEST(test_overlap_capped)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000;
    add_op(&r, "a", 3000, 3000, 0, 0); /* 3 threads' worth */
    tp_analyze(&r);
    ck_assert(r.ops[0].self_share == 3.0);
    ck_assert(r.ops[0].self_wall_share == 1.0);
    ck_assert(r.verdict.share == 1.0);
    ck_assert(r.verdict.amdahl[0].share == 1.0);
    ck_assert(r.verdict.amdahl[0].speedup_max == 0);
    ck_assert(r.verdict.amdahl[0].speedup_2x == 2);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "a takes 100% of the time ("));
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "has no bound here"));
    ck_assert_ptr_null(strstr(r.verdict.text, "threads at once"));
    ck_assert_ptr_null(strstr(r.verdict.text, "1000000"));
    ck_assert_uint_eq(r.nnotes, 1);
    tp_report_free(&r);
}
END_TEST

/* Two threads in conv at once: 1.8 ms of thread time (180% of the 1 ms program) in 0.9 ms of
 * wall-clock time; gemm alone on one thread 0.05 ms. The verdict says 90%, on 2 threads, and
 * Amdahl is bounded by the program's time: 1 / (1 - 0.9) = 10x. */
START_TEST(test_wall_clock_shares)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000;
    struct tp_op *o = add_op(&r, "net::conv_forward", 1800000, 1800000, 0, 0);
    o->wall_ns = o->self_wall_ns = 900000;
    o = add_op(&r, "gemm", 50000, 50000, 0, 0);
    o->wall_ns = o->self_wall_ns = 50000;
    o = add_op(&r, "busy_but_parallel", 1900000, 1900000, 0, 0); /* 4 threads, 0.475 ms */
    o->wall_ns = o->self_wall_ns = 475000;
    tp_analyze(&r);
    const struct tp_verdict *v = &r.verdict;
    ck_assert_str_eq(v->op, "net::conv_forward"); /* by wall-clock time, not thread time */
    ck_assert(r.ops[0].self_share == 1.8 && r.ops[0].self_wall_share == 0.9);
    ck_assert(v->share == 0.9);
    ck_assert(v->amdahl[0].share == 0.9);
    ck_assert(fabs(v->amdahl[0].speedup_max - 10) < 1e-9);
    ck_assert(fabs(v->amdahl[0].speedup_2x - 1 / (0.1 + 0.45)) < 1e-12);
    ck_assert_str_eq(v->amdahl[1].op, "busy_but_parallel");
    ck_assert_str_eq(v->amdahl[2].op, "gemm");
    ck_assert(v->amdahl[2].speedup_max == 1 / (1 - 0.05));
    ck_assert_ptr_nonnull(strstr(v->text, "net::conv_forward takes 90% of the time, on 2 threads "
                                          "at once (its FLOPs"));
    ck_assert_ptr_nonnull(strstr(v->text, "an infinitely fast one 10.00x."));
    /* Each op's wall-clock time once: 1 ms - (0.9 + 0.05 + 0.475) ms, floored at 0. */
    ck_assert_uint_eq(v->outside_ops_ns, 0);
    tp_report_free(&r);

    tp_report_init(&r);
    r.program.wall_ns = 1000000;
    o = add_op(&r, "a", 1790000, 1790000, 0, 0);
    o->wall_ns = o->self_wall_ns = 1000000; /* 1.79 threads on average, all the time */
    tp_analyze(&r);
    ck_assert(r.verdict.amdahl[0].speedup_max == 0);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "a takes 100% of the time, on 1.8 threads at "
                                                 "once on average"));
    tp_report_free(&r);
}
END_TEST

START_TEST(test_top_ten)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000;
    char name[16];
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "op%02d", i);
        add_op(&r, name, 1000 * (uint64_t)(i + 1), 1000 * (uint64_t)(i + 1), 0, 0);
    }
    add_op(&r, "tie_b", 5000, 5000, 0, 0);
    add_op(&r, "tie_a", 5000, 5000, 0, 0);
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.namdahl, 10);
    ck_assert_str_eq(r.verdict.amdahl[0].op, "op11");
    ck_assert_str_eq(r.verdict.amdahl[6].op, "op05");
    /* Equal self times: by name. */
    ck_assert_str_eq(r.verdict.amdahl[7].op, "op04");
    ck_assert_str_eq(r.verdict.amdahl[8].op, "tie_a");
    ck_assert_str_eq(r.verdict.amdahl[9].op, "tie_b");
    ck_assert(r.verdict.amdahl[0].share == 0.012);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_merged_shares)
{
    /* 4 processes of 1 s each side by side: gemm's 2 s of self time summed over them is half
     * of the 4 s they ran, not twice the wall time. */
    struct tp_report r;
    tp_report_init(&r);
    r.merged_processes = 4;
    r.program.wall_ns = 1000000000;
    add_op(&r, "gemm", 3000000000u, 2000000000u, 0, 0);
    tp_analyze(&r);
    ck_assert(r.ops[0].self_share == 0.5);
    ck_assert(r.ops[0].share == 0.75);
    ck_assert(r.verdict.amdahl[0].speedup_max == 2.0);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 2000000000u);
    ck_assert_uint_eq(r.nnotes, 0);
    /* A huge wall time saturates instead of wrapping. */
    r.program.wall_ns = UINT64_MAX / 2;
    tp_analyze(&r);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, UINT64_MAX - 2000000000u);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_heap_only)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000;
    r.memory.peak_bytes = 2048;
    r.memory.allocs = 3;
    tp_analyze(&r);
    ck_assert_ptr_null(r.verdict.op);
    ck_assert_ptr_null(r.verdict.bound);
    ck_assert_uint_eq(r.verdict.namdahl, 0);
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 1000);
    ck_assert_str_eq(r.verdict.text,
                     "No op was seen (no BLAS call, nothing matching TPROF_OPS, no annotated "
                     "region): this report covers the heap only. To time ops: call BLAS or the "
                     "model's library as a shared library, build with -finstrument-functions "
                     "and name functions in TPROF_OPS, or mark regions with tprof.h. The heap "
                     "peaks at 2.00 KiB.");
    tp_report_free(&r);
}
END_TEST

START_TEST(test_nothing_at_all)
{
    struct tp_report r;
    tp_report_init(&r);
    tp_analyze(&r);
    ck_assert_str_eq(r.verdict.text,
                     "No op was seen (no BLAS call, nothing matching TPROF_OPS, no annotated "
                     "region): this report covers the heap only. To time ops: call BLAS or the "
                     "model's library as a shared library, build with -finstrument-functions "
                     "and name functions in TPROF_OPS, or mark regions with tprof.h. No heap "
                     "allocation was seen.");
    ck_assert_uint_eq(r.verdict.outside_ops_ns, 0);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_zero_time_and_unknown_wall)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000;
    add_op(&r, "noop", 0, 0, 0, 0);
    tp_analyze(&r);
    ck_assert_ptr_null(r.verdict.op);
    ck_assert_uint_eq(r.verdict.namdahl, 1);
    ck_assert(r.verdict.amdahl[0].speedup_2x == 1.0);
    ck_assert_str_eq(r.verdict.text, "1 op ran but took no measurable time. No heap allocation "
                                     "was seen.");
    /* No wall time: the op is named, its share is not invented. */
    r.program.wall_ns = 0;
    r.ops[0].self_ns = r.ops[0].total_ns = 1500;
    tp_analyze(&r);
    ck_assert_str_eq(r.verdict.op, "noop");
    ck_assert(r.verdict.share == 0);
    ck_assert_str_eq(r.verdict.text, "noop takes the most time of all ops (1.50 us of self "
                                     "time); the wall time is unknown, so its share is too. No "
                                     "heap allocation was seen.");
    ck_assert_uint_eq(r.nnotes, 0);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_text_variants)
{
    struct tp_report r;
    model_a(&r);
    /* FLOPs far above what the peaks allow: say the peaks are wrong, not "5000%". */
    r.ops[1].flops = 5000000000u; /* 5000 GFLOP/s */
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "runs faster than this machine's peaks allow "
                                                 "(5000% of them at its arithmetic intensity, "
                                                 "compute-bound)"));
    /* ... naming where the peaks came from: given ones are named, no calibration advised. */
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "compute-bound): the 100 GFLOP/s given in "
                                                 "TPROF_PEAK_GFLOPS is below what it reached, or "
                                                 "its FLOP count is too high;"));
    ck_assert_ptr_null(strstr(r.verdict.text, "calibrate"));
    free(r.machine.source);
    r.machine.source = strdup("command line");
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "the 100 GFLOP/s given in --peak-gflops is"));
    free(r.machine.source);
    r.machine.source = strdup("quick-cache:/c/peaks-h");
    r.ops[1].flops = 105000000; /* 105%: above 100% is explained, however little */
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "(105% of them at its arithmetic intensity, "
                                                 "compute-bound): the quick measurement's peaks "
                                                 "are too low (run `tprof calibrate`) or its FLOP "
                                                 "count too high;"));
    r.ops[1].flops = 100400000; /* shown as 100%: nothing to explain */
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "runs at 100% of what this machine can do"));
    r.ops[1].flops = 5000000000u;
    free(r.machine.source);
    r.machine.source = strdup("env");
    /* No peaks. */
    r.machine.peak_gflops = 0;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "gemm takes 40% of the time (the machine's "
                                                 "peaks are unknown, so its bound is too); a 2x"));
    /* Dominant op without FLOPs. */
    r.ops[1].self_ns = 10;
    tp_analyze(&r);
    ck_assert_str_eq(r.verdict.op, "conv");
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "conv takes 25% of the time (its FLOPs or bytes "
                                                 "are unknown, so its bound is too)"));
    /* Mostly outside every op, and a busy allocator. */
    r.program.wall_ns = 16000000;
    r.memory.alloc_ns = 1600000;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "conv takes 3% of the time"));
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "Most of the time (96%) is spent outside every "
                                                 "op"));
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "The allocator itself takes ~1.60 ms (10.0% of "
                                                 "the time)."));
    /* A share under half a percent is "<1%", not "0%". */
    r.program.wall_ns = 2000000000;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "conv takes <1% of the time"));
    /* Merged: sites summed over processes hold more than the largest process's peak. */
    r.memory.sites[0].live_at_peak_bytes = 9000;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "; the site holding the most is load_weights "
                                                 "(model.c:99) via ex_alloc, with 8.79 KiB at "
                                                 "the peak."));
    r.merged_processes = 2;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "with 8.79 KiB at the peak (summed over the "
                                                 "processes)."));
    r.merged_processes = 0;
    /* A site without a stack is named as such; one block is "block". */
    tp_site_free_frames(&r.memory.sites[0]);
    r.memory.live_at_exit_allocs = 1;
    r.memory.live_at_exit_program_allocs = 1; /* the split the first tp_analyze filled in */
    r.memory.sites[0].live_at_peak_bytes = 3000;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "2.93 KiB of it from a site without a stack."));
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "At exit, program: 4.00 KiB in 1 block leaked."));
    /* Split: what system libraries keep and what was suppressed are not the program's leak. */
    r.memory.live_at_exit_program_bytes = 1024;
    r.memory.live_at_exit_program_allocs = 1;
    r.memory.live_at_exit_system_bytes = 2048;
    r.memory.live_at_exit_suppressed_bytes = 1024;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "At exit, program: 1.00 KiB in 1 block leaked; "
                                                 "system libraries keep 2.00 KiB; 1.00 KiB "
                                                 "suppressed (TPROF_SUPPRESS)."));
    r.memory.live_at_exit_program_bytes = 0;
    tp_analyze(&r);
    ck_assert_ptr_nonnull(strstr(r.verdict.text, "At exit, program: nothing leaked; system "
                                                 "libraries keep 2.00 KiB;"));
    tp_report_free(&r);
}
END_TEST

START_TEST(test_nan_inputs)
{
    struct tp_report r;
    model_a(&r);
    r.machine.peak_gflops = NAN;
    r.machine.peak_gbps = INFINITY;
    r.ops[0].latency.mean = NAN;
    r.ops[0].latency.stddev = INFINITY;
    r.ops[0].proc_mean_ns = NAN;
    r.ops[0].imbalance = -INFINITY;
    r.steps.count = 3;
    r.steps.latency.n = 2;
    r.steps.latency.mean = NAN;
    r.steps.latency.p50_ci_lo = NAN;
    tp_analyze(&r);
    for (size_t i = 0; i < r.nops; i++) {
        ck_assert_str_eq(r.ops[i].bound, "unknown");
        ck_assert(isfinite(r.ops[i].gflops) && isfinite(r.ops[i].efficiency));
    }
    char *j = json_of(&r);
    /* No number that is not JSON: nan, -nan, inf, -inf (printf), NaN, Infinity. */
    const char *bad[] = {":nan", ":-nan", ":inf", ":-inf", "NaN", "Infinity"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!strstr(j, bad[i]), "JSON holds %s", bad[i]);
    free(j);
    struct tp_buf b;
    tp_buf_init(&b);
    struct tp_text_opts o = {10, 100, 1};
    tp_render_text(&r, &o, &b);
    ck_assert(tp_buf_ok(&b));
    ck_assert_ptr_null(strstr(tp_buf_str(&b), "nan"));
    ck_assert_ptr_null(strstr(tp_buf_str(&b), "inf "));
    tp_buf_free(&b);
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("analyze");
    TCase *tc = tcase_create("analyze");
    tcase_add_test(tc, test_roofline_compute_bound);
    tcase_add_test(tc, test_roofline_memory_bound);
    tcase_add_test(tc, test_roofline_at_and_near_the_ridge);
    tcase_add_test(tc, test_roofline_unknown);
    tcase_add_test(tc, test_amdahl);
    tcase_add_test(tc, test_verdict_and_amdahl);
    tcase_add_test(tc, test_lifetime_outside_ops);
    tcase_add_test(tc, test_verdict_flops_parent);
    tcase_add_test(tc, test_one_line_two_sites);
    tcase_add_test(tc, test_idempotent);
    tcase_add_test(tc, test_overlap_capped);
    tcase_add_test(tc, test_wall_clock_shares);
    tcase_add_test(tc, test_top_ten);
    tcase_add_test(tc, test_merged_shares);
    tcase_add_test(tc, test_heap_only);
    tcase_add_test(tc, test_nothing_at_all);
    tcase_add_test(tc, test_zero_time_and_unknown_wall);
    tcase_add_test(tc, test_text_variants);
    tcase_add_test(tc, test_nan_inputs);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
