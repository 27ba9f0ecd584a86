/* The folded stacks (report/render/render_folded.c) of a hand-made report: the unit line first, heap
 * stacks from main whatever the C runtime frames above it, a stack cut short of every root
 * marked, threads and the loader kept as their own roots, the peak's remainder, and op stacks. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "report/render/render.h"
#include "report/report.h"

/* A site live at the peak with these frames, innermost first ("mod+0x10": no symbol). */
static void site(struct tp_report *r, uint64_t at_peak, const char *const *fns)
{
    struct tp_memory *m = &r->memory;
    m->sites = realloc(m->sites, (m->nsites + 1) * sizeof *m->sites);
    struct tp_site *s = &m->sites[m->nsites++];
    memset(s, 0, sizeof *s);
    s->live_at_peak_bytes = at_peak;
    size_t n = 0;
    while (fns[n])
        n++;
    s->frames = calloc(n, sizeof *s->frames);
    for (size_t i = 0; i < n; i++) {
        struct tp_frame *f = &s->frames[i];
        const char *plus = strstr(fns[i], "+0x");
        if (plus) {
            f->module = strndup(fns[i], (size_t)(plus - fns[i]));
            f->offset = strtoull(plus + 3, NULL, 16);
        } else {
            f->function = strdup(fns[i]);
            f->module = strdup("/opt/m/model");
        }
    }
    s->nframes = n;
}

static char *render(const struct tp_report *r, enum tp_folded_kind kind, size_t *lines)
{
    struct tp_buf b;
    tp_buf_init(&b);
    *lines = tp_render_folded(r, kind, &b);
    char *s = strdup(tp_buf_str(&b));
    tp_buf_free(&b);
    return s;
}

START_TEST(test_heap_towers)
{
    struct tp_report r;
    tp_report_init(&r);
    /* Cut TPROF_STACK frames deep just above main, and whole down to _start: one tower. */
    site(&r, 100,
         (const char *const[]){"ex_alloc", "train_step", "main", "__libc_start_call_main", NULL});
    site(&r, 200,
         (const char *const[]){"ex_alloc", "param_init", "main", "__libc_start_call_main",
                               "__libc_start_main", "_start", NULL});
    /* A frame named main deeper down (a callee's own "main"): the outermost one is the root. */
    site(&r, 7, (const char *const[]){"x", "main", "run", "main", "_start", NULL});
    /* A thread's stack and the loader's constructors keep their own roots. */
    site(&r, 50, (const char *const[]){"worker_alloc", "worker", "start_thread", "clone3", NULL});
    site(&r, 5,
         (const char *const[]){"init_alloc", "_dl_init", "/lib64/ld-linux-x86-64.so.2+0x1aba0",
                               NULL});
    /* Cut short of main and of every root. */
    site(&r, 25, (const char *const[]){"f1", "f2", "f3", NULL});
    /* Not live at the peak: no line. */
    site(&r, 0, (const char *const[]){"gone", "main", NULL});
    r.memory.peak_bytes = 100 + 200 + 7 + 50 + 5 + 25 + 13;
    size_t n;
    char *s = render(&r, TP_FOLDED_HEAP, &n);
    ck_assert_str_eq(s, "# tprof heap at its peak: bytes live at the peak per allocation stack "
                        "(flamegraph.pl --countname bytes)\n"
                        "[partial stack];f3;f2;f1 25\n"
                        "[sites not in the report] 13\n"
                        "clone3;start_thread;worker;worker_alloc 50\n"
                        "ld-linux-x86-64.so.2+0x1aba0;_dl_init;init_alloc 5\n"
                        "main;param_init;ex_alloc 200\n"
                        "main;run;main;x 7\n"
                        "main;train_step;ex_alloc 100\n");
    ck_assert_uint_eq(n, 7);
    free(s);
    tp_report_free(&r);
}
END_TEST

START_TEST(test_time_unit)
{
    struct tp_report r;
    tp_report_init(&r);
    r.opstacks = calloc(2, sizeof *r.opstacks);
    r.nopstacks = 2;
    const char *const a[] = {"dense_forward", "cblas_sgemm"};
    for (size_t i = 0; i < 2; i++) {
        r.opstacks[i].depth = i + 1;
        r.opstacks[i].ops = calloc(i + 1, sizeof(char *));
        for (size_t d = 0; d <= i; d++)
            r.opstacks[i].ops[d] = strdup(a[d]);
        r.opstacks[i].self_ns = 1000 * (i + 1);
    }
    r.verdict.outside_ops_ns = 5;
    size_t n;
    char *s = render(&r, TP_FOLDED_TIME, &n);
    ck_assert_str_eq(s, "# tprof op time: self time in nanoseconds per op stack "
                        "(flamegraph.pl --countname ns)\n"
                        "[outside ops] 5\n"
                        "dense_forward 1000\n"
                        "dense_forward;cblas_sgemm 2000\n");
    ck_assert_uint_eq(n, 3);
    free(s);
    tp_report_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("folded");
    TCase *tc = tcase_create("folded");
    tcase_add_test(tc, test_heap_towers);
    tcase_add_test(tc, test_time_unit);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
