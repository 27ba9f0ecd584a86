/* The renderers and their units: human units at every rounding boundary, JSON string escaping
 * (control characters, quotes, invalid UTF-8), doubles (shortest round trip, never NaN or Inf)
 * and integers in full; fixed models rendered to JSON and text and compared with the golden
 * files in tests/golden/; every text line within the width, whatever the names and figures.
 *
 * TPROF_UPDATE_GOLDEN=1 rewrites the golden files from the current renderers (then read the diff
 * before committing it). A mismatch leaves the actual output in golden-out/ of the build's tests
 * directory. */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "report/render/render.h"
#include "report/units.h"

static char *S(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* ---- units ---- */

#define FMT(fn, v, want)                                                                           \
    do {                                                                                           \
        char out_[64];                                                                             \
        fn(v, out_, sizeof out_);                                                                  \
        ck_assert_msg(!strcmp(out_, want), #fn "(%s): got '%s', want '%s'", #v, out_, want);       \
    } while (0)

START_TEST(test_fmt_bytes)
{
    FMT(tp_fmt_bytes, 0, "0 B");
    FMT(tp_fmt_bytes, 1023, "1023 B");
    FMT(tp_fmt_bytes, 1024, "1.00 KiB");
    FMT(tp_fmt_bytes, 1535, "1.50 KiB");
    FMT(tp_fmt_bytes, 10234, "9.99 KiB");   /* 9.994 */
    FMT(tp_fmt_bytes, 10235, "10.0 KiB");   /* 9.995: rounds up, so one decimal fewer */
    FMT(tp_fmt_bytes, 102348, "99.9 KiB");  /* 99.949 */
    FMT(tp_fmt_bytes, 102349, "100 KiB");   /* 99.950 */
    FMT(tp_fmt_bytes, 1023487, "999 KiB");  /* 999.499 */
    FMT(tp_fmt_bytes, 1023488, "0.98 MiB"); /* 999.5 KiB: the next unit, never "1000 KiB" */
    FMT(tp_fmt_bytes, 1048575, "1.00 MiB");
    FMT(tp_fmt_bytes, 419430400, "400 MiB");
    FMT(tp_fmt_bytes, 5368709120ull, "5.00 GiB");
    FMT(tp_fmt_bytes, UINT64_MAX, "16.0 EiB");
}
END_TEST

START_TEST(test_fmt_ns)
{
    FMT(tp_fmt_ns, 0, "0 ns");
    FMT(tp_fmt_ns, 999, "999 ns");
    FMT(tp_fmt_ns, 1000, "1.00 us");
    FMT(tp_fmt_ns, 9994, "9.99 us");
    FMT(tp_fmt_ns, 9995, "10.0 us"); /* "%.2f" of 9.995 would be 9.99 or 10.00: neither */
    FMT(tp_fmt_ns, 99949, "99.9 us");
    FMT(tp_fmt_ns, 99950, "100 us");
    FMT(tp_fmt_ns, 800000, "800 us");
    FMT(tp_fmt_ns, 999499, "999 us");
    FMT(tp_fmt_ns, 999500, "1.00 ms");
    FMT(tp_fmt_ns, 1000000, "1.00 ms");
    FMT(tp_fmt_ns, 999500000, "1.00 s");
    FMT(tp_fmt_ns, 2000000000, "2.00 s");
    FMT(tp_fmt_ns, 999499999999ull, "999 s");
    FMT(tp_fmt_ns, 999500000000ull, "1000 s");
    FMT(tp_fmt_ns, 99999000000000ull, "99999 s");
    FMT(tp_fmt_ns, 100000000000000ull, "28 h");
    FMT(tp_fmt_ns, UINT64_MAX, "213504 d");
}
END_TEST

START_TEST(test_fmt_count_flops)
{
    FMT(tp_fmt_count, 0, "0");
    FMT(tp_fmt_count, 999, "999");
    FMT(tp_fmt_count, 1000, "1.00k");
    FMT(tp_fmt_count, 1604, "1.60k");
    FMT(tp_fmt_count, 99949, "99.9k");
    FMT(tp_fmt_count, 99950, "100k"); /* not "100.0k" */
    FMT(tp_fmt_count, 999499, "999k");
    FMT(tp_fmt_count, 999500, "1.00M");
    FMT(tp_fmt_count, 3400000000ull, "3.40G");
    FMT(tp_fmt_count, UINT64_MAX, "18.4E");
}
END_TEST

START_TEST(test_fmt_num_rate_pct)
{
    char o[64];
    ck_assert_str_eq(tp_fmt_num(50, 2, 8, o, sizeof o), "50.00");
    ck_assert_str_eq(tp_fmt_num(50, 1, 6, o, sizeof o), "50.0");
    ck_assert_str_eq(tp_fmt_num(123456.7, 2, 8, o, sizeof o), "123456.7");
    ck_assert_str_eq(tp_fmt_num(12345678.9, 2, 8, o, sizeof o), "12345679");
    ck_assert_str_eq(tp_fmt_num(3689348809.58, 2, 8, o, sizeof o), "3.69G");
    ck_assert_str_eq(tp_fmt_num(149418628.3, 1, 6, o, sizeof o), "149.4M");
    ck_assert_str_eq(tp_fmt_num(298853691, 0, 5, o, sizeof o), "299M");
    ck_assert_str_eq(tp_fmt_num(999999, 0, 5, o, sizeof o), "1.00M");
    ck_assert_str_eq(tp_fmt_num(1.8e19, 2, 8, o, sizeof o), "18.00E");
    ck_assert_str_eq(tp_fmt_num(1e40, 2, 8, o, sizeof o), "1e+40");
    ck_assert_str_eq(tp_fmt_num(-5, 1, 6, o, sizeof o), "-5.0");
    ck_assert_str_eq(tp_fmt_num(NAN, 2, 8, o, sizeof o), "-");
    ck_assert_str_eq(tp_fmt_num(INFINITY, 2, 8, o, sizeof o), "-");
    ck_assert_str_eq(tp_fmt_pct(0.4, 6, o, sizeof o), "40.0%");
    ck_assert_str_eq(tp_fmt_pct(1, 6, o, sizeof o), "100.0%");
    ck_assert_str_eq(tp_fmt_pct(8, 6, o, sizeof o), "800.0%");
    ck_assert_str_eq(tp_fmt_pct(12.3456, 6, o, sizeof o), "1235%");
    ck_assert_str_eq(tp_fmt_pct(0, 6, o, sizeof o), "0.0%");
    ck_assert_str_eq(tp_fmt_pct(NAN, 6, o, sizeof o), "-");
    ck_assert_str_eq(tp_fmt_rate(5e10, "FLOP/s", o, sizeof o), "50.0 GFLOP/s");
    ck_assert_str_eq(tp_fmt_rate(1.2345e12, "FLOP/s", o, sizeof o), "1.23 TFLOP/s");
    ck_assert_str_eq(tp_fmt_rate(2e10, "B/s", o, sizeof o), "20.0 GB/s");
    ck_assert_str_eq(tp_fmt_rate(999.4, "B/s", o, sizeof o), "999 B/s");
    ck_assert_str_eq(tp_fmt_rate(0.5, "B/s", o, sizeof o), "0.50 B/s");
    ck_assert_str_eq(tp_fmt_rate(-1, "B/s", o, sizeof o), "-");
    ck_assert_str_eq(tp_fmt_rate(NAN, "B/s", o, sizeof o), "-");
}
END_TEST

START_TEST(test_fmt_text)
{
    char o[64];
    ck_assert_str_eq(tp_fmt_fit("abcdef", 5, o, sizeof o), "ab...");
    ck_assert_str_eq(tp_fmt_fit("abcde", 5, o, sizeof o), "abcde");
    ck_assert_str_eq(tp_fmt_fit("abcdef", 3, o, sizeof o), "abc"); /* no room for dots */
    ck_assert_str_eq(tp_fmt_fit(NULL, 3, o, sizeof o), "");
    /* Characters, not bytes: a cut never splits a UTF-8 sequence. */
    ck_assert_str_eq(tp_fmt_fit("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4, o, sizeof o),
                     "\xc3\xa9...");
    ck_assert_str_eq(tp_fmt_fit("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4, o, sizeof o),
                     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
    ck_assert_uint_eq(tp_text_width("\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e"), 3);
    /* Control characters (C0, DEL, C1) and invalid bytes become '?'. */
    ck_assert_str_eq(tp_fmt_fit("a\nb\tc\x1b[31md\x7f", 20, o, sizeof o), "a?b?c?[31md?");
    ck_assert_str_eq(tp_fmt_fit("x\xc2\x9by", 20, o, sizeof o), "x?y");
    ck_assert_str_eq(tp_fmt_fit("a\xff"
                                "b\xc0\xaf"
                                "c\xed\xa0\x80"
                                "d\xe2\x82",
                                20, o, sizeof o),
                     "a?b??c???d??");
    /* A buffer too small for the text: cut at a character boundary, still terminated. */
    char small[4];
    ck_assert_str_eq(tp_fmt_fit("\xc3\xa9\xc3\xa9", 10, small, sizeof small), "\xc3\xa9");
    /* Cells pad to exactly w columns. */
    ck_assert_str_eq(tp_fmt_cell("ab", 4, 0, o, sizeof o), "ab  ");
    ck_assert_str_eq(tp_fmt_cell("ab", 4, 1, o, sizeof o), "  ab");
    ck_assert_str_eq(tp_fmt_cell("\xc3\xa9", 3, 0, o, sizeof o), "\xc3\xa9  ");
    ck_assert_str_eq(tp_fmt_cell("abcdefgh", 6, 1, o, sizeof o), "abc...");
    ck_assert_str_eq(tp_fmt_cell(NULL, 2, 0, o, sizeof o), "  ");
    struct tp_frame f = {"fn", "/a/b/x.c", 12, "/lib/libm.so.6", 0x1f};
    ck_assert_str_eq(tp_fmt_frame(&f, o, sizeof o), "fn (x.c:12)");
    f.line = 0;
    ck_assert_str_eq(tp_fmt_frame(&f, o, sizeof o), "fn (libm.so.6)");
    f.function = NULL;
    ck_assert_str_eq(tp_fmt_frame(&f, o, sizeof o), "libm.so.6+0x1f");
    f.module = NULL;
    ck_assert_str_eq(tp_fmt_frame(&f, o, sizeof o), "?+0x1f");
}
END_TEST

/* ---- JSON ---- */

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

/* Parse strictly, validating UTF-8; the caller puts the object. */
static struct json_object *parse(const char *s)
{
    struct json_tokener *t = json_tokener_new();
    json_tokener_set_flags(t, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *o = json_tokener_parse_ex(t, s, (int)strlen(s) + 1);
    enum json_tokener_error e = json_tokener_get_error(t);
    ck_assert_msg(o && e == json_tokener_success, "JSON does not parse: %s",
                  json_tokener_error_desc(e));
    json_tokener_free(t);
    return o;
}

static const char *jget(struct json_object *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    struct json_object *v = o;
    for (char *k = strtok(buf, "."); k; k = strtok(NULL, "."))
        if (!json_object_object_get_ex(v, k, &v))
            return NULL;
    return json_object_to_json_string_ext(v,
                                          JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

START_TEST(test_json_escaping)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "\"plain\""},
        {"q\"b\\s/", "\"q\\\"b\\\\s/\""},
        {"\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\""},
        {"\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\""},
        {"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e", "\"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\""},
        {"\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\""}, /* U+FFFF, U+10FFFF */
        {"a\xff"
         "b",
         "\"a\\ufffdb\""},
        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},                       /* overlong '/' */
        {"\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\""},            /* overlong NUL */
        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},            /* a UTF-16 surrogate */
        {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* beyond U+10FFFF */
        {"\xf5\x80", "\"\\ufffd\\ufffd\""},
        {"x\xe2\x82", "\"x\\ufffd\\ufffd\""}, /* cut at the end */
        {"\xe2\x82"
         "A",
         "\"\\ufffd\\ufffdA\""}, /* cut in the middle */
        {"\x80", "\"\\ufffd\""}, /* a lone continuation */
        {"", "\"\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tp_report r;
        tp_report_init(&r);
        tp_report_note(&r, "%s", cases[i].in);
        char *j = json_of(&r);
        char want[256];
        snprintf(want, sizeof want, "\"notes\":[%s]", cases[i].out);
        ck_assert_msg(strstr(j, want), "case %zu: want %s in\n%.200s", i, want, j);
        json_object_put(parse(j));
        free(j);
        tp_report_free(&r);
    }
    /* Every string field goes through the same escaping; a parser reads the text back. */
    struct tp_report r;
    tp_report_init(&r);
    r.program.argc = 1;
    r.program.argv = calloc(1, sizeof *r.program.argv);
    r.program.argv[0] = S("./m \"x\"\n\xff");
    r.machine.source = S("cache:/tmp/\\x");
    char *j = json_of(&r);
    struct json_object *o = parse(j);
    ck_assert_str_eq(jget(o, "program.argv"), "[\"./m \\\"x\\\"\\n\xef\xbf\xbd\"]");
    ck_assert_str_eq(jget(o, "machine.source"), "\"cache:/tmp/\\\\x\"");
    ck_assert_str_eq(jget(o, "verdict.op"), "null");
    json_object_put(o);
    free(j);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_json_numbers)
{
    struct tp_report r;
    tp_report_init(&r);
    static const struct {
        double v;
        const char *out;
    } cases[] = {
        {0.1, "0.1"},
        {0.6, "0.6"},
        {1.0 / 3, "0.3333333333333333"},
        {50, "50"},
        {100.5, "100.5"},
        {1e300, "1e+300"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1e21, "1e+21"},
        {-2.5, "-2.5"},
        {NAN, "0"},
        {INFINITY, "0"},
        {-INFINITY, "0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        r.machine.peak_gflops = cases[i].v;
        char *j = json_of(&r);
        char want[128];
        snprintf(want, sizeof want, "\"peak_gflops\":%s,", cases[i].out);
        ck_assert_msg(strstr(j, want), "%.17g: want %s", cases[i].v, want);
        free(j);
    }
    /* Shortest form, and exact: random doubles read back bit for bit. */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d;
        memcpy(&d, &x, sizeof d);
        if (!isfinite(d))
            continue;
        r.machine.peak_gbps = d;
        char *j = json_of(&r);
        const char *p = strstr(j, "\"peak_gbps\":");
        ck_assert_ptr_nonnull(p);
        double back = strtod(p + 12, NULL);
        ck_assert_msg(memcmp(&back, &d, sizeof d) == 0 || (back == 0 && d == 0),
                      "%.17g came back as %.17g", d, back);
        free(j);
    }
    /* Integers in full, signed ones with their sign. */
    r.machine.peak_gbps = 0;
    r.memory.bytes_allocated = UINT64_MAX;
    r.memory.peak_bytes = UINT64_MAX - 1;
    r.program.pid = INT64_MIN;
    r.program.rank = -1;
    char *j = json_of(&r);
    ck_assert_ptr_nonnull(strstr(j, "\"bytes_allocated\":18446744073709551615,"));
    ck_assert_ptr_nonnull(strstr(j, "\"peak_bytes\":18446744073709551614,"));
    ck_assert_ptr_nonnull(strstr(j, "\"pid\":-9223372036854775808,"));
    ck_assert_ptr_nonnull(strstr(j, "\"rank\":-1,"));
    ck_assert_ptr_nonnull(strstr(j, "\"window_first\":-1,"));
    /* A report with nothing in it is still the whole shape. */
    ck_assert_ptr_nonnull(strstr(j, "\"ops\":[]"));
    ck_assert_ptr_nonnull(strstr(j, "\"sites\":[]"));
    ck_assert_ptr_nonnull(strstr(j, "\"amdahl\":[]"));
    ck_assert_ptr_nonnull(strstr(j, "\"source\":\"none\""));
    json_object_put(parse(j));
    free(j);
    tp_report_free(&r);
}
END_TEST

/* ---- fixed models ---- */

static struct tp_op *op(struct tp_report *r, const char *name, const char *kind, const char *src,
                        uint64_t calls, uint64_t total, uint64_t self, uint64_t flops,
                        uint64_t bytes)
{
    r->ops = realloc(r->ops, (r->nops + 1) * sizeof *r->ops);
    struct tp_op *o = &r->ops[r->nops++];
    memset(o, 0, sizeof *o);
    o->name = S(name);
    o->kind = S(kind);
    o->source = S(src);
    o->calls = calls;
    o->total_ns = total;
    o->self_ns = self;
    o->flops = flops;
    o->bytes = bytes;
    o->flops_known = flops > 0;
    return o;
}

static void latency(struct tp_latency *l, uint64_t n, uint64_t min, uint64_t p50, uint64_t p95,
                    uint64_t p99, uint64_t max, double mean, double sd, double lo, double hi)
{
    *l = (struct tp_latency){n, min, p50, p95, p99, max, mean, sd, lo, hi};
}

static void shape(struct tp_op *o, const char *desc, int64_t m, int64_t n, int64_t k, char ta,
                  char tb, char layout, uint64_t calls, uint64_t total, uint64_t flops,
                  uint64_t bytes)
{
    o->shapes = realloc(o->shapes, (o->nshapes + 1) * sizeof *o->shapes);
    o->shapes[o->nshapes++] =
        (struct tp_shape){S(desc), m, n, k, ta, tb, layout, calls, total, flops, bytes};
}

static struct tp_site *site(struct tp_report *r, uint64_t allocs, uint64_t frees, uint64_t bytes,
                            uint64_t own_peak, uint64_t at_peak, uint64_t exit_bytes,
                            uint64_t exit_allocs)
{
    struct tp_memory *m = &r->memory;
    m->sites = realloc(m->sites, (m->nsites + 1) * sizeof *m->sites);
    struct tp_site *s = &m->sites[m->nsites++];
    *s =
        (struct tp_site){NULL, 0, allocs, frees, bytes, own_peak, at_peak, exit_bytes, exit_allocs};
    return s;
}

static void frame(struct tp_site *s, const char *fn, const char *file, int line, const char *module,
                  uint64_t offset)
{
    s->frames = realloc(s->frames, (s->nframes + 1) * sizeof *s->frames);
    s->frames[s->nframes++] = (struct tp_frame){S(fn), S(file), line, S(module), offset};
}

static void argv(struct tp_report *r, const char *const *a)
{
    size_t n = 0;
    while (a[n])
        n++;
    r->program.argv = calloc(n, sizeof *r->program.argv);
    for (size_t i = 0; i < n; i++)
        r->program.argv[i] = S(a[i]);
    r->program.argc = n;
}

/* Every field set. 2 s of wall time at 100 GFLOP/s and 20 GB/s (ridge 5 FLOP/byte):
 * cblas_sgemm 1.1 s self (55%), 50 GFLOP/s at 40 FLOP/byte, compute-bound at 50%;
 * conv2d_forward 0.3 s self, 8 GFLOP/s at 2 FLOP/byte, memory-bound at 20% of 40 GFLOP/s;
 * layer_norm without FLOPs; a long-named op; 0.45 s outside every op. */
static void model_full(struct tp_report *r)
{
    tp_report_init(r);
    r->tprof_version = S("0.1.0");
    r->partial = 1;
    tp_report_note(r, "clock: tsc, invariant");
    tp_report_note(r, "call-site table full: 3 sites dropped");
    tp_report_note(r, "odd bytes: tab\there, quote \" backslash \\ bell\x07 bad\xff ok \xc3\xa9");
    argv(r, (const char *const[]){"./model", "--batch", "64", "--name", "it's mine", NULL});
    r->program.exe = S("/opt/m/model");
    r->program.host = S("node1");
    r->program.pid = 4242;
    r->program.ppid = 1;
    r->program.rank = 3;
    r->program.wall_ns = 2000000000;
    r->program.threads = 4;
    r->program.start_unix_ns = 1700000000123456789ull;
    r->program.hooks_ns = 40000000; /* tprof's hooks inside the ops: 2% */
    r->program.demote_line_ns = 1209.5;
    r->program.demote_line_from = S("host best");
    r->samples.hz = 100;
    r->samples.total = 200;
    r->samples.in_ops = 150;
    r->samples.outside_ops = 44;
    r->samples.in_tprof = 6;
    r->machine.peak_gflops = 100;
    r->machine.peak_gbps = 20;
    r->machine.source = S("env");

    struct tp_op *o = op(r, "cblas_sgemm", "matmul", "blas", 101, 1200000000, 1100000000,
                         60000000000ull, 1500000000);
    o->warmup_calls = 1;
    o->warmup_ns = 20000000;
    latency(&o->latency, 100, 9000000, 11000000, 14000000, 15000000, 16000000, 11800000.5,
            1500000.25, 10900000, 11200000);
    o->alloc_bytes = 1048576;
    o->alloc_count = 100;
    shape(o, "m=512 n=512 k=512 NN row", 512, 512, 512, 'N', 'N', 'R', 60, 700000000,
          16106127360ull, 188743680);
    shape(o, "m=1024 n=64 k=256 NT col", 1024, 64, 256, 'N', 'T', 'C', 41, 500000000, 1374683136ull,
          45088768);
    o = op(r, "conv2d_forward", "conv", "instrumented", 50, 500000000, 300000000, 4000000000u,
           2000000000u);
    o->warmup_calls = 1;
    o->warmup_ns = 12000000;
    latency(&o->latency, 49, 9500000, 10000000, 10500000, 12000000, 13000000, 10100000, 400000,
            9900000, 10100000);
    o->alloc_bytes = 104857600;
    o->alloc_count = 2500;
    o = op(r, "layer_norm", "norm", "api", 50, 100000000, 100000000, 0, 0);
    latency(&o->latency, 50, 1900000, 2000000, 2100000, 2500000, 2600000, 2000000, 100000, 1990000,
            2010000);
    o = op(r, "a_really_long_instrumented_function_name_from_a_template<float, 4>", "attention",
           "plt", 3, 50000000, 50000000, 0, 0);
    o->warmup_calls = 1;
    o->warmup_ns = 20000000;
    latency(&o->latency, 2, 15000000, 15000000, 15000000, 15000000, 15000000, 15000000, 0, 15000000,
            15000000);

    struct tp_memory *m = &r->memory;
    m->peak_bytes = 419430400;
    m->peak_ns = 1500000000;
    m->peak_op = S("conv2d_forward");
    m->allocs = 12345;
    m->frees = 12300;
    m->bytes_allocated = 5368709120ull;
    m->live_at_exit_bytes = 1048676;
    m->live_at_exit_allocs = 45;
    m->peak_rss_bytes = 536870912;
    m->unknown_frees = 2;
    m->failed_allocs = 1;
    m->alloc_ns = 30000000;
    m->alloc_ns_method = strdup("calls of 64 KiB or more timed; of the others 1 in 16 timed, "
                                "counted 16 times, or once when it took 2^17 ticks or more");
    m->persistent_bytes = 314572800;
    m->transient_bytes = 104857600;
    m->lifetime_unit = strdup("step");
    m->lifetime_step = strdup("train_step");
    m->nsites_total = 7;
    struct tp_site *s = site(r, 10, 9, 314572800, 314572800, 314572800, 1048576, 1);
    frame(s, "load_weights", "/src/weights.c", 120, "/opt/m/model", 0x1234);
    frame(s, "main", "/src/main.c", 40, "/opt/m/model", 0x1100);
    frame(s, "__libc_start_call_main", NULL, 0, "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x29d90);
    s = site(r, 5000, 5000, 4294967296ull, 125829120, 104857600, 0, 0);
    frame(s, "xmalloc", "/src/util.c", 12, "/opt/m/model", 0x2000);
    frame(s, "conv2d_forward", "/src/conv.c", 88, "/opt/m/model", 0x3000);
    frame(s, "forward", "/src/model.c", 200, "/opt/m/model", 0x3500);
    frame(s, "main", "/src/main.c", 55, "/opt/m/model", 0x1180);
    s = site(r, 7000, 7000, 458752000, 65536, 0, 0, 0);
    frame(s, NULL, NULL, 0, "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0", 0x2f1a0);
    frame(s, "cblas_sgemm", NULL, 0, "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
          0x1000);
    site(r, 44, 0, 100, 100, 0, 100, 44);
    /* The heap over time, the peak among the points, each with the op that began or ended
     * there (the peak's, conv2d_forward; none for the first and the last) */
    static const uint64_t hs[][3] = {{0, 0, 0},
                                     {500000000, 314572800, 0},
                                     {1000000000, 367001600, 314572800},
                                     {1500000000, 419430400, 314572800},
                                     {2000000000, 330301440, 314572800},
                                     {3000000000ull, 315621376, 314572800}};
    m->nseries = sizeof hs / sizeof hs[0];
    m->series = calloc(m->nseries, sizeof *m->series);
    static const char *const hop[] = {
        NULL, "cblas_sgemm", "conv2d_forward", "conv2d_forward", "cblas_sgemm", NULL};
    for (size_t i = 0; i < m->nseries; i++)
        m->series[i] = (struct tp_heap_point){hs[i][0], hs[i][1], hs[i][2], S(hop[i])};

    r->steps.nseries = 3;
    r->steps.series = calloc(3, sizeof *r->steps.series);
    r->steps.series[0] = (struct tp_step_point){0, 900000000, 60000000};
    r->steps.series[1] = (struct tp_step_point){1, 940000000, 40000000};
    r->steps.series[2] = (struct tp_step_point){2, 978000000, 38000000};
    r->steps.name = S("train_step");
    r->steps.count = 50;
    r->steps.warmup = 2;
    r->steps.wall_ns = 1925000000; /* 50 steps of 38.5 ms */
    r->steps.cpu_ns = 2887500000;
    r->steps.thread_cpu_ns = 1540000000;
    r->steps.runq_ns = 192500000;
    latency(&r->steps.latency, 48, 35000000, 38000000, 41000000, 45000000, 46000000, 38500000,
            2500000, 37800000, 38300000);
    r->steps.window_first = 10;
    r->steps.window_last = 59;

    /* TPROF_TRACE and TPROF_FOLDED were set: the OUTPUTS section and the op stacks. */
    r->opstacks = calloc(2, sizeof *r->opstacks);
    r->opstacks[0].ops = calloc(2, sizeof(char *));
    r->opstacks[0].ops[0] = S("conv2d_forward");
    r->opstacks[0].ops[1] = S("cblas_sgemm");
    r->opstacks[0].depth = 2;
    r->opstacks[0].calls = 5000;
    r->opstacks[0].total_ns = 500000000;
    r->opstacks[0].self_ns = 500000000;
    r->opstacks[1].ops = calloc(1, sizeof(char *));
    r->opstacks[1].ops[0] = S("conv2d_forward");
    r->opstacks[1].depth = 1;
    r->opstacks[1].calls = 500;
    r->opstacks[1].total_ns = 650000000;
    r->opstacks[1].self_ns = 150000000;
    r->nopstacks = 2;
    r->outputs.trace = S("/tmp/run/trace.json");
    r->outputs.trace_calls = 1500000;
    r->outputs.trace_events = 1000000;
    r->outputs.trace_past_cap = 450000;
    r->outputs.trace_past_max = 50000;
    r->outputs.trace_heap_samples = 8193;
    r->outputs.trace_bytes = 67100000;
    r->outputs.folded_time = S("/tmp/run/run.folded");
    r->outputs.folded_heap = S("/tmp/run/run.heap.folded");

    /* the executable, and a plugin dlclosed before exit that was linked without a build-id */
    r->nmodules = 2;
    r->modules = calloc(2, sizeof *r->modules);
    r->modules[0] = (struct tp_modinfo){.path = S("/opt/m/model"),
                                        .build_id = S("0123456789abcdef0123456789abcdef01234567"),
                                        .base = 0x555555554000,
                                        .lo = 0x555555554000,
                                        .hi = 0x55555555a000};
    r->modules[1] = (struct tp_modinfo){.path = S("/opt/m/plugins/libconv.so"),
                                        .base = 0x7ffff7fb0000,
                                        .lo = 0x7ffff7fb0000,
                                        .hi = 0x7ffff7fb5000,
                                        .departed = 1};
}

/* No op at all: a heap-only program, machine peaks unknown. */
static void model_heaponly(struct tp_report *r)
{
    tp_report_init(r);
    r->tprof_version = S("0.1.0");
    argv(r, (const char *const[]){"./parse", "data.csv", NULL});
    r->program.exe = S("/usr/local/bin/parse");
    r->program.pid = 77;
    r->program.ppid = 76;
    r->program.wall_ns = 12345678;
    r->program.threads = 1;
    r->machine.source = S("none");
    struct tp_memory *m = &r->memory;
    m->peak_bytes = 3143680 + 2048 + 4096;
    m->peak_ns = 10000000;
    m->allocs = 1001;
    m->frees = 998;
    m->bytes_allocated = 8 * 1048576 + 4096;
    m->live_at_exit_bytes = 2048 + 4096;
    m->live_at_exit_allocs = 3;
    m->peak_rss_bytes = 8 * 1048576;
    m->alloc_ns = 900000;
    m->nsites_total = 3;
    struct tp_site *s = site(r, 2, 0, 2048, 2048, 2048, 2048, 2);
    frame(s, "strdup", NULL, 0, "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x9a3c0);
    frame(s, "parse_header", "/src/parse.c", 31, "/usr/local/bin/parse", 0x1400);
    frame(s, "main", "/src/parse.c", 90, "/usr/local/bin/parse", 0x1600);
    s = site(r, 998, 998, 8386560, 3143680, 3143680, 0, 0);
    frame(s, "read_row", "/src/parse.c", 50, "/usr/local/bin/parse", 0x1500);
    frame(s, "main", "/src/parse.c", 95, "/usr/local/bin/parse", 0x1640);
    /* A library constructor's buffer: every frame in a system library, marked [lib]. */
    s = site(r, 1, 0, 4096, 4096, 4096, 4096, 1);
    frame(s, "register_printf_specifier", NULL, 0, "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x5e0c0);
    frame(s, NULL, NULL, 0, "/usr/lib/x86_64-linux-gnu/libquadmath.so.0", 0x364e);
    frame(s, "call_init", NULL, 0, "/lib64/ld-linux-x86-64.so.2", 0x4f1e);
}

/* One op, no heap allocation at all, no steps, no notes. */
static void model_oneop(struct tp_report *r)
{
    tp_report_init(r);
    r->tprof_version = S("0.1.0");
    argv(r, (const char *const[]){"./bench_gemm", NULL});
    r->program.pid = 5;
    r->program.ppid = 1;
    r->program.wall_ns = 1000000000;
    r->program.threads = 1;
    r->machine.peak_gflops = 200;
    r->machine.peak_gbps = 25;
    r->machine.source = S("cache:/root/.cache/tprof/peaks-box");
    struct tp_op *o =
        op(r, "dgemm_", "matmul", "blas", 10, 900000000, 900000000, 36000000000ull, 30000000);
    o->warmup_calls = 1;
    o->warmup_ns = 95000000;
    latency(&o->latency, 9, 89000000, 90000000, 92000000, 92000000, 92000000, 89444444.4, 900000,
            89000000, 91000000);
    shape(o, "m=1000 n=1000 k=2000 NN col", 1000, 1000, 2000, 'N', 'N', 'C', 10, 900000000,
          36000000000ull, 30000000);
    r->memory.peak_rss_bytes = 1048576;
}

/* Three processes merged by `tprof merge`. */
static void model_merged(struct tp_report *r)
{
    tp_report_init(r);
    r->tprof_version = S("0.1.0");
    r->merged_processes = 3;
    tp_report_note(r, "clock: tsc, invariant (in 3 of 3 inputs)");
    argv(r, (const char *const[]){"./train", "--ranks", "3", NULL});
    r->program.host = S("node1");
    r->program.pid = 100;
    r->program.rank = 0;
    r->program.wall_ns = 3000000000u;
    r->program.threads = 6;
    r->machine.peak_gflops = 100;
    r->machine.peak_gbps = 10;
    r->machine.source = S("env");
    struct tp_op *o = op(r, "allreduce", "region", "api", 300, 2400000000u, 2400000000u, 0, 0);
    o->nprocs = 3;
    o->proc_min_ns = 400000000;
    o->proc_mean_ns = 800000000;
    o->proc_max_ns = 1200000000;
    o->imbalance = 1.5;
    latency(&o->latency, 297, 1000000, 8000000, 12000000, 13000000, 14000000, 8000000, 3000000,
            7500000, 8500000);
    o->warmup_calls = 3;
    o = op(r, "sgemm_", "matmul", "blas", 3000, 4500000000u, 4500000000u, 225000000000ull,
           9000000000ull);
    o->nprocs = 3;
    o->proc_min_ns = 1400000000;
    o->proc_mean_ns = 1500000000;
    o->proc_max_ns = 1600000000;
    o->imbalance = 1.0666666666666667;
    latency(&o->latency, 2997, 1400000, 1500000, 1600000, 1700000, 2000000, 1500000, 50000, 1490000,
            1510000);
    o->warmup_calls = 3;
    struct tp_memory *m = &r->memory;
    m->peak_bytes = 100 * 1048576;
    m->peak_ns = 2000000000;
    m->peak_op = S("sgemm_");
    m->allocs = 3000;
    m->frees = 3000;
    m->bytes_allocated = 300 * 1048576;
    m->peak_rss_bytes = 150 * 1048576;
    m->alloc_ns = 3000000;
    m->persistent_bytes = 80 * 1048576;
    m->transient_bytes = 20 * 1048576;
    m->lifetime_unit = strdup("op_call");
    m->nsites_total = 1;
    struct tp_site *s = site(r, 3000, 3000, 300 * 1048576, 240 * 1048576, 240 * 1048576, 0, 0);
    frame(s, "init_model", "/src/train.c", 20, "/opt/train", 0x100);
    frame(s, "main", "/src/train.c", 200, "/opt/train", 0x200);
    r->steps.name = S("tprof_step");
    r->steps.count = 30;
    r->steps.warmup = 3;
    latency(&r->steps.latency, 27, 90000000, 100000000, 110000000, 120000000, 120000000, 100000000,
            8000000, 98000000, 102000000);
}

/* ---- golden files ---- */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct tp_buf b;
    tp_buf_init(&b);
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        tp_buf_put(&b, tmp, n);
    fclose(f);
    char *s = strdup(tp_buf_str(&b));
    tp_buf_free(&b);
    return s;
}

static void write_file(const char *path, const char *s)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f, "cannot write %s: %s", path, strerror(errno));
    fputs(s, f);
    ck_assert(fclose(f) == 0);
}

static void golden(const char *name, const char *got)
{
    const char *ts = getenv("TS");
    char path[4096];
    snprintf(path, sizeof path, "%s/golden/%s", ts && *ts ? ts : "tests", name);
    const char *up = getenv("TPROF_UPDATE_GOLDEN");
    if (up && !strcmp(up, "1")) {
        write_file(path, got);
        return;
    }
    char *want = read_file(path);
    ck_assert_msg(want, "cannot read %s (is TS set to the tests source directory?)", path);
    if (strcmp(want, got) != 0) {
        mkdir("golden-out", 0777);
        char out[4200];
        snprintf(out, sizeof out, "golden-out/%s", name);
        write_file(out, got);
        /* The first line that differs, for the log. */
        size_t line = 1, i = 0;
        while (want[i] && want[i] == got[i]) {
            if (want[i] == '\n')
                line++;
            i++;
        }
        ck_abort_msg("%s differs from %s at line %zu (diff -u %s %s)", out, path, line, path, out);
    }
    free(want);
}

/* Every line at most width characters (UTF-8 counted as characters). */
static void check_width(const char *text, int width, const char *what)
{
    size_t line = 1;
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *l = strndup(p, len);
        ck_assert_msg(tp_text_width(l) <= (size_t)width, "%s: line %zu has %zu columns: %s", what,
                      line, tp_text_width(l), l);
        for (const char *q = l; *q; q++)
            ck_assert_msg((unsigned char)*q >= 0x20 && *q != 0x7f,
                          "%s: line %zu holds a control character", what, line);
        free(l);
        if (!e)
            break;
        p = e + 1;
        line++;
    }
}

static char *text_of(const struct tp_report *r, int top, int width)
{
    struct tp_buf b;
    tp_buf_init(&b);
    struct tp_text_opts o = {top, width, 1};
    tp_render_text(r, &o, &b);
    ck_assert(tp_buf_ok(&b));
    char *s = strdup(tp_buf_str(&b));
    tp_buf_free(&b);
    return s;
}

static void golden_model(void (*build)(struct tp_report *), const char *json, const char *text)
{
    struct tp_report r;
    build(&r);
    tp_analyze(&r);
    if (json) {
        char *j = json_of(&r);
        json_object_put(parse(j));
        golden(json, j);
        free(j);
    }
    char *t = text_of(&r, 10, 100);
    check_width(t, 100, text);
    golden(text, t);
    free(t);
    tp_report_free(&r);
}

/* Sites by role: torch's tensor storage from libc10 in /usr/lib (its stack all in system
 * libraries) is the program's data, tagged, not [lib]; a stripped numpy's array data likewise,
 * but not its import-time tables (all in /usr/lib: [lib]); under the interpreter (python3.11 frames in the process), what
 * is left at exit is the interpreter's, counted apart from the program's leak in the MEMORY line,
 * LEAKS and the verdict. */
#define PY "/usr/bin/python3.11"
#define NP                                                                                         \
    "/usr/lib/python3/dist-packages/numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so"
#define C10 "/usr/lib/x86_64-linux-gnu/libc10.so.1.13"
START_TEST(test_text_roles)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000;
    r.memory.peak_bytes = 1 << 21;
    r.memory.allocs = 12;
    r.memory.live_at_exit_bytes = 1000 + 3000 + 2048 + 512;
    r.memory.live_at_exit_allocs = 1 + 5 + 1 + 2;
    struct tp_site *t = site(&r, 1, 1, 1 << 20, 1 << 20, 1 << 20, 0, 0);
    frame(t, "c10::alloc_cpu(unsigned long)", NULL, 0, C10, 0x3efd0);
    frame(t, "c10::DefaultCPUAllocator::allocate(unsigned long) const", NULL, 0, C10, 0x3f100);
    frame(t, "at::empty_cpu", NULL, 0, "/usr/lib/x86_64-linux-gnu/libtorch_cpu.so", 0x100);
    struct tp_site *b = site(&r, 5, 0, 3000, 3000, 3000, 3000, 5);
    frame(b, NULL, NULL, 0, PY, 0x12b042);
    frame(b, "PyDict_SetDefault", NULL, 0, PY, 0x100470);
    struct tp_site *c = site(&r, 1, 0, 1000, 1000, 1000, 1000, 1);
    frame(c, "ext_leak", "/src/ext.c", 7, "/opt/ext.so", 0x1120);
    frame(c, NULL, NULL, 0, PY, 0x2540fb); /* an extension's own malloc: its leak */
    struct tp_site *d = site(&r, 2, 1, 1 << 20, 1 << 20, 1 << 20, 2048, 1);
    frame(d, NULL, NULL, 0, NP, 0xde138);
    frame(d, NULL, NULL, 0, NP, 0xde76e);
    frame(d, NULL, NULL, 0, PY, 0x2540fb);
    struct tp_site *e = site(&r, 2, 0, 512, 512, 512, 512, 2);
    frame(e, NULL, NULL, 0, NP, 0xf9bc0);
    frame(e, "PyInit__multiarray_umath", NULL, 0, NP, 0x1b4228);
    tp_analyze(&r);
    const struct tp_site *v = r.memory.sites;
    ck_assert(!v[0].system && v[0].role == TP_ROLE_TORCH && v[0].interpreter);
    ck_assert(!v[1].system && v[1].role == TP_ROLE_NONE && v[1].interpreter);
    ck_assert(!v[2].system && v[2].role == TP_ROLE_NONE && !v[2].interpreter);
    ck_assert(!v[3].system && v[3].role == TP_ROLE_NUMPY && v[3].interpreter);
    ck_assert(v[4].system && v[4].role == TP_ROLE_NONE && !v[4].interpreter);
    ck_assert_uint_eq(r.memory.live_at_exit_interpreter_bytes, 3000 + 2048);
    ck_assert_uint_eq(r.memory.live_at_exit_interpreter_allocs, 6);
    ck_assert_uint_eq(r.memory.live_at_exit_program_bytes, 1000);
    ck_assert_uint_eq(r.memory.live_at_exit_system_bytes, 512);
    char *txt = text_of(&r, 10, 100);
    ck_assert_msg(strstr(txt, "  [tensor data (torch)] c10::alloc_cpu(unsigned long) (l...\n"),
                  "%s", txt);
    ck_assert_msg(strstr(txt, "  [array data (numpy)] _multiarray_umath.cpython-311-x86...\n"),
                  "%s", txt);
    ck_assert_msg(strstr(txt, "live at exit: 6.41 KiB in 9 blocks (the program's 1000 B, the "
                              "interpreter's 4.93 KiB, system\n  libraries' 512 B)\n"),
                  "%s", txt);
    ck_assert_msg(strstr(txt, "\n    1000 B        1  ext_leak (ext.c:7) < python3.11+0x2540fb\n"
                              "system libraries keep "),
                  "%s", txt);
    ck_assert_msg(strstr(txt,
                         "\nkept by the interpreter at exit: 4.93 KiB in 6 blocks (its objects "
                         "and its modules' state, not freed\n  when it exits), not the "
                         "program's leak (\"interpreter\": true)\n"),
                  "%s", txt);
    ck_assert_msg(strstr(r.verdict.text,
                         "At exit, program: 1000 B in 1 block leaked; the "
                         "interpreter keeps 4.93 KiB (its objects and modules at exit); system "
                         "libraries keep 512 B."),
                  "%s", r.verdict.text);
    char *j = json_of(&r);
    ck_assert_msg(strstr(j, "\"system\":false,\"suppressed\":false,\"interpreter\":true,"
                            "\"role\":\"tensor data (torch)\"}"),
                  "%s", j);
    ck_assert_msg(strstr(j, "\"interpreter\":true,\"role\":\"array data (numpy)\"}"), "%s", j);
    ck_assert_msg(strstr(j, "\"live_at_exit_interpreter_bytes\":5048,"
                            "\"live_at_exit_interpreter_allocs\":6,"),
                  "%s", j);
    free(j);
    struct tp_buf h;
    tp_buf_init(&h);
    tp_render_html(&r, 10, &h);
    ck_assert_msg(strstr(tp_buf_str(&h),
                         "At exit: the program 1000 B in 1 blocks; the interpreter "
                         "keeps 4.93 KiB (its objects and modules at exit); system libraries"),
                  "%s", "html leak summary");
    tp_buf_free(&h);
    free(txt);
    tp_report_free(&r);
}
END_TEST

/* A report from before the interpreter's split: its program figure held the python site's 3,000
 * bytes; read again, they are the interpreter's, the rows and the figures agree. */
START_TEST(test_roles_old_report)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000;
    r.memory.peak_bytes = 4000;
    r.memory.live_at_exit_bytes = r.memory.live_at_exit_program_bytes = 4000;
    r.memory.live_at_exit_allocs = r.memory.live_at_exit_program_allocs = 6;
    struct tp_site *b = site(&r, 5, 0, 3000, 3000, 3000, 3000, 5);
    frame(b, "PyObject_Malloc", NULL, 0, PY, 0x12b042);
    struct tp_site *c = site(&r, 1, 0, 1000, 1000, 1000, 1000, 1);
    frame(c, "ext_leak", "/src/ext.c", 7, "/opt/ext.so", 0x1120);
    tp_analyze(&r);
    ck_assert_uint_eq(r.memory.live_at_exit_program_bytes, 1000);
    ck_assert_uint_eq(r.memory.live_at_exit_program_allocs, 1);
    ck_assert_uint_eq(r.memory.live_at_exit_interpreter_bytes, 3000);
    ck_assert_uint_eq(r.memory.live_at_exit_interpreter_allocs, 5);
    tp_analyze(&r); /* idempotent */
    ck_assert_uint_eq(r.memory.live_at_exit_program_bytes, 1000);
    ck_assert_uint_eq(r.memory.live_at_exit_interpreter_bytes, 3000);
    tp_report_free(&r);
}
END_TEST

/* Two sites in one function without source lines (a library from /usr/lib): told apart by the
 * allocating frame's module offset; a site without a twin keeps the short form. */
START_TEST(test_text_site_twins)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000;
    r.memory.peak_bytes = 3000;
    struct tp_site *a = site(&r, 1, 0, 1000, 1000, 1000, 1000, 1);
    frame(a, "make_conv", NULL, 0, "/usr/lib/libdn.so", 0x13b16);
    frame(a, "main", "/src/m.c", 3, "/opt/m", 0x100);
    struct tp_site *b = site(&r, 1, 0, 1000, 1000, 1000, 1000, 1);
    frame(b, "make_conv", NULL, 0, "/usr/lib/libdn.so", 0x13b26);
    frame(b, "main", "/src/m.c", 3, "/opt/m", 0x100);
    struct tp_site *c = site(&r, 1, 0, 1000, 1000, 1000, 1000, 1);
    frame(c, "make_pool", NULL, 0, "/usr/lib/libdn.so", 0x4e5bc);
    frame(c, "main", "/src/m.c", 4, "/opt/m", 0x100);
    tp_analyze(&r);
    char *t = text_of(&r, 10, 100);
    ck_assert_msg(strstr(t, "make_conv (libdn.so+0x13b16) < main (m.c:3)"), "%s", t);
    ck_assert_msg(strstr(t, "make_conv (libdn.so+0x13b26) < main (m.c:3)"), "%s", t);
    ck_assert_msg(strstr(t, "make_pool (libdn.so) < main (m.c:4)"), "%s", t);
    free(t);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_golden_full)
{
    golden_model(model_full, "report.json", "report.txt");
}
END_TEST

START_TEST(test_golden_heaponly)
{
    golden_model(model_heaponly, "heaponly.json", "heaponly.txt");
}
END_TEST

START_TEST(test_golden_oneop)
{
    golden_model(model_oneop, NULL, "oneop.txt");
}
END_TEST

START_TEST(test_golden_merged)
{
    golden_model(model_merged, "merged.json", "merged.txt");
}
END_TEST

/* The full model's JSON carries every figure of the model: spot checks through a parser. */
START_TEST(test_json_full_values)
{
    struct tp_report r;
    model_full(&r);
    tp_analyze(&r);
    char *j = json_of(&r);
    struct json_object *o = parse(j);
    struct json_object *ops, *op0, *sites;
    ck_assert(json_object_object_get_ex(o, "ops", &ops));
    ck_assert_uint_eq(json_object_array_length(ops), 4);
    op0 = json_object_array_get_idx(ops, 0);
    ck_assert_str_eq(jget(op0, "name"), "\"cblas_sgemm\"");
    ck_assert_str_eq(jget(op0, "gflops"), "50");
    ck_assert_str_eq(jget(op0, "intensity"), "40");
    ck_assert_str_eq(jget(op0, "attainable_gflops"), "100");
    ck_assert_str_eq(jget(op0, "efficiency"), "0.5");
    ck_assert_str_eq(jget(op0, "share"), "0.6");
    ck_assert_str_eq(jget(op0, "self_share"), "0.55");
    ck_assert_str_eq(jget(op0, "bound"), "\"compute\"");
    ck_assert_str_eq(jget(op0, "flops_known"), "true");
    ck_assert_str_eq(jget(op0, "latency_ns.mean"), "11800000.5");
    ck_assert_str_eq(jget(op0, "latency_ns.stddev"), "1500000.25");
    struct json_object *op1 = json_object_array_get_idx(ops, 1);
    ck_assert_str_eq(jget(op1, "bound"), "\"memory\"");
    ck_assert_str_eq(jget(op1, "attainable_gflops"), "40");
    ck_assert_str_eq(jget(op1, "efficiency"), "0.2");
    ck_assert_str_eq(jget(o, "verdict.op"), "\"cblas_sgemm\"");
    ck_assert_str_eq(jget(o, "verdict.outside_ops_ns"), "410000000");
    ck_assert_str_eq(jget(o, "verdict.alloc_ns"), "30000000");
    ck_assert_str_eq(jget(o, "program.start_unix_ns"), "1700000000123456789");
    ck_assert_str_eq(jget(o, "memory.bytes_allocated"), "5368709120");
    ck_assert(json_object_object_get_ex(json_object_object_get(o, "memory"), "sites", &sites));
    ck_assert_uint_eq(json_object_array_length(sites), 4);
    ck_assert_str_eq(jget(json_object_array_get_idx(sites, 3), "frames"), "[]");
    ck_assert_str_eq(
        jget(json_object_array_get_idx(
                 json_object_object_get(json_object_array_get_idx(sites, 2), "frames"), 0),
             "function"),
        "null");
    /* 1 / (0.45 + 0.55 / 2) and 1 / 0.45 */
    struct json_object *a0 = json_object_array_get_idx(
        json_object_object_get(json_object_object_get(o, "verdict"), "amdahl"), 0);
    ck_assert(json_object_get_double(json_object_object_get(a0, "speedup_2x")) ==
              1 / ((1 - 0.55) + 0.55 / 2));
    ck_assert(json_object_get_double(json_object_object_get(a0, "speedup_max")) == 1 / (1 - 0.55));
    json_object_put(o);
    free(j);
    tp_report_free(&r);
}
END_TEST

/* ---- text: sections, top, widths ---- */

START_TEST(test_text_top_and_sections)
{
    struct tp_report r;
    model_full(&r);
    tp_analyze(&r);
    char *t = text_of(&r, 1, 100);
    check_width(t, 100, "top 1");
    ck_assert_ptr_nonnull(strstr(t, "\n(3 more ops in the JSON report)\n"));
    ck_assert_ptr_nonnull(strstr(t, "\n(7 sites in all; the JSON report keeps the 4 largest)\n"));
    ck_assert_ptr_nonnull(strstr(t, "\n(1 more leaking site in the JSON report)\n"));
    ck_assert_ptr_null(strstr(t, "conv2d_forward    "));
    /* The sections in the order the text report promises (src/render_text.c). */
    const char *order[] = {"tprof 0.1.0: ",
                           "OPS (by self time)",
                           "LATENCY per call",
                           "SHAPES",
                           "STEPS",
                           "VERDICT",
                           "Amdahl:",
                           "MEMORY",
                           "CALL SITES",
                           "LEAKS"};
    const char *at = t;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *p = strstr(at, order[i]);
        ck_assert_msg(p, "section '%s' missing or out of order", order[i]);
        at = p;
    }
    free(t);
    /* Top 0 or less means the default. */
    t = text_of(&r, 0, 100);
    ck_assert_ptr_null(strstr(t, "more ops in the JSON report"));
    free(t);
    tp_report_free(&r);
}
END_TEST

static char *repeat(const char *unit, size_t n)
{
    size_t l = strlen(unit);
    char *s = malloc(l * n + 1);
    for (size_t i = 0; i < n; i++)
        memcpy(s + i * l, unit, l);
    s[l * n] = 0;
    return s;
}

/* Everything at its extreme: names of hundreds of characters (ASCII, multi-byte, control
 * characters), figures at UINT64_MAX, NaN and infinite doubles, deep stacks, long notes. */
static void model_stress(struct tp_report *r)
{
    tp_report_init(r);
    char *longname = repeat("very_long_name_", 30);
    char *utf = repeat("\xc3\xa9\xe2\x82\xac", 80);
    char *word = repeat("x", 400);
    r->tprof_version = S(utf);
    r->partial = 1;
    r->merged_processes = 0;
    tp_report_note(r, "%s and %s then \x1b[31mred\x1b[0m", word, utf);
    for (int i = 0; i < 5; i++)
        tp_report_note(r, "note %d: %s", i, longname);
    argv(r, (const char *const[]){longname, utf, "a\nb", "", NULL});
    r->program.host = S(longname);
    r->program.pid = INT64_MAX;
    r->program.rank = 12345678;
    r->program.wall_ns = UINT64_MAX;
    r->program.threads = UINT64_MAX;
    r->machine.peak_gflops = 1e300;
    r->machine.peak_gbps = 1e-300;
    r->machine.source = S(longname);
    for (int i = 0; i < 30; i++) {
        struct tp_op *o = op(r,
                             i % 3 == 0   ? longname
                             : i % 3 == 1 ? utf
                                          : "tab\there",
                             utf, utf, UINT64_MAX - (uint64_t)i, UINT64_MAX - (uint64_t)i,
                             UINT64_MAX - 2 * (uint64_t)i, UINT64_MAX, i % 2 ? 1 : UINT64_MAX);
        latency(&o->latency, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                i % 2 ? NAN : 1e300, INFINITY, -INFINITY, NAN);
        o->warmup_calls = UINT64_MAX;
        o->nprocs = UINT64_MAX;
        o->proc_min_ns = 1e300;
        o->proc_mean_ns = NAN;
        o->proc_max_ns = INFINITY;
        o->imbalance = 1e300;
        if (i % 2) /* on several threads at once: the OPS table shows wall% */
            o->wall_ns = o->self_wall_ns = UINT64_MAX / 3;
        for (int k = 0; k < 12; k++)
            shape(o, k % 2 ? longname : utf, INT64_MAX, INT64_MIN, -1, 'X', 0, '\n', UINT64_MAX,
                  UINT64_MAX, UINT64_MAX, 1);
    }
    struct tp_memory *m = &r->memory;
    m->peak_bytes = m->peak_ns = m->allocs = m->frees = m->bytes_allocated = UINT64_MAX;
    m->live_at_exit_bytes = m->live_at_exit_allocs = m->peak_rss_bytes = UINT64_MAX;
    m->unknown_frees = m->failed_allocs = m->alloc_ns = UINT64_MAX;
    m->persistent_bytes = m->transient_bytes = m->nsites_total = UINT64_MAX;
    m->peak_op = S(longname);
    m->lifetime_unit = strdup("detected_step");
    m->lifetime_step = S(longname);
    for (int i = 0; i < 30; i++) {
        struct tp_site *s = site(r, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                                 UINT64_MAX - (uint64_t)i, UINT64_MAX, UINT64_MAX);
        for (int k = 0; k < 64; k++)
            frame(s, k % 3 ? longname : k % 2 ? utf : NULL, longname, INT32_MAX, utf, UINT64_MAX);
    }
    r->steps.name = S(longname);
    r->steps.count = r->steps.warmup = UINT64_MAX;
    latency(&r->steps.latency, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
            UINT64_MAX, 1e-300, NAN, INFINITY, 1e300);
    r->steps.window_first = INT64_MAX;
    r->steps.window_last = INT64_MIN;
    free(longname);
    free(utf);
    free(word);
}

START_TEST(test_text_widths_under_stress)
{
    struct tp_report r;
    model_stress(&r);
    tp_analyze(&r);
    int widths[] = {100, 86, 120, 200};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        for (int top = 1; top <= 40; top += 13) {
            char *t = text_of(&r, top, widths[i]);
            char what[64];
            snprintf(what, sizeof what, "stress at width %d, top %d", widths[i], top);
            check_width(t, widths[i], what);
            ck_assert_ptr_nonnull(strstr(t, "self%  wall%"));
            ck_assert_ptr_null(strstr(t, "nan"));
            ck_assert_msg(!strstr(t, " inf "), "%s", strstr(t, " inf ") - 200);
            ck_assert_ptr_null(strstr(t, "-inf"));
            free(t);
        }
    }
    /* Narrower than the tables can go: the minimum, 86. Wider than 200: 200. */
    char *t = text_of(&r, 10, 40);
    check_width(t, 86, "width 40");
    free(t);
    t = text_of(&r, 10, 1000);
    check_width(t, 200, "width 1000");
    free(t);
    /* And the JSON of it all still parses, strictly, UTF-8 validated. */
    char *j = json_of(&r);
    json_object_put(parse(j));
    free(j);
    /* Merged, with the same extremes. */
    r.merged_processes = UINT64_MAX;
    tp_analyze(&r);
    t = text_of(&r, 10, 100);
    check_width(t, 100, "stress merged");
    free(t);
    tp_report_free(&r);
}
END_TEST

/* An efficiency under 1% reads "<1" under the text table's "eff%" heading and "<1%" in the
 * HTML table and the verdict, never "0": 0.2 GFLOP in 0.5 s at a 100 GFLOP/s peak is 0.4%. */
START_TEST(test_eff_under_one)
{
    struct tp_report r;
    tp_report_init(&r);
    r.program.wall_ns = 1000000000;
    r.machine.peak_gflops = 100;
    r.machine.peak_gbps = 20;
    r.machine.source = S("env");
    op(&r, "tiny_gemm", "matmul", "blas", 1, 500000000, 500000000, 200000000, 1000);
    tp_analyze(&r);
    struct tp_text_opts o = {10, 100, 1};
    struct tp_buf b;
    tp_buf_init(&b);
    tp_render_text(&r, &o, &b);
    ck_assert_ptr_nonnull(strstr(tp_buf_str(&b), " compute    <1\n"));
    ck_assert_ptr_nonnull(strstr(r.verdict.text, " and runs at <1% of what this machine can do"));
    tp_buf_free(&b);
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    ck_assert_ptr_nonnull(strstr(tp_buf_str(&b), ">&lt;1%</td>"));
    tp_buf_free(&b);
    tp_report_free(&r);
}
END_TEST

/* tprof's own hooks get a line from 0.1% of the run (2 ms of model_full's 2 s), none below:
 * "0.0%" of the run is nothing to act on. The JSON report keeps the figure either way. */
START_TEST(test_hooks_line_threshold)
{
    const char *line = "tprof's own hooks inside the ops: ~";
    struct tp_report r;
    model_full(&r);
    r.program.hooks_ns = 2000000;
    tp_analyze(&r);
    char *t = text_of(&r, 10, 100);
    ck_assert_ptr_nonnull(strstr(t, "tprof's own hooks inside the ops: ~2.00 ms (0.1%)"));
    free(t);
    struct tp_buf b;
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    ck_assert_ptr_nonnull(strstr(tp_buf_str(&b), "<p id=\"hooks\">"));
    tp_buf_free(&b);
    tp_report_free(&r);
    model_full(&r);
    r.program.hooks_ns = 1999999;
    tp_analyze(&r);
    t = text_of(&r, 10, 100);
    ck_assert_ptr_null(strstr(t, line));
    free(t);
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    ck_assert_ptr_null(strstr(tp_buf_str(&b), "<p id=\"hooks\">"));
    tp_buf_free(&b);
    tp_buf_init(&b);
    tp_render_json(&r, &b);
    ck_assert_ptr_nonnull(strstr(tp_buf_str(&b), "\"hooks_ns\":1999999"));
    tp_buf_free(&b);
    tp_report_free(&r);
}
END_TEST

/* The HTML page's ledger table: the JSON's rows in order, a file's path escaped, "-" for what no
 * reading mapped, shares of the peak RSS, the line on the reading ("1 reading": one); none
 * without a ledger. */
START_TEST(test_html_ledger)
{
    struct tp_report r;
    model_full(&r);
    tp_analyze(&r);
    struct tp_buf b;
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    ck_assert_ptr_null(strstr(tp_buf_str(&b), "Where the RSS went"));
    ck_assert_ptr_nonnull(strstr(tp_buf_str(&b), "<div class=\"chart\" id=\"rss-time\">"));
    tp_buf_free(&b);
    struct tp_memory *m = &r.memory;
    m->ledger_method = S("smaps");
    m->peak_rss_bytes = 4 << 20;
    m->ledger_rss_bytes = 3 << 20;
    m->ledger_pss_bytes = 2 << 20;
    m->peak_rss_ns = 1500000;
    m->ledger_reads = 1;
    m->ledger = calloc(3, sizeof *m->ledger);
    m->nledger = 3;
    m->ledger[0] = (struct tp_ledger_row){S("file"), S("/w/<a&b>.bin"), 3 << 20, 8 << 20, 0};
    m->ledger[1] = (struct tp_ledger_row){S("anonymous"), NULL, 0, 4096, -1};
    m->ledger[2] = (struct tp_ledger_row){S("unexplained"), S("between readings"), 1 << 20, 0, -1};
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    const char *h = tp_buf_str(&b);
    ck_assert_msg(strstr(h, "<h2>Where the RSS went</h2>\n<p id=\"rss-summary\">peak RSS 4.00 MiB; "
                            "the parts are from the reading at 1.50 ms into the run, the highest "
                            "RSS of 1 reading (smaps): RSS 3.00 MiB, PSS 2.00 MiB.</p>\n"),
                  "%s", h);
    ck_assert_msg(strstr(h, "<tr><td class=\"l\">file</td><td class=\"l\">/w/&lt;a&amp;b&gt;.bin"
                            "</td><td data-v=\"3145728\">3.00 MiB</td><td data-v=\"8388608\">8.00 "
                            "MiB</td><td data-v=\"0.75\">75.0%</td></tr>\n<tr><td class=\"l\">"
                            "anonymous</td><td class=\"l\">-</td><td data-v=\"0\">0 B</td>"
                            "<td data-v=\"4096\">4.00 KiB</td><td data-v=\"0\">0.0%</td></tr>\n"
                            "<tr><td class=\"l\">unexplained</td><td class=\"l\">between readings"
                            "</td><td data-v=\"1048576\">1.00 MiB</td><td data-v=\"0\">-</td>"
                            "<td data-v=\"0.25\">25.0%</td></tr>\n</tbody></table>\n"),
                  "%s", h);
    tp_buf_free(&b);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_text_nothing)
{
    /* An empty model (nothing recorded, nothing known) still renders, within the width. */
    struct tp_report r;
    tp_report_init(&r);
    tp_analyze(&r);
    char *t = text_of(&r, 10, 100);
    check_width(t, 100, "empty");
    ck_assert_ptr_nonnull(strstr(t, "tprof ?: (program unknown)\n"));
    ck_assert_ptr_nonnull(strstr(t, "\nno heap allocation was seen\n"));
    ck_assert_ptr_null(strstr(t, "OPS (by self time)"));
    ck_assert_ptr_null(strstr(t, "CALL SITES"));
    ck_assert_ptr_null(strstr(t, "LEAKS"));
    free(t);
    /* Live bytes at exit without their sites. */
    r.memory.allocs = 1;
    r.memory.peak_bytes = 10;
    r.memory.live_at_exit_bytes = 10;
    r.memory.live_at_exit_allocs = 1;
    t = text_of(&r, 10, 100);
    ck_assert_ptr_nonnull(strstr(t, "\nthe program: 10 B in 1 block; their call sites are not in "
                                    "this report\n"));
    free(t);
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render");
    TCase *tc = tcase_create("render");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fmt_bytes);
    tcase_add_test(tc, test_fmt_ns);
    tcase_add_test(tc, test_fmt_count_flops);
    tcase_add_test(tc, test_fmt_num_rate_pct);
    tcase_add_test(tc, test_fmt_text);
    tcase_add_test(tc, test_json_escaping);
    tcase_add_test(tc, test_json_numbers);
    tcase_add_test(tc, test_golden_full);
    tcase_add_test(tc, test_golden_heaponly);
    tcase_add_test(tc, test_golden_oneop);
    tcase_add_test(tc, test_golden_merged);
    tcase_add_test(tc, test_json_full_values);
    tcase_add_test(tc, test_text_top_and_sections);
    tcase_add_test(tc, test_text_widths_under_stress);
    tcase_add_test(tc, test_text_nothing);
    tcase_add_test(tc, test_eff_under_one);
    tcase_add_test(tc, test_text_site_twins);
    tcase_add_test(tc, test_text_roles);
    tcase_add_test(tc, test_hooks_line_threshold);
    tcase_add_test(tc, test_html_ledger);
    tcase_add_test(tc, test_roles_old_report);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
