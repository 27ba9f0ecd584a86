/* The malloc shims' stack walk (preload/unwind.c) against libunwind: from the same frame, the
 * same return addresses, frame for frame, through frames with and without a frame pointer, an
 * alloca'd frame (its CFA on rbp), libc calling back into the program, another thread, a signal
 * handler and a stack made with makecontext (where the walk must either agree or leave the stack
 * to libunwind). */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "internal.h"
#include "unwind.h"

void tp_free(void *p) { free(p); }
TP_TLS int tp_private_heap;
TP_TLS int tp_guard;

#define MAXF 32

struct walk {
    void *mine[MAXF], *lib[MAXF + 1];
    int n_mine, n_lib;
};

/* Like a malloc shim: a frame pointer of its own, the walk started from it. */
static __attribute__((noinline)) void probe(struct walk *w)
{
    w->n_mine = tp_unwind(w->mine, MAXF, __builtin_return_address(0), __builtin_frame_address(0));
    w->n_lib = unw_backtrace(w->lib, MAXF + 1);
    __asm__ volatile("" ::: "memory"); /* no tail call: probe's frame stays */
}

static void same_walk(const struct walk *w)
{
    ck_assert_int_gt(w->n_lib, 4);
    ck_assert_int_eq(w->n_mine, w->n_lib - 1);
    for (int i = 0; i < w->n_mine; i++)
        ck_assert_ptr_eq(w->mine[i], w->lib[i + 1]);
}

/* Frames without a frame pointer (CFA on rsp, offsets that change within the function) and one
 * with alloca (CFA on rbp). */
static volatile int sink;
static __attribute__((noinline, optimize("omit-frame-pointer"))) void leaf_nofp(struct walk *w)
{
    volatile char pad[200];
    pad[0] = 1;
    probe(w);
    sink = pad[0];
}
static __attribute__((noinline, optimize("omit-frame-pointer"))) void mid_alloca(struct walk *w, int n)
{
    char *buf = __builtin_alloca((size_t)n);
    memset(buf, 1, (size_t)n);
    leaf_nofp(w);
    sink = buf[n - 1];
}
static __attribute__((noinline, optimize("omit-frame-pointer"))) void top_nofp(struct walk *w)
{
    mid_alloca(w, 100 + sink);
    sink++;
}

START_TEST(test_frames)
{
    struct walk w;
    top_nofp(&w);
    same_walk(&w);
    /* again, from the rules now cached */
    struct walk w2;
    top_nofp(&w2);
    same_walk(&w2);
    ck_assert_int_eq(w.n_mine, w2.n_mine);
}
END_TEST

/* libc's qsort calls back into the program: its frames are libc's rules. */
static struct walk *qs_walk;
static int cmp(const void *a, const void *b)
{
    if (qs_walk) {
        leaf_nofp(qs_walk);
        qs_walk = NULL;
    }
    return *(const int *)a - *(const int *)b;
}

START_TEST(test_through_libc)
{
    struct walk w;
    int v[8] = {5, 3, 7, 1, 8, 2, 6, 4};
    qs_walk = &w;
    qsort(v, 8, sizeof v[0], cmp);
    same_walk(&w);
}
END_TEST

/* A thread's outermost frame (clone3's, whose return address is undefined) ends both walks. */
static void *thread_main(void *arg)
{
    top_nofp(arg);
    return NULL;
}

START_TEST(test_thread)
{
    struct walk w;
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, thread_main, &w), 0);
    pthread_join(t, NULL);
    same_walk(&w);
}
END_TEST

/* Through a signal frame: the kernel's trampoline has no simple rule, so the walk gives up and
 * libunwind does it; the frames before the trampoline must not be cut short. */
static struct walk sig_walk;
static void on_signal(int sig)
{
    (void)sig;
    leaf_nofp(&sig_walk);
}

START_TEST(test_signal_frame)
{
    signal(SIGUSR1, on_signal);
    raise(SIGUSR1);
    ck_assert_int_gt(sig_walk.n_lib, 4);
    if (sig_walk.n_mine >= 0) {
        same_walk(&sig_walk);
    } else {
        ck_assert_int_eq(sig_walk.n_mine, -1);
    }
}
END_TEST

/* A stack the program made itself (makecontext on the heap, as coroutine and green-thread
 * libraries do): the walk either agrees with libunwind or leaves it to libunwind. */
static struct walk ctx_walk;
static ucontext_t ctx_main, ctx_co;
static void co_main(void)
{
    leaf_nofp(&ctx_walk);
}

START_TEST(test_own_stack)
{
    size_t size = 256 * 1024;
    char *stack = malloc(size);
    ck_assert_ptr_nonnull(stack);
    ck_assert_int_eq(getcontext(&ctx_co), 0);
    ctx_co.uc_stack.ss_sp = stack;
    ctx_co.uc_stack.ss_size = size;
    ctx_co.uc_link = &ctx_main;
    makecontext(&ctx_co, co_main, 0);
    ck_assert_int_eq(swapcontext(&ctx_main, &ctx_co), 0);
    ck_assert_int_gt(ctx_walk.n_lib, 2);
    if (ctx_walk.n_mine >= 0)
        ck_assert_int_eq(ctx_walk.n_mine, ctx_walk.n_lib - 1);
    for (int i = 0; i < ctx_walk.n_mine; i++)
        ck_assert_ptr_eq(ctx_walk.mine[i], ctx_walk.lib[i + 1]);
    free(stack);
}
END_TEST

/* The depth limit is respected, and a disabled walker declines. */
START_TEST(test_limit_and_disable)
{
    void *out[3];
    struct walk w;
    top_nofp(&w);
    ck_assert_int_eq(tp_unwind(out, 3, __builtin_return_address(0), __builtin_frame_address(0)), 3);
    ck_assert_int_eq(tp_unwind(out, 1, __builtin_return_address(0), __builtin_frame_address(0)), 1);
    ck_assert_ptr_eq(out[0], __builtin_return_address(0));
    tp_unwind_disable();
    ck_assert_int_eq(tp_unwind(out, 3, __builtin_return_address(0), __builtin_frame_address(0)), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("unwind");
    TCase *tc = tcase_create("walk");
    tcase_add_test(tc, test_frames);
    tcase_add_test(tc, test_through_libc);
    tcase_add_test(tc, test_thread);
    tcase_add_test(tc, test_signal_frame);
    tcase_add_test(tc, test_own_stack);
    tcase_add_test(tc, test_limit_and_disable);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
