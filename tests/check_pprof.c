/* The pprof profiles (report/pprof/render_pprof.c) of hand-made reports, unpacked again: the
 * sample types and their default, an inline chain as one location's lines, a frame no symbol
 * covers, mappings with build-ids and the frames' addresses in them, rolled-up sites and the part
 * of each total no site holds, the op stacks' values and kinds, the time outside ops split by CPU
 * samples to the nanosecond, and the labels and comments every profile has. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/buf.h"
#include "report/pprof/profile.pb-c.h"
#include "report/pprof/pprof.h"
#include "report/report.h"
#include "report/siterollup.h"

typedef Perftools__Profiles__Profile Profile;

static Profile *render(const struct tp_report *r, enum tp_pprof_kind kind)
{
    struct tp_buf b;
    tp_buf_init(&b);
    ck_assert_int_eq(tp_render_pprof(r, kind, &b), 0);
    ck_assert_uint_ge(b.len, 2);
    ck_assert_int_eq((unsigned char)b.p[0], 0x1f); /* a gzip member */
    ck_assert_int_eq((unsigned char)b.p[1], 0x8b);
    z_stream z;
    memset(&z, 0, sizeof z);
    ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
    size_t cap = 1 << 20;
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)b.p;
    z.avail_in = (uInt)b.len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = cap - z.avail_out;
    inflateEnd(&z);
    Profile *p = perftools__profiles__profile__unpack(NULL, n, out);
    ck_assert_ptr_nonnull(p);
    free(out);
    tp_buf_free(&b);
    ck_assert_uint_ge(p->n_string_table, 1);
    ck_assert_str_eq(p->string_table[0], "");
    return p;
}

static const char *S(const Profile *p, int64_t i)
{
    ck_assert_int_ge(i, 0);
    ck_assert_uint_lt((size_t)i, p->n_string_table);
    return p->string_table[i];
}

static const Perftools__Profiles__Location *loc(const Profile *p, uint64_t id)
{
    for (size_t i = 0; i < p->n_location; i++)
        if (p->location[i]->id == id)
            return p->location[i];
    ck_abort_msg("no location %llu", (unsigned long long)id);
    return NULL;
}

static const Perftools__Profiles__Function *fn(const Profile *p, uint64_t id)
{
    for (size_t i = 0; i < p->n_function; i++)
        if (p->function[i]->id == id)
            return p->function[i];
    ck_abort_msg("no function %llu", (unsigned long long)id);
    return NULL;
}

/* A sample's frames, root first, each location's lines from its caller to the innermost inlined
 * function, joined by ';' (name:line, or name alone for line 0). */
static char *stack(const Profile *p, const Perftools__Profiles__Sample *s)
{
    struct tp_buf b;
    tp_buf_init(&b);
    for (size_t i = s->n_location_id; i-- > 0;) {
        const Perftools__Profiles__Location *l = loc(p, s->location_id[i]);
        for (size_t j = l->n_line; j-- > 0;) {
            const Perftools__Profiles__Function *f = fn(p, l->line[j]->function_id);
            tp_buf_printf(&b, "%s%s", b.len ? ";" : "", S(p, f->name));
            if (l->line[j]->line)
                tp_buf_printf(&b, ":%lld", (long long)l->line[j]->line);
        }
    }
    char *out = strdup(tp_buf_str(&b));
    tp_buf_free(&b);
    return out;
}

/* The sample whose stack is want; its index, failing when none or two. */
static size_t find(const Profile *p, const char *want)
{
    size_t at = SIZE_MAX;
    for (size_t i = 0; i < p->n_sample; i++) {
        char *s = stack(p, p->sample[i]);
        if (!strcmp(s, want)) {
            ck_assert_msg(at == SIZE_MAX, "two samples %s", want);
            at = i;
        }
        free(s);
    }
    ck_assert_msg(at != SIZE_MAX, "no sample %s", want);
    return at;
}

static const char *label_str(const Profile *p, const Perftools__Profiles__Sample *s, const char *k)
{
    for (size_t i = 0; i < s->n_label; i++)
        if (!strcmp(S(p, s->label[i]->key), k))
            return S(p, s->label[i]->str);
    return NULL;
}

static int64_t label_num(const Profile *p, const Perftools__Profiles__Sample *s, const char *k,
                         const char *unit)
{
    for (size_t i = 0; i < s->n_label; i++)
        if (!strcmp(S(p, s->label[i]->key), k)) {
            ck_assert_str_eq(S(p, s->label[i]->num_unit), unit);
            return s->label[i]->num;
        }
    return -1;
}

static void frame(struct tp_frame *f, const char *fn, const char *file, int line,
                  const char *module, uint64_t offset, int inlined)
{
    f->function = fn ? strdup(fn) : NULL;
    f->file = file ? strdup(file) : NULL;
    f->line = line;
    f->module = module ? strdup(module) : NULL;
    f->offset = offset;
    f->inlined = inlined;
}

static struct tp_site *add_site(struct tp_report *r, size_t nframes, uint64_t allocs,
                                uint64_t bytes, uint64_t at_exit, uint64_t at_peak)
{
    struct tp_memory *m = &r->memory;
    m->sites = realloc(m->sites, (m->nsites + 1) * sizeof *m->sites);
    struct tp_site *s = &m->sites[m->nsites++];
    memset(s, 0, sizeof *s);
    s->frames = calloc(nframes, sizeof *s->frames);
    s->nframes = nframes;
    s->allocs = allocs;
    s->bytes = bytes;
    s->live_at_exit_bytes = at_exit;
    s->live_at_peak_bytes = at_peak;
    return s;
}

static void program(struct tp_report *r)
{
    r->tprof_version = strdup("9.9.9");
    r->program.exe = strdup("/opt/m/model");
    r->program.argv = calloc(2, sizeof *r->program.argv);
    r->program.argv[0] = strdup("./model");
    r->program.argv[1] = strdup("--epochs=2");
    r->program.argc = 2;
    r->program.host = strdup("box");
    r->program.pid = 4242;
    r->program.start_unix_ns = 1764000000123456789ull;
    r->program.wall_ns = 2500000000ull;
    r->modules = calloc(2, sizeof *r->modules);
    r->modules[0] = (struct tp_modinfo){strdup("/opt/m/model"), strdup("abcdef01"), 0x400000,
                                        0x400000, 0x480000, 0};
    r->modules[1] = (struct tp_modinfo){strdup("/lib/libm.so.6"), NULL, 0x7f0000000000,
                                        0x7f0000001000, 0x7f0000090000, 0};
    r->nmodules = 2;
}

START_TEST(test_heap)
{
    struct tp_report r;
    tp_report_init(&r);
    program(&r);
    /* grab inlined into build at its line 21, called from main at 26 */
    struct tp_site *s = add_site(&r, 3, 2, 4000, 3000, 1000);
    frame(&s->frames[0], "grab", "src/v.c", 12, "/opt/m/model", 0x1234, 1);
    frame(&s->frames[1], "build", "src/v.c", 21, "/opt/m/model", 0x1234, 0);
    frame(&s->frames[2], "main", "src/v.c", 26, "/opt/m/model", 0x1300, 0);
    /* a frame no symbol covers, in a library, and a made-up one with no module */
    s = add_site(&r, 3, 5, 500, 0, 200);
    frame(&s->frames[0], NULL, NULL, 0, "/lib/libm.so.6", 0x40, 0);
    frame(&s->frames[1], "[call-site table full]", NULL, 0, NULL, 0, 0);
    frame(&s->frames[2], "main", "src/v.c", 30, "/opt/m/model", 0x1320, 0);
    /* the same return address again: the same location */
    s = add_site(&r, 1, 1, 16, 16, 16);
    frame(&s->frames[0], "main", "src/v.c", 26, "/opt/m/model", 0x1300, 0);
    struct tp_memory *m = &r.memory;
    m->rollups = calloc(2, sizeof *m->rollups);
    m->rollups[0] = (struct tp_site_rollup){strdup("xmalloc"), strdup("/opt/m/model"), 7, 70, 0,
                                            7000, 100, 50, 1};
    m->rollups[1] = (struct tp_site_rollup){NULL, strdup("/lib/libz.so.1"), 2, 3, 0, 30, 4, 0, 0};
    m->nrollups = 2;
    /* totals past the sites' and rows' sums: the rest is "[no call site]" */
    m->allocs = 2 + 5 + 1 + 70 + 3 + 9;
    m->bytes_allocated = 4000 + 500 + 16 + 7000 + 30 + 99;
    m->live_at_exit_bytes = 3000 + 16 + 50;
    m->peak_bytes = 1000 + 200 + 16 + 100 + 4 + 1;
    m->peak_ns = 77;
    m->peak_op = strdup("cblas_sgemm");
    Profile *p = render(&r, TP_PPROF_HEAP);

    ck_assert_uint_eq(p->n_sample_type, 4);
    const char *types[] = {"alloc_objects", "alloc_space", "leak_space", "peak_space"};
    const char *units[] = {"count", "bytes", "bytes", "bytes"};
    for (int i = 0; i < 4; i++) {
        ck_assert_str_eq(S(p, p->sample_type[i]->type), types[i]);
        ck_assert_str_eq(S(p, p->sample_type[i]->unit), units[i]);
    }
    ck_assert_str_eq(S(p, p->default_sample_type), "peak_space");
    ck_assert_str_eq(S(p, p->period_type->type), "space");
    ck_assert_str_eq(S(p, p->period_type->unit), "bytes");
    ck_assert_int_eq(p->period, 1);
    ck_assert_int_eq(p->time_nanos, 1764000000123456789ll);
    ck_assert_int_eq(p->duration_nanos, 2500000000ll);
    ck_assert_uint_eq(p->n_comment, 3);
    ck_assert_str_eq(S(p, p->comment[0]), "tprof 9.9.9: heap profile of ./model --epochs=2");
    ck_assert_str_eq(S(p, p->comment[1]), "pid 4242 on box, wall time 2500000000 ns");
    ck_assert_str_eq(S(p, p->comment[2]),
                     "peak_space: bytes live when the heap peaked (1321 bytes, 77 ns into the "
                     "run, inside cblas_sgemm); leak_space: live at exit; alloc_space and "
                     "alloc_objects: every allocation, bytes as requested");

    /* the executable's mapping first, with its build-id; every mapping says it is named */
    ck_assert_uint_eq(p->n_mapping, 2);
    ck_assert_str_eq(S(p, p->mapping[0]->filename), "/opt/m/model");
    ck_assert_str_eq(S(p, p->mapping[0]->build_id), "abcdef01");
    ck_assert_uint_eq(p->mapping[0]->memory_start, 0x400000);
    ck_assert_uint_eq(p->mapping[0]->memory_limit, 0x480000);
    ck_assert_str_eq(S(p, p->mapping[1]->filename), "/lib/libm.so.6");
    ck_assert_str_eq(S(p, p->mapping[1]->build_id), "");
    for (size_t i = 0; i < p->n_mapping; i++)
        ck_assert(p->mapping[i]->has_functions && p->mapping[i]->has_filenames &&
                  p->mapping[i]->has_line_numbers && p->mapping[i]->has_inline_frames);

    /* the inline chain: one location, grab then build, at load bias + offset */
    size_t i = find(p, "main:26;build:21;grab:12");
    const Perftools__Profiles__Sample *x = p->sample[i];
    ck_assert_uint_eq(x->n_value, 4);
    ck_assert_int_eq(x->value[0], 2);
    ck_assert_int_eq(x->value[1], 4000);
    ck_assert_int_eq(x->value[2], 3000);
    ck_assert_int_eq(x->value[3], 1000);
    const Perftools__Profiles__Location *l = loc(p, x->location_id[0]);
    ck_assert_uint_eq(l->n_line, 2);
    ck_assert_str_eq(S(p, fn(p, l->line[0]->function_id)->name), "grab");
    ck_assert_str_eq(S(p, fn(p, l->line[0]->function_id)->filename), "src/v.c");
    ck_assert_str_eq(S(p, fn(p, l->line[1]->function_id)->name), "build");
    ck_assert_uint_eq(l->address, 0x400000 + 0x1234);
    ck_assert_uint_eq(l->mapping_id, p->mapping[0]->id);
    ck_assert_str_eq(label_str(p, x, "program"), "/opt/m/model");
    ck_assert_int_eq(label_num(p, x, "pid", ""), 4242);

    /* no symbol: named module+offset, at the library's bias; a frame with no module: no mapping */
    i = find(p, "main:30;[call-site table full];libm.so.6+0x40");
    x = p->sample[i];
    ck_assert_int_eq(x->value[3], 200);
    l = loc(p, x->location_id[0]);
    ck_assert_uint_eq(l->address, 0x7f0000000000 + 0x40);
    ck_assert_uint_eq(l->mapping_id, p->mapping[1]->id);
    ck_assert_uint_eq(loc(p, x->location_id[1])->mapping_id, 0);
    ck_assert_uint_eq(loc(p, x->location_id[1])->address, 0);
    /* one return address, one location, in both samples */
    ck_assert_uint_eq(p->sample[find(p, "main:26")]->location_id[0], loc(p, p->sample[find(p, "main:26;build:21;grab:12")]->location_id[1])->id);

    /* rolled-up sites: their function under "[more call sites]", with how many sites */
    i = find(p, "[more call sites];xmalloc");
    x = p->sample[i];
    ck_assert_int_eq(x->value[0], 70);
    ck_assert_int_eq(x->value[1], 7000);
    ck_assert_int_eq(x->value[2], 50);
    ck_assert_int_eq(x->value[3], 100);
    ck_assert_int_eq(label_num(p, x, "sites", "count"), 7);
    i = find(p, "[more call sites];[libz.so.1]");
    ck_assert_int_eq(label_num(p, p->sample[i], "sites", "count"), 2);
    /* the rest of each total */
    i = find(p, "[no call site]");
    x = p->sample[i];
    ck_assert_int_eq(x->value[0], 9);
    ck_assert_int_eq(x->value[1], 99);
    ck_assert_int_eq(x->value[2], 0);
    ck_assert_int_eq(x->value[3], 1);
    ck_assert_uint_eq(p->n_sample, 6);
    int64_t sum[4] = {0};
    for (size_t k = 0; k < p->n_sample; k++)
        for (int v = 0; v < 4; v++)
            sum[v] += p->sample[k]->value[v];
    ck_assert_int_eq(sum[0], (int64_t)m->allocs);
    ck_assert_int_eq(sum[1], (int64_t)m->bytes_allocated);
    ck_assert_int_eq(sum[2], (int64_t)m->live_at_exit_bytes);
    ck_assert_int_eq(sum[3], (int64_t)m->peak_bytes);
    perftools__profiles__profile__free_unpacked(p, NULL);
    tp_report_free(&r);
}
END_TEST

static void opstack(struct tp_report *r, const char *a, const char *b, uint64_t calls,
                    uint64_t flops, uint64_t self)
{
    r->opstacks = realloc(r->opstacks, (r->nopstacks + 1) * sizeof *r->opstacks);
    struct tp_opstack *s = &r->opstacks[r->nopstacks++];
    memset(s, 0, sizeof *s);
    s->ops = calloc(2, sizeof *s->ops);
    s->ops[0] = strdup(a);
    s->depth = 1;
    if (b) {
        s->ops[1] = strdup(b);
        s->depth = 2;
    }
    s->calls = calls;
    s->flops = flops;
    s->self_ns = self;
    s->total_ns = self;
}

START_TEST(test_time)
{
    struct tp_report r;
    tp_report_init(&r);
    program(&r);
    r.ops = calloc(2, sizeof *r.ops);
    r.ops[0].name = strdup("dense_forward");
    r.ops[0].kind = strdup("op");
    r.ops[0].calls = 10;
    r.ops[0].self_ns = 300;
    r.ops[1].name = strdup("cblas_sgemm");
    r.ops[1].kind = strdup("matmul");
    r.ops[1].calls = 21;
    r.ops[1].flops = 4104;
    r.ops[1].self_ns = 5007;
    r.nops = 2;
    opstack(&r, "dense_forward", NULL, 10, 0, 300);
    opstack(&r, "dense_forward", "cblas_sgemm", 20, 4096, 5000);
    opstack(&r, "cblas_sgemm", NULL, 1, 8, 7);
    /* 1000 ns outside every op, 7 samples: 3 in crunch, 3 in a function no symbol covers */
    r.verdict.outside_ops_ns = 1000;
    r.samples.outside_ops = 7;
    r.outside_ops = calloc(2, sizeof *r.outside_ops);
    r.outside_ops[0].name = strdup("crunch");
    r.outside_ops[0].samples = 3;
    r.outside_ops[1].module = strdup("libgomp.so.1");
    r.outside_ops[1].samples = 3;
    r.noutside_ops = 2;
    Profile *p = render(&r, TP_PPROF_TIME);

    ck_assert_uint_eq(p->n_sample_type, 3);
    const char *types[] = {"calls", "flops", "self"};
    const char *units[] = {"count", "count", "nanoseconds"};
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(S(p, p->sample_type[i]->type), types[i]);
        ck_assert_str_eq(S(p, p->sample_type[i]->unit), units[i]);
    }
    ck_assert_str_eq(S(p, p->default_sample_type), "self");
    ck_assert_str_eq(S(p, p->period_type->type), "self");
    ck_assert_str_eq(S(p, p->period_type->unit), "nanoseconds");
    ck_assert_str_eq(S(p, p->comment[0]), "tprof 9.9.9: op-time profile of ./model --epochs=2");
    ck_assert_str_eq(S(p, p->comment[2]),
                     "self: time in the innermost op of each stack of nested ops, summed over "
                     "threads; calls and flops: that op's calls and FLOPs on that stack; "
                     "[outside ops]: the threads' time in no op, by CPU samples; [calls off the "
                     "stacks]: an op's calls no stack holds (label why)");
    ck_assert_str_eq(S(p, p->mapping[0]->filename), "/opt/m/model");

    const Perftools__Profiles__Sample *x = p->sample[find(p, "dense_forward;cblas_sgemm")];
    ck_assert_int_eq(x->value[0], 20);
    ck_assert_int_eq(x->value[1], 4096);
    ck_assert_int_eq(x->value[2], 5000);
    ck_assert_str_eq(label_str(p, x, "kind"), "matmul");
    /* an op is one location wherever it is on a stack */
    ck_assert_uint_eq(x->location_id[1], p->sample[find(p, "dense_forward")]->location_id[0]);
    ck_assert_uint_eq(loc(p, x->location_id[0])->address, 0);
    ck_assert_uint_eq(loc(p, x->location_id[0])->mapping_id, 0);
    ck_assert_str_eq(label_str(p, p->sample[find(p, "dense_forward")], "kind"), "op");
    ck_assert_int_eq(p->sample[find(p, "cblas_sgemm")]->value[2], 7);
    /* outside ops: 3/7 of 1000 ns each (428), the rest (144) the root's own */
    x = p->sample[find(p, "[outside ops];crunch")];
    ck_assert_int_eq(x->value[2], 428);
    ck_assert_int_eq(x->value[0], 0);
    ck_assert_int_eq(label_num(p, x, "cpu_samples", "count"), 3);
    ck_assert_ptr_null(label_str(p, x, "kind"));
    x = p->sample[find(p, "[outside ops];[libgomp.so.1]")];
    ck_assert_int_eq(x->value[2], 428);
    ck_assert_int_eq(p->sample[find(p, "[outside ops]")]->value[2], 144);
    ck_assert_uint_eq(p->n_sample, 6);
    int64_t self = 0;
    for (size_t k = 0; k < p->n_sample; k++)
        self += p->sample[k]->value[2];
    ck_assert_int_eq(self, 300 + 5000 + 7 + 1000);
    perftools__profiles__profile__free_unpacked(p, NULL);
    tp_report_free(&r);
}
END_TEST

/* Calls no stack holds, under "[calls off the stacks]" with why: a demoted op's counted calls,
 * calls made while the op-stack table was full, every op of a run that recorded no stacks. */
START_TEST(test_unstacked)
{
    struct tp_report r;
    tp_report_init(&r);
    r.ops = calloc(2, sizeof *r.ops);
    r.ops[0].name = strdup("tiny_norm");
    r.ops[0].calls = 1000;
    r.ops[0].counted_calls = 935;
    r.ops[0].self_ns = 650;
    r.ops[1].name = strdup("gemm");
    r.ops[1].calls = 50;
    r.ops[1].flops = 5000;
    r.ops[1].self_ns = 9000;
    r.nops = 2;
    opstack(&r, "tiny_norm", NULL, 65, 0, 650);
    opstack(&r, "gemm", NULL, 40, 4000, 8000);
    Profile *p = render(&r, TP_PPROF_TIME);
    const Perftools__Profiles__Sample *x = p->sample[find(p, "[calls off the stacks];tiny_norm")];
    ck_assert_int_eq(x->value[0], 935);
    ck_assert_int_eq(x->value[1], 0);
    ck_assert_int_eq(x->value[2], 0);
    ck_assert_str_eq(label_str(p, x, "why"), "demoted: counted, not timed");
    x = p->sample[find(p, "[calls off the stacks];gemm")];
    ck_assert_int_eq(x->value[0], 10);
    ck_assert_int_eq(x->value[1], 1000);
    ck_assert_int_eq(x->value[2], 1000);
    ck_assert_str_eq(label_str(p, x, "why"), "the op-stack table was full");
    perftools__profiles__profile__free_unpacked(p, NULL);
    /* no stacks at all: each op whole, flat */
    for (size_t i = 0; i < r.nopstacks; i++) {
        free(r.opstacks[i].ops[0]);
        free(r.opstacks[i].ops);
    }
    free(r.opstacks);
    r.opstacks = NULL;
    r.nopstacks = 0;
    p = render(&r, TP_PPROF_TIME);
    x = p->sample[find(p, "[calls off the stacks];gemm")];
    ck_assert_int_eq(x->value[0], 50);
    ck_assert_int_eq(x->value[1], 5000);
    ck_assert_int_eq(x->value[2], 9000);
    ck_assert_str_eq(label_str(p, x, "why"), "no op stacks were recorded");
    x = p->sample[find(p, "[calls off the stacks];tiny_norm")];
    ck_assert_int_eq(x->value[0], 1000);
    ck_assert_str_eq(label_str(p, x, "why"), "no op stacks were recorded");
    ck_assert_uint_eq(p->n_sample, 3); /* and [outside ops] */
    perftools__profiles__profile__free_unpacked(p, NULL);
    tp_report_free(&r);
}
END_TEST

/* Nothing recorded: both profiles are still whole files a reader opens. */
START_TEST(test_empty)
{
    struct tp_report r;
    tp_report_init(&r);
    Profile *p = render(&r, TP_PPROF_HEAP);
    ck_assert_uint_eq(p->n_sample, 0);
    ck_assert_uint_eq(p->n_sample_type, 4);
    ck_assert_uint_eq(p->n_mapping, 0);
    ck_assert_str_eq(S(p, p->comment[0]), "tprof ?: heap profile of ?");
    perftools__profiles__profile__free_unpacked(p, NULL);
    p = render(&r, TP_PPROF_TIME);
    ck_assert_uint_eq(p->n_sample, 1);
    ck_assert_int_eq(p->sample[find(p, "[outside ops]")]->value[2], 0);
    perftools__profiles__profile__free_unpacked(p, NULL);
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pprof");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_heap);
    tcase_add_test(tc, test_time);
    tcase_add_test(tc, test_unstacked);
    tcase_add_test(tc, test_empty);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
