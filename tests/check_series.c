/* The report's series over time: downsampling keeps the peak exactly and the envelope of each
 * stretch, in order, also through the library's bounded step buffer; the library's heap buffer
 * halves by pairs keeping the more live point, with its time and op, and the report gets the
 * highest points, in order; the text heap chart of a fixed series, row by row; and the HTML page
 * of a small model: its tables, its escaping, and the JSON it embeds. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "report/render/render.h"
#include "report/render/render_text.h"
#include "common/clock.h"
#include "common/config.h"
#include "track/heap/heap.h"
#include "track/ops/ops.h"
#include "track/runtime.h"
#include "track/out/out.h"

static uint64_t pt_val(void *ctx, size_t i)
{
    return ((struct tp_heap_point *)ctx)[i].live_bytes;
}

static void pt_move(void *ctx, size_t dst, size_t src)
{
    struct tp_heap_point *p = ctx;
    p[dst] = p[src];
}

START_TEST(test_downsample_keeps_peak)
{
    /* 10,000 points of a saw tooth, with the one peak at an odd place */
    size_t n = 10000;
    struct tp_heap_point *p = calloc(n, sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = (struct tp_heap_point){i * 1000, 1000 + (i * 7919) % 5000, 0};
    p[7777].live_bytes = 123456789;
    size_t m = tp_series_downsample(n, TP_SERIES_MAX, pt_val, pt_move, p);
    ck_assert_uint_eq(m, TP_SERIES_MAX); /* every stretch of 20 points has a distinct min and max */
    int found = 0;
    for (size_t i = 0; i < m; i++) {
        found += p[i].live_bytes == 123456789 && p[i].ns == 7777000;
        if (i)
            ck_assert_uint_lt(p[i - 1].ns, p[i].ns);
    }
    ck_assert_int_eq(found, 1);
    free(p);
}
END_TEST

START_TEST(test_downsample_small_and_exact)
{
    /* 6 points into 4: stretches [0,3) and [3,6) keep their min and max in time order */
    struct tp_heap_point p[6] = {{0, 5, 0}, {1, 9, 0}, {2, 1, 0}, {3, 4, 0}, {4, 4, 0}, {5, 8, 0}};
    size_t m = tp_series_downsample(6, 4, pt_val, pt_move, p);
    ck_assert_uint_eq(m, 4);
    const uint64_t want_ns[] = {1, 2, 3, 5}, want_v[] = {9, 1, 4, 8};
    for (size_t i = 0; i < 4; i++) {
        ck_assert_uint_eq(p[i].ns, want_ns[i]);
        ck_assert_uint_eq(p[i].live_bytes, want_v[i]);
    }
    /* at or under the bound: untouched */
    ck_assert_uint_eq(tp_series_downsample(4, 4, pt_val, pt_move, p), 4);
    ck_assert_uint_eq(p[3].ns, 5);
}
END_TEST

START_TEST(test_step_series_keeps_extremes)
{
    /* 10,000 steps through the library's bounded buffer (halved twice on the way) and the
     * report's 1,000 points: the slowest and the fastest step are there, in order */
    for (uint64_t i = 0; i < 10000; i++) {
        uint64_t ns = i == 7777 ? 1000000000 : i == 1234 ? 1 : 1000 + (i * 7919) % 5000;
        tp_series_step(i, 1000 * (i + 1), ns);
    }
    struct tp_report r;
    tp_report_init(&r);
    r.steps.count = 10000;
    tp_series_collect(&r, tp_ops_name);
    ck_assert_uint_le(r.steps.nseries, TP_SERIES_MAX);
    ck_assert_uint_ge(r.steps.nseries, TP_SERIES_MAX / 2);
    int slow = 0, fast = 0;
    for (size_t i = 0; i < r.steps.nseries; i++) {
        const struct tp_step_point *p = &r.steps.series[i];
        slow += p->index == 7777 && p->ns == 1000000000 && p->end_ns == 7778000;
        fast += p->index == 1234 && p->ns == 1;
        if (i)
            ck_assert_uint_lt(r.steps.series[i - 1].index, p->index);
    }
    ck_assert_int_eq(slow, 1);
    ck_assert_int_eq(fast, 1);
    ck_assert_uint_eq(r.memory.nseries, 0); /* no sampler ran */
    tp_report_free(&r);
}
END_TEST

START_TEST(test_heap_halve_exact)
{
    /* pairs (5, 9) (3, 3) (8, 2) and an odd last 7: the more live of each, the earlier of two
     * equal, with its own time and op */
    struct tp_series_raw p[7];
    const uint64_t live[7] = {5, 9, 3, 3, 8, 2, 7};
    for (int i = 0; i < 7; i++)
        p[i] = (struct tp_series_raw){10 * (uint64_t)i, live[i], live[i] / 2, i};
    ck_assert_uint_eq(tp_series_halve(p, 7), 4);
    const uint64_t want_t[] = {10, 20, 40, 60}, want_live[] = {9, 3, 8, 7};
    const int want_op[] = {1, 2, 4, 6};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(p[i].ticks, want_t[i]);
        ck_assert_uint_eq(p[i].live, want_live[i]);
        ck_assert_uint_eq(p[i].floor, want_live[i] / 2);
        ck_assert_int_eq(p[i].op, want_op[i]);
    }
}
END_TEST

/* Event i of test_heap_buffer: at (i + 1) us, ops fwd and bwd in turn. */
static uint64_t ev_live(uint64_t i)
{
    return i == 1235                ? 500000
           : i == TP_SERIES_CAP + 2 ? 900000
           : i == TP_SERIES_CAP + 3 ? 1000000
                                    : 100 + i % 7;
}

START_TEST(test_heap_buffer)
{
    /* Ticks are nanoseconds here (no TSC) and the run started at 0. CAP + 4 events: the buffer
     * fills at CAP, halves at CAP + 1 (the high point 1235, second of its pair, survives it),
     * then keeps the more live of every two, and the last, CAP + 3, the peak, is the one being
     * filled: the report has it (persistent 50; the peak the report adds there, persistent 0,
     * is no higher and goes in downsampling), and the heap when the report is made. */
    tp_config_defaults(&tp_cfg);
    tp_cfg.max_ops = 8;
    tp_ops_init();
    tp_heap_init(NULL, NULL); /* accounting on, nothing live: the heap at report time is 0 */
    ck_assert(tp_heap_tracking());
    int fwd = tp_op_intern("fwd", NULL, TP_SRC_API), bwd = tp_op_intern("bwd", NULL, TP_SRC_API);
    ck_assert_int_ge(fwd, 0);
    ck_assert_int_ge(bwd, 0);
    tp_start_ns = 0;
    ck_assert_int_eq(tp_clock_use_tsc, 0);
    uint64_t n = TP_SERIES_CAP + 4;
    for (uint64_t i = 0; i < n; i++)
        tp_series_add(1000 * (i + 1), ev_live(i), 50, i % 2 ? bwd : fwd);
    struct tp_report r;
    tp_report_init(&r);
    r.memory.peak_bytes = 1000000; /* the peak, as heap.c would have it */
    r.memory.peak_ns = 1000 * n;
    r.memory.peak_op = strdup("bwd");
    tp_series_collect(&r, tp_ops_name);
    const struct tp_memory *m = &r.memory;
    ck_assert_uint_le(m->nseries, TP_SERIES_MAX);
    ck_assert_uint_ge(m->nseries, TP_SERIES_MAX / 2);
    int high = 0, filling = 0;
    for (size_t i = 0; i + 1 < m->nseries; i++) {
        const struct tp_heap_point *p = &m->series[i];
        if (i)
            ck_assert_uint_le(m->series[i - 1].ns, p->ns);
        uint64_t ev = p->ns / 1000 - 1; /* every point is an event's, or the peak */
        ck_assert_uint_eq(p->ns % 1000, 0);
        ck_assert_uint_eq(p->live_bytes, ev_live(ev));
        ck_assert_str_eq(p->op, ev % 2 ? "bwd" : "fwd");
        high += p->live_bytes == 500000 && p->ns == 1236000 && p->persistent_bytes == 50;
        filling += p->ns == 1000 * n && p->persistent_bytes == 50;
    }
    ck_assert_int_eq(high, 1);
    ck_assert_int_eq(filling, 1);
    /* the heap when the report was made: now, nothing live, no op */
    const struct tp_heap_point *now = &m->series[m->nseries - 1];
    ck_assert_uint_gt(now->ns, 1000 * n);
    ck_assert_uint_eq(now->live_bytes, 0);
    ck_assert_ptr_null(now->op);
    tp_report_free(&r);
}
END_TEST

static void series_model(struct tp_memory *m)
{
    static const uint64_t pts[][3] = {{0, 0, 0},        {100, 400, 0},   {200, 800, 400},
                                      {300, 1600, 400}, {400, 600, 400}, {500, 1200, 400},
                                      {600, 400, 400},  {700, 0, 0}};
    memset(m, 0, sizeof *m);
    m->peak_bytes = 1600;
    m->peak_ns = 300;
    m->lifetime_unit = strdup("step");
    m->nseries = sizeof pts / sizeof pts[0];
    m->series = calloc(m->nseries, sizeof *m->series);
    for (size_t i = 0; i < m->nseries; i++)
        m->series[i] = (struct tp_heap_point){pts[i][0], pts[i][1], pts[i][2]};
}

START_TEST(test_text_chart_rows)
{
    struct tp_memory m;
    series_model(&m);
    struct tp_buf b;
    tp_buf_init(&b);
    tp_text_heap_chart(&m, 800, 4, 16, &b);
    const char *want = "  1.56 KiB |      @#\n"
                       "           |      ##  ##\n"
                       "           |    ########\n"
                       "           |  ##::::::::::\n"
                       "         0 +----------------\n"
                       "            0         800 ns\n";
    ck_assert_str_eq(tp_buf_str(&b), want);
    /* without a lifetime split nothing is persistent */
    free(m.lifetime_unit);
    m.lifetime_unit = NULL;
    b.len = 0;
    tp_text_heap_chart(&m, 800, 4, 16, &b);
    ck_assert_ptr_null(strchr(tp_buf_str(&b), ':'));
    /* no series: no chart */
    m.nseries = 0;
    b.len = 0;
    tp_text_heap_chart(&m, 800, 4, 16, &b);
    ck_assert_uint_eq(b.len, 0);
    tp_buf_free(&b);
    free(m.series);
}
END_TEST

START_TEST(test_html_over_100)
{
    /* an efficiency above 100% says why in its own cell, on hover, and in a line under the table */
    struct tp_report r;
    tp_report_init(&r);
    r.machine.source = strdup("quick");
    r.machine.peak_gflops = 100;
    r.machine.peak_gbps = 10;
    r.nops = 1;
    r.ops = calloc(1, sizeof *r.ops);
    r.ops[0].name = strdup("axpy");
    r.ops[0].kind = strdup("op");
    r.ops[0].bound = strdup("memory");
    r.ops[0].calls = 1;
    r.ops[0].total_ns = r.ops[0].self_ns = 1000;
    r.ops[0].flops_known = 1;
    r.ops[0].flops = 1000;
    r.ops[0].gflops = 1;
    r.ops[0].intensity = 0.1;
    r.ops[0].efficiency = 1.5;
    struct tp_buf b;
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    const char *h = tp_buf_str(&b);
    const char *cell = strstr(h, "<td data-v=\"1.5\" title=\"above 100%: the quick measurement");
    ck_assert_ptr_nonnull(cell);
    ck_assert_ptr_nonnull(strstr(cell, "\">150.0% &gt;quick</td>"));
    ck_assert_ptr_nonnull(
        strstr(h, "<p class=\"note\">&gt;quick: above 100% (memory-bound): the quick measurement"));
    tp_buf_free(&b);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_html_page)
{
    struct tp_report r;
    tp_report_init(&r);
    r.tprof_version = strdup("0.1.0");
    r.program.exe = strdup("/bin/m<x>");
    r.program.wall_ns = 1000000;
    r.nops = 2;
    r.ops = calloc(2, sizeof *r.ops);
    r.ops[0].name = strdup("small_op");
    r.ops[0].kind = strdup("op");
    r.ops[0].calls = 3;
    r.ops[0].total_ns = r.ops[0].self_ns = 1000;
    r.ops[1].name = strdup("big</script>op");
    r.ops[1].kind = strdup("op");
    r.ops[1].calls = 7;
    r.ops[1].total_ns = r.ops[1].self_ns = 5000;
    series_model(&r.memory);
    tp_analyze(&r);
    struct tp_buf b;
    tp_buf_init(&b);
    tp_render_html(&r, 10, &b);
    ck_assert(tp_buf_ok(&b));
    const char *h = tp_buf_str(&b);
    /* nothing fetched: no source, link, import or url(); the one address is the SVG namespace */
    ck_assert_ptr_null(strstr(h, "src="));
    ck_assert_ptr_null(strstr(h, "href"));
    ck_assert_ptr_null(strstr(h, "@import"));
    ck_assert_ptr_null(strstr(h, "url("));
    int urls = 0;
    for (const char *p = h; (p = strstr(p, "http")); p++) {
        ck_assert(!strncmp(p, "http://www.w3.org/2000/svg'", 27));
        urls++;
    }
    ck_assert_int_eq(urls, 1);
    /* the name as text and, in the embedded JSON, "</" written "<\/"; the bigger op first */
    const char *ops = strstr(h, "id=\"ops\""); /* the ops table: the Amdahl table comes first */
    ck_assert_ptr_nonnull(ops);
    const char *big = strstr(ops, "<td class=\"l\">big&lt;/script&gt;op</td><td class=\"l\">op</td>"
                                  "<td data-v=\"7\">7</td>");
    const char *small = strstr(ops, "<td class=\"l\">small_op</td>");
    ck_assert_ptr_nonnull(big);
    ck_assert_ptr_nonnull(small);
    ck_assert(big < small);
    ck_assert_ptr_nonnull(strstr(h, "\"name\":\"big<\\/script>op\""));
    ck_assert_ptr_nonnull(strstr(h, "\"series\":[{\"ns\":0,\"live_bytes\":0"));
    /* the line under the verdict; the allocator's time marked as an estimate, its method on
     * hover */
    ck_assert_ptr_nonnull(strstr(h, "<p id=\"times\">time outside every op: 994 us (99.4%); inside "
                                    "the allocator: <span title=\"an estimate\">~0 ns</span> "
                                    "(0.0%)</p>\n"));
    /* exactly two script elements end: the data and the code */
    int ends = 0;
    for (const char *p = h; (p = strstr(p, "</script>")); p++)
        ends++;
    ck_assert_int_eq(ends, 2);
    ck_assert_ptr_nonnull(strstr(h, "<title>tprof: /bin/m&lt;x&gt;</title>"));
    tp_buf_free(&b);
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("series");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_downsample_keeps_peak);
    tcase_add_test(tc, test_downsample_small_and_exact);
    tcase_add_test(tc, test_step_series_keeps_extremes);
    tcase_add_test(tc, test_heap_halve_exact);
    tcase_add_test(tc, test_heap_buffer);
    tcase_add_test(tc, test_text_chart_rows);
    tcase_add_test(tc, test_html_page);
    tcase_add_test(tc, test_html_over_100);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
