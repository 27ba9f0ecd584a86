/* Unit tests of the JSON reader (src/json_read.c): every key of tests/fixtures/full.json lands
 * in its field of the model; JSON -> model -> JSON -> model is the identity on every fixture;
 * defaults for missing keys; one exact line for each kind of bad input. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/read/read.h"
#include "report/render/render.h"

static char *fixture(const char *name)
{
    static char path[4096];
    const char *ts = getenv("TS");
    snprintf(path, sizeof path, "%s/fixtures/%s", ts ? ts : "tests", name);
    return path;
}

static void read_ok(const char *name, struct tp_report *r)
{
    char err[512] = "";
    int rc = tp_report_read_json(fixture(name), r, err, sizeof err);
    ck_assert_msg(rc == 0, "%s: %s", name, err);
}

#define EQ_U(a, b) ck_assert_uint_eq((a), (b))
#define EQ_I(a, b) ck_assert_int_eq((a), (b))
#define EQ_S(a, b) ck_assert_pstr_eq((a), (b))
#define EQ_D(a, b)                                                                                 \
    ck_assert_msg((a) == (b), "%s == %.17g, expected %.17g", #a, (double)(a), (double)(b))

START_TEST(test_json_read_every_key)
{
    struct tp_report r;
    read_ok("full.json", &r);
    EQ_I(r.schema, 1);
    EQ_S(r.tprof_version, "0.1.0-test");
    EQ_I(r.partial, 1);
    EQ_U(r.merged_processes, 4);
    EQ_U(r.nnotes, 2);
    EQ_S(r.notes[0], "first note");
    EQ_S(r.notes[1], "second note: \"quoted\" \\ and \xc3\xa9");

    EQ_U(r.program.argc, 3);
    EQ_S(r.program.argv[0], "./infer");
    EQ_S(r.program.argv[1], "--model");
    EQ_S(r.program.argv[2], "/data/m.bin");
    EQ_S(r.program.exe, "/usr/local/bin/infer");
    EQ_S(r.program.host, "gpu-node-7");
    EQ_I(r.program.pid, 4242);
    EQ_I(r.program.ppid, 4241);
    EQ_I(r.program.rank, 3);
    EQ_U(r.program.wall_ns, 9876543210ull);
    EQ_U(r.program.threads, 12);
    EQ_U(r.program.start_unix_ns, 1712345678901234567ull);

    EQ_D(r.machine.peak_gflops, 1234.5);
    EQ_D(r.machine.peak_gbps, 98.25);
    EQ_S(r.machine.source, "cache:/root/.cache/tprof/gpu-node-7.json");

    EQ_U(r.nops, 2);
    const struct tp_op *o = &r.ops[0];
    EQ_S(o->name, "cblas_sgemm");
    EQ_S(o->kind, "matmul");
    EQ_S(o->source, "blas");
    EQ_U(o->calls, 1001);
    EQ_U(o->total_ns, 5000000007ull);
    EQ_U(o->self_ns, 4000000003ull);
    EQ_U(o->flops, 18446744073709551000ull);
    EQ_U(o->bytes, 123456789012ull);
    EQ_I(o->flops_known, 1);
    EQ_U(o->warmup_calls, 3);
    EQ_U(o->warmup_ns, 777);
    EQ_D(o->gflops, 3.6893488147419103e9);
    EQ_D(o->intensity, 149418395.75);
    EQ_D(o->attainable_gflops, 1234.5);
    EQ_D(o->efficiency, 0.25);
    EQ_D(o->share, 0.5062500007);
    EQ_D(o->self_share, 0.40500000030375);
    EQ_S(o->bound, "compute");
    EQ_U(o->alloc_bytes, 65536);
    EQ_U(o->alloc_count, 17);
    EQ_U(o->nprocs, 4);
    EQ_D(o->proc_min_ns, 1000000000.5);
    EQ_D(o->proc_mean_ns, 1250000001.75);
    EQ_D(o->proc_max_ns, 1600000000.25);
    EQ_D(o->imbalance, 1.28);
    EQ_U(o->latency.n, 998);
    EQ_U(o->latency.min, 101);
    EQ_U(o->latency.p50, 202);
    EQ_U(o->latency.p95, 303);
    EQ_U(o->latency.p99, 404);
    EQ_U(o->latency.max, 505);
    EQ_D(o->latency.mean, 250.125);
    EQ_D(o->latency.stddev, 33.5);
    EQ_D(o->latency.p50_ci_lo, 199.5);
    EQ_D(o->latency.p50_ci_hi, 204.75);
    EQ_U(o->nshapes, 2);
    const struct tp_shape *s = &o->shapes[0];
    EQ_S(s->desc, "512x512x64 NT row");
    EQ_I(s->m, 512);
    EQ_I(s->n, 512);
    EQ_I(s->k, 64);
    EQ_I(s->transa, 'N');
    EQ_I(s->transb, 'T');
    EQ_I(s->layout, 'R');
    EQ_U(s->calls, 1000);
    EQ_U(s->total_ns, 4999999000ull);
    EQ_U(s->flops, 33554432000ull);
    EQ_U(s->bytes, 1441792000ull);
    s = &o->shapes[1];
    EQ_S(s->desc, "gemv 4096x1 col");
    EQ_I(s->m, 4096);
    EQ_I(s->n, 1);
    EQ_I(s->k, 0);
    EQ_I(s->transa, 'C');
    EQ_I(s->transb, 0);
    EQ_I(s->layout, 'C');
    EQ_U(s->calls, 1);
    EQ_U(s->total_ns, 1007);
    EQ_U(s->flops, 8192);
    EQ_U(s->bytes, 16392);
    o = &r.ops[1];
    EQ_S(o->name, "softmax");
    EQ_I(o->flops_known, 0);
    EQ_U(o->calls, 2);
    EQ_D(o->share, 2.0e-9);
    EQ_S(o->bound, "unknown");
    EQ_U(o->nshapes, 0);
    EQ_D(o->latency.mean, 10);

    const struct tp_memory *m = &r.memory;
    EQ_U(m->peak_bytes, 1073741824ull);
    EQ_U(m->peak_ns, 4500000000ull);
    EQ_S(m->peak_op, "cblas_sgemm");
    EQ_U(m->allocs, 100003);
    EQ_U(m->frees, 99990);
    EQ_U(m->bytes_allocated, 21474836480ull);
    EQ_U(m->live_at_exit_bytes, 4096);
    EQ_U(m->live_at_exit_allocs, 13);
    EQ_U(m->peak_rss_bytes, 1200000000ull);
    EQ_U(m->unknown_frees, 5);
    EQ_U(m->failed_allocs, 2);
    EQ_U(m->alloc_ns, 31415926);
    EQ_U(m->persistent_bytes, 805306368ull);
    EQ_U(m->transient_bytes, 268435456ull);
    EQ_U(m->nsites_total, 40);
    EQ_U(m->nsites, 2);
    const struct tp_site *st = &m->sites[0];
    EQ_U(st->nframes, 2);
    EQ_S(st->frames[0].function, "load_weights");
    EQ_S(st->frames[0].file, "/src/infer/weights.c");
    EQ_I(st->frames[0].line, 120);
    EQ_S(st->frames[0].module, "/usr/local/bin/infer");
    EQ_U(st->frames[0].offset, 74565);
    EQ_S(st->frames[1].function, NULL);
    EQ_S(st->frames[1].file, NULL);
    EQ_I(st->frames[1].line, 0);
    EQ_S(st->frames[1].module, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    EQ_U(st->frames[1].offset, 171000);
    EQ_U(st->allocs, 3);
    EQ_U(st->frees, 0);
    EQ_U(st->bytes, 805306368ull);
    EQ_U(st->peak_live_bytes, 805306368ull);
    EQ_U(st->live_at_peak_bytes, 805306368ull);
    EQ_U(st->live_at_exit_bytes, 0);
    EQ_U(st->live_at_exit_allocs, 0);
    st = &m->sites[1];
    EQ_U(st->nframes, 0);
    EQ_U(st->allocs, 100000);
    EQ_U(st->frees, 99990);
    EQ_U(st->bytes, 20669530112ull);
    EQ_U(st->peak_live_bytes, 300000000);
    EQ_U(st->live_at_peak_bytes, 268435456);
    EQ_U(st->live_at_exit_bytes, 4096);
    EQ_U(st->live_at_exit_allocs, 13);

    EQ_S(r.steps.name, "train_step");
    EQ_U(r.steps.count, 50);
    EQ_U(r.steps.warmup, 5);
    EQ_U(r.steps.latency.n, 45);
    EQ_U(r.steps.latency.min, 1000);
    EQ_U(r.steps.latency.p50, 2000);
    EQ_U(r.steps.latency.p95, 3000);
    EQ_U(r.steps.latency.p99, 4000);
    EQ_U(r.steps.latency.max, 5000);
    EQ_D(r.steps.latency.mean, 2222.25);
    EQ_D(r.steps.latency.stddev, 111.5);
    EQ_D(r.steps.latency.p50_ci_lo, 1990);
    EQ_D(r.steps.latency.p50_ci_hi, 2010);
    EQ_I(r.steps.window_first, 10);
    EQ_I(r.steps.window_last, 59);

    const struct tp_verdict *v = &r.verdict;
    EQ_S(v->op, "cblas_sgemm");
    EQ_D(v->share, 0.405);
    EQ_S(v->bound, "compute");
    EQ_D(v->efficiency, 0.25);
    EQ_S(v->text, "cblas_sgemm takes 41% of the time.");
    EQ_U(v->outside_ops_ns, 5876543197ull);
    EQ_U(v->alloc_ns, 31415926);
    EQ_U(v->namdahl, 2);
    EQ_S(v->amdahl[0].op, "cblas_sgemm");
    EQ_D(v->amdahl[0].share, 0.405);
    EQ_D(v->amdahl[0].speedup_2x, 1.2539184952978055);
    EQ_D(v->amdahl[0].speedup_max, 1.680672268907563);
    EQ_S(v->amdahl[1].op, "softmax");
    EQ_D(v->amdahl[1].share, 1.0e-9);
    EQ_D(v->amdahl[1].speedup_2x, 1.0000000005);
    EQ_D(v->amdahl[1].speedup_max, 1.000000001);

    EQ_U(r.nmodules, 2);
    EQ_S(r.modules[0].path, "/usr/local/bin/infer");
    EQ_S(r.modules[0].build_id, "82769dc630278750275a09199eb1e1e1bddbb69b");
    EQ_U(r.modules[0].base, 94087989841920ull);
    EQ_U(r.modules[0].lo, 94087989841920ull);
    EQ_U(r.modules[0].hi, 94087989858416ull);
    EQ_I(r.modules[0].departed, 0);
    EQ_S(r.modules[1].path, "/opt/plugins/libconv.so");
    EQ_S(r.modules[1].build_id, NULL);
    EQ_I(r.modules[1].departed, 1);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_json_read_defaults)
{
    struct tp_report r;
    char err[256];
    static const char doc[] = "{\"schema\": 1, \"ops\": [{\"name\": \"x\"}], "
                              "\"memory\": {\"sites\": [{}]}, \"program\": null}";
    ck_assert_int_eq(tp_report_parse_json("d.json", doc, strlen(doc), &r, err, sizeof err), 0);
    EQ_I(r.program.pid, -1);
    EQ_I(r.program.ppid, -1);
    EQ_I(r.program.rank, 0);
    /* a report before these: the main thread's share inside ops and the runtimes unknown */
    EQ_I(r.program.main_in_ops_ns, -1);
    EQ_S(r.program.thread_runtimes, NULL);
    EQ_U(r.program.argc, 0);
    EQ_S(r.program.exe, NULL);
    EQ_S(r.machine.source, NULL);
    EQ_D(r.machine.peak_gflops, 0);
    EQ_U(r.nops, 1);
    EQ_S(r.ops[0].name, "x");
    EQ_S(r.ops[0].kind, NULL);
    EQ_S(r.ops[0].bound, NULL);
    EQ_U(r.ops[0].calls, 0);
    EQ_U(r.ops[0].nshapes, 0);
    EQ_U(r.memory.nsites, 1);
    EQ_U(r.memory.sites[0].nframes, 0);
    EQ_I(r.steps.window_first, -1);
    EQ_I(r.steps.window_last, -1);
    EQ_S(r.steps.name, NULL);
    EQ_U(r.verdict.namdahl, 0);
    EQ_U(r.nnotes, 0);
    EQ_U(r.nmodules, 0); /* a report from before the module list */
    tp_report_free(&r);
}
END_TEST

/* ---- round trip ---- */

static void same_str(const char *what, const char *a, const char *b)
{
    ck_assert_msg((!a && !b) || (a && b && !strcmp(a, b)), "%s: \"%s\" != \"%s\"", what,
                  a ? a : "(null)", b ? b : "(null)");
}

#define SAME_U(f)                                                                                  \
    ck_assert_msg(x->f == y->f, "%s: %s: %llu != %llu", where, #f, (unsigned long long)x->f,       \
                  (unsigned long long)y->f)
#define SAME_D(f)                                                                                  \
    ck_assert_msg(x->f == y->f, "%s: %s: %.17g != %.17g", where, #f, (double)x->f, (double)y->f)
#define SAME_S(f) same_str(#f, x->f, y->f)

static void same_latency(const char *where, const struct tp_latency *x, const struct tp_latency *y)
{
    SAME_U(n);
    SAME_U(min);
    SAME_U(p50);
    SAME_U(p95);
    SAME_U(p99);
    SAME_U(max);
    SAME_D(mean);
    SAME_D(stddev);
    SAME_D(p50_ci_lo);
    SAME_D(p50_ci_hi);
}

static void same_op(const char *where, const struct tp_op *x, const struct tp_op *y)
{
    SAME_S(name);
    SAME_S(kind);
    SAME_S(source);
    SAME_U(calls);
    SAME_U(total_ns);
    SAME_U(self_ns);
    SAME_U(flops);
    SAME_U(bytes);
    SAME_U(flops_known);
    SAME_U(warmup_calls);
    SAME_U(warmup_ns);
    SAME_D(gflops);
    SAME_D(intensity);
    SAME_D(attainable_gflops);
    SAME_D(efficiency);
    SAME_D(share);
    SAME_D(self_share);
    SAME_S(bound);
    SAME_U(alloc_bytes);
    SAME_U(alloc_count);
    SAME_U(nprocs);
    SAME_D(proc_min_ns);
    SAME_D(proc_mean_ns);
    SAME_D(proc_max_ns);
    SAME_D(imbalance);
    same_latency(where, &x->latency, &y->latency);
    SAME_U(nshapes);
    for (size_t i = 0; i < x->nshapes; i++) {
        const struct tp_shape *a = &x->shapes[i], *b = &y->shapes[i];
        same_str("desc", a->desc, b->desc);
        ck_assert(a->m == b->m && a->n == b->n && a->k == b->k);
        ck_assert(a->transa == b->transa && a->transb == b->transb && a->layout == b->layout);
        ck_assert(a->calls == b->calls && a->total_ns == b->total_ns);
        ck_assert(a->flops == b->flops && a->bytes == b->bytes);
    }
}

static void same_site(const char *where, const struct tp_site *x, const struct tp_site *y)
{
    SAME_U(nframes);
    for (size_t i = 0; i < x->nframes; i++) {
        same_str("function", x->frames[i].function, y->frames[i].function);
        same_str("file", x->frames[i].file, y->frames[i].file);
        same_str("module", x->frames[i].module, y->frames[i].module);
        ck_assert_int_eq(x->frames[i].line, y->frames[i].line);
        ck_assert_uint_eq(x->frames[i].offset, y->frames[i].offset);
    }
    SAME_U(allocs);
    SAME_U(frees);
    SAME_U(bytes);
    SAME_U(peak_live_bytes);
    SAME_U(live_at_peak_bytes);
    SAME_U(live_at_exit_bytes);
    SAME_U(live_at_exit_allocs);
}

static void same_report(const char *where, const struct tp_report *x, const struct tp_report *y)
{
    SAME_U(schema);
    SAME_S(tprof_version);
    SAME_U(partial);
    SAME_U(merged_processes);
    SAME_U(nnotes);
    for (size_t i = 0; i < x->nnotes; i++)
        same_str("note", x->notes[i], y->notes[i]);
    SAME_U(program.argc);
    for (size_t i = 0; i < x->program.argc; i++)
        same_str("argv", x->program.argv[i], y->program.argv[i]);
    SAME_S(program.exe);
    SAME_S(program.host);
    SAME_U(program.pid);
    SAME_U(program.ppid);
    SAME_U(program.rank);
    SAME_U(program.wall_ns);
    SAME_U(program.threads);
    SAME_U(program.start_unix_ns);
    SAME_D(machine.peak_gflops);
    SAME_D(machine.peak_gbps);
    SAME_S(machine.source);
    SAME_U(nops);
    for (size_t i = 0; i < x->nops; i++)
        same_op(where, &x->ops[i], &y->ops[i]);
    SAME_U(memory.peak_bytes);
    SAME_U(memory.peak_ns);
    SAME_S(memory.peak_op);
    SAME_U(memory.allocs);
    SAME_U(memory.frees);
    SAME_U(memory.bytes_allocated);
    SAME_U(memory.live_at_exit_bytes);
    SAME_U(memory.live_at_exit_allocs);
    SAME_U(memory.peak_rss_bytes);
    SAME_U(memory.unknown_frees);
    SAME_U(memory.failed_allocs);
    SAME_U(memory.alloc_ns);
    SAME_U(memory.persistent_bytes);
    SAME_U(memory.transient_bytes);
    SAME_U(memory.nsites_total);
    SAME_U(memory.nsites);
    for (size_t i = 0; i < x->memory.nsites; i++)
        same_site(where, &x->memory.sites[i], &y->memory.sites[i]);
    SAME_S(steps.name);
    SAME_U(steps.count);
    SAME_U(steps.warmup);
    same_latency(where, &x->steps.latency, &y->steps.latency);
    SAME_U(steps.window_first);
    SAME_U(steps.window_last);
    SAME_S(verdict.op);
    SAME_D(verdict.share);
    SAME_S(verdict.bound);
    SAME_D(verdict.efficiency);
    SAME_S(verdict.text);
    SAME_U(verdict.outside_ops_ns);
    SAME_U(verdict.alloc_ns);
    SAME_U(verdict.namdahl);
    for (size_t i = 0; i < x->verdict.namdahl; i++) {
        same_str("amdahl.op", x->verdict.amdahl[i].op, y->verdict.amdahl[i].op);
        ck_assert(x->verdict.amdahl[i].share == y->verdict.amdahl[i].share);
        ck_assert(x->verdict.amdahl[i].speedup_2x == y->verdict.amdahl[i].speedup_2x);
        ck_assert(x->verdict.amdahl[i].speedup_max == y->verdict.amdahl[i].speedup_max);
    }
    SAME_U(nmodules);
    for (size_t i = 0; i < x->nmodules; i++) {
        same_str("modules.path", x->modules[i].path, y->modules[i].path);
        same_str("modules.build_id", x->modules[i].build_id, y->modules[i].build_id);
        SAME_U(modules[i].base);
        SAME_U(modules[i].lo);
        SAME_U(modules[i].hi);
        SAME_U(modules[i].departed);
    }
}

static const char *const fixtures[] = {"full.json", "a.json", "b.json", "c.json"};

/* file -> model -> JSON -> model: the same model; and the JSON of that is the same bytes. */
START_TEST(test_json_read_round_trip)
{
    struct tp_report r1, r2, r3;
    struct tp_buf b1, b2;
    char err[512] = "";
    read_ok(fixtures[_i], &r1);
    if (_i > 0) /* the sparse fixtures: fill the derived figures first, as `tprof report` does */
        tp_analyze(&r1);
    tp_buf_init(&b1);
    tp_render_json(&r1, &b1);
    ck_assert(tp_buf_ok(&b1));
    ck_assert_msg(tp_report_parse_json("rt.json", b1.p, b1.len, &r2, err, sizeof err) == 0, "%s",
                  err);
    same_report(fixtures[_i], &r1, &r2);
    tp_buf_init(&b2);
    tp_render_json(&r2, &b2);
    ck_assert_uint_eq(b1.len, b2.len);
    ck_assert(memcmp(b1.p, b2.p, b1.len) == 0);
    ck_assert(tp_report_parse_json("rt2.json", b2.p, b2.len, &r3, err, sizeof err) == 0);
    same_report(fixtures[_i], &r2, &r3);
    tp_buf_free(&b1);
    tp_buf_free(&b2);
    tp_report_free(&r1);
    tp_report_free(&r2);
    tp_report_free(&r3);
}
END_TEST

/* ---- bad input: exact messages ---- */

static const struct {
    const char *doc, *msg;
} bad[] = {
    {"", "x.json: empty file"},
    {" \n\t", "x.json: empty file (white space only)"},
    {"{\"schema\": 1, \"ops\": [", "x.json: truncated (the JSON ends early, at line 1)"},
    {"{\"schema\": 1,\n\"program\": {\"argv\": [\"a\"",
     "x.json: truncated (the JSON ends early, at line 2)"},
    {"this is not json", "x.json: not JSON (line 1, column 2: boolean expected)"},
    {"{\"schema\": 1,\n\n  \"ops\": [1,]}",
     "x.json: not JSON (line 3, column 13: unexpected character)"},
    {"{\"schema\": 1}\n{\"schema\": 1}",
     "x.json: not JSON (line 2, column 1: more data after the report)"},
    {"{\"schema\": 1}\n\x00\x01", "x.json: not JSON (line 2, column 1: a NUL byte; binary data?)"},
    {"{\"schema\": 1, \"notes\": [\"\xff\"]}",
     "x.json: not JSON (line 1, column 26: invalid utf-8 string)"},
    {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
     "x.json: not a tprof report (line 1, column 17: nested deeper than 16 levels)"},
    {"[1, 2, 3]", "x.json: not a tprof report (the top level is an array, not an object)"},
    {"42", "x.json: not a tprof report (the top level is 42, not an object)"},
    {"{\"ops\": []}", "x.json: not a tprof report (no \"schema\" key)"},
    {"{\"schema\": \"1\"}", "x.json: schema: expected an integer, found a string"},
    {"{\"schema\": 2}", "x.json: schema 2 is newer than this tprof understands (1)"},
    {"{\"schema\": 0}", "x.json: schema 0 is not a tprof schema (this tprof reads 1)"},
    {"{\"schema\": 1, \"ops\": {}}", "x.json: ops: expected an array, found an object"},
    {"{\"schema\": 1, \"ops\": [7]}", "x.json: ops[0]: expected an object, found 7"},
    {"{\"schema\": 1, \"ops\": [{\"calls\": 1}]}", "x.json: ops[0]: an op needs a \"name\""},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}, "
     "{\"name\": \"d\", \"calls\": \"ten\"}]}",
     "x.json: ops[3].calls: expected an unsigned integer, found a string"},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"calls\": -10}]}",
     "x.json: ops[0].calls: expected an unsigned integer, found -10"},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"calls\": 1.5}]}",
     "x.json: ops[0].calls: expected an unsigned integer, found 1.5"},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"calls\": 99999999999999999999999}]}",
     "x.json: ops[0].calls: number out of range (the largest is 18446744073709551614)"},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"gflops\": 1e999}]}",
     "x.json: ops[0].gflops: expected a finite number, found inf"},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"gflops\": NaN}]}",
     "x.json: ops[0].gflops: expected a finite number, found nan"},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"latency_ns\": {\"p99\": true}}]}",
     "x.json: ops[0].latency_ns.p99: expected an unsigned integer, found true"},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"shapes\": [{\"transa\": \"NT\"}]}]}",
     "x.json: ops[0].shapes[0].transa: expected a one-character string, found \"NT\""},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"shapes\": [{\"transb\": \" \\n\"}]}]}",
     "x.json: ops[0].shapes[0].transb: expected a one-character string, found \" \\x0a\""},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"latency_ns\": {\"mean\": -1}}]}",
     "x.json: ops[0].latency_ns.mean: expected nanoseconds (0 to 2^64), found -1"},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"proc_max_ns\": 1e20}]}",
     "x.json: ops[0].proc_max_ns: expected nanoseconds (0 to 2^64), found 1e+20"},
    {"{\"schema\": 1, \"ops\": [{\"name\": \"a\", \"flops_known\": \"yes\"}]}",
     "x.json: ops[0].flops_known: expected true or false, found a string"},
    {"{\"schema\": 1, \"program\": {\"pid\": 9223372036854775808}}",
     "x.json: program.pid: number out of range for a signed 64-bit integer"},
    {"{\"schema\": 1, \"program\": {\"argv\": [\"a\", 2]}}",
     "x.json: program.argv[1]: expected a string, found 2"},
    {"{\"schema\": 1, \"program\": []}", "x.json: program: expected an object, found an array"},
    {"{\"schema\": 1, \"notes\": \"hi\"}", "x.json: notes: expected an array, found a string"},
    {"{\"schema\": 1, \"memory\": {\"sites\": [{\"frames\": [{\"line\": -3}]}]}}",
     "x.json: memory.sites[0].frames[0].line: expected a line number (0 to 2147483647), found -3"},
    {"{\"schema\": 1, \"memory\": {\"sites\": [{\"frames\": [null]}]}}",
     "x.json: memory.sites[0].frames[0]: expected an object, found null"},
    {"{\"schema\": 1, \"record\": {\"version\": 1, \"frame_modules\": [\"/a\"]}, "
     "\"memory\": {\"sites\": [\"1 2 3 4 5 6 7|0:10\", \"1 2 3|0:10\"]}}",
     "x.json: memory.sites[1]: a record's site: expected 7 counts, then \"|\": \"3|0:10\""},
    {"{\"schema\": 1, \"record\": {\"version\": 1, \"frame_modules\": [\"/a\"]}, "
     "\"memory\": {\"sites\": [\"1 2 3 4 5 6 7|0:zz\"]}}",
     "x.json: memory.sites[0]: \"at\": expected a hex offset, found \"zz\""},
    {"{\"schema\": 1, \"record\": {\"version\": 1, \"frame_modules\": [\"/a\"]}, "
     "\"memory\": {\"sites\": [\"1 2 3 4 5 6 7|1:10\"]}}",
     "x.json: memory.sites[0]: \"at\": expected module:offset, found \"1:10\""},
    {"{\"schema\": 1, \"memory\": {\"sites\": [\"1 2 3 4 5 6 7|0:10\"]}}",
     "x.json: memory.sites[0]: expected an object, found a string"},
    {"{\"schema\": 1, \"steps\": {\"window_first\": 1.0}}",
     "x.json: steps.window_first: expected an integer, found 1"},
    {"{\"schema\": 1, \"verdict\": {\"amdahl\": [{\"speedup_2x\": \"x\"}]}}",
     "x.json: verdict.amdahl[0].speedup_2x: expected a number, found a string"},
};

/* A record's sites as strings (render_json.c): each count in its field, the frames by module. */
START_TEST(test_json_read_record_sites)
{
    struct tp_report r;
    char err[256];
    static const char doc[] =
        "{\"schema\": 1, \"record\": {\"version\": 1, \"last\": true, \"frame_modules\": "
        "[\"/x/a.out\", \"/lib/libc.so.6\"]}, \"memory\": {\"sites\": [\"3 1 96 64 64 32 "
        "1|0:1234 1:10f0 -:ff\", {\"at\": \"1:2\", \"allocs\": 5, \"role\": \"tensor\"}]}}";
    ck_assert_int_eq(tp_report_parse_json("r.json", doc, strlen(doc), &r, err, sizeof err), 0);
    EQ_U(r.memory.nsites, 2);
    const struct tp_site *s = &r.memory.sites[0];
    EQ_U(s->allocs, 3);
    EQ_U(s->frees, 1);
    EQ_U(s->bytes, 96);
    EQ_U(s->peak_live_bytes, 64);
    EQ_U(s->live_at_peak_bytes, 64);
    EQ_U(s->live_at_exit_bytes, 32);
    EQ_U(s->live_at_exit_allocs, 1);
    EQ_U(s->nframes, 3);
    EQ_S(s->frames[0].module, "/x/a.out");
    EQ_U(s->frames[0].offset, 0x1234);
    EQ_S(s->frames[1].module, "/lib/libc.so.6");
    EQ_U(s->frames[1].offset, 0x10f0);
    EQ_S(s->frames[2].module, NULL);
    EQ_U(s->frames[2].offset, 0xff);
    EQ_U(r.memory.sites[1].allocs, 5);
    EQ_S(r.memory.sites[1].frames[0].module, "/lib/libc.so.6");
    tp_report_free(&r);
}
END_TEST

START_TEST(test_json_read_bad)
{
    struct tp_report r;
    char err[512] = "";
    size_t len = strlen(bad[_i].doc);
    if (strstr(bad[_i].msg, "NUL byte"))
        len += 2; /* the NUL and the byte after it */
    int rc = tp_report_parse_json("x.json", bad[_i].doc, len, &r, err, sizeof err);
    ck_assert_msg(rc == -1, "accepted: %s", bad[_i].doc);
    ck_assert_str_eq(err, bad[_i].msg);
    ck_assert(strchr(err, '\n') == NULL);
    /* nothing half-read */
    ck_assert_uint_eq(r.nops, 0);
    ck_assert_ptr_null(r.ops);
    ck_assert_ptr_null(r.program.argv);
}
END_TEST

START_TEST(test_json_read_files)
{
    struct tp_report r;
    char err[512];
    ck_assert_int_eq(tp_report_read_json("/nonexistent/run.json", &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "/nonexistent/run.json: cannot open: No such file or directory");
    ck_assert_int_eq(tp_report_read_json("/", &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "/: is a directory, not a report");
    ck_assert_int_eq(tp_report_read_json("/dev/zero", &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "/dev/zero: not JSON (line 1, column 1: a NUL byte; binary data?)");
    ck_assert_int_eq(tp_report_read_json("/dev/null", &r, err, sizeof err), -1);
    ck_assert_str_eq(err, "/dev/null: empty file");
    /* A tiny error buffer truncates the message, never overflows. */
    char tiny[8];
    ck_assert_int_eq(tp_report_read_json("/nonexistent/run.json", &r, tiny, sizeof tiny), -1);
    ck_assert_str_eq(tiny, "/nonexi");
}
END_TEST

static Suite *json_read_suite(void)
{
    Suite *s = suite_create("json_read");
    TCase *tc = tcase_create("Core");
    tcase_add_test(tc, test_json_read_every_key);
    tcase_add_test(tc, test_json_read_defaults);
    tcase_add_test(tc, test_json_read_record_sites);
    tcase_add_loop_test(tc, test_json_read_round_trip, 0,
                        (int)(sizeof fixtures / sizeof fixtures[0]));
    suite_add_tcase(s, tc);
    TCase *bad_tc = tcase_create("Bad input");
    tcase_add_loop_test(bad_tc, test_json_read_bad, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(bad_tc, test_json_read_files);
    suite_add_tcase(s, bad_tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(json_read_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
