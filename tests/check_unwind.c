/* The malloc shims' stack walk (track/unwind/unwind.c) against libunwind: from the same frame, the
 * same return addresses, frame for frame, through frames with and without a frame pointer, an
 * alloca'd frame (its CFA on rbp), libc calling back into the program, another thread, a signal
 * frame, a PLT stub and the vDSO interrupted by a signal (single-stepping: the walk starts in the
 * SIGTRAP handler), a library unloaded and another loaded in its place, and a stack made with
 * makecontext (where the walk may stop early, but what it gives must be libunwind's first
 * frames). libunwind is linked into this test only. */
#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "track/unwind/cfarules.h"
#include "track/sym/sym.h"
#include "track/runtime.h"
#include "track/unwind/unwind.h"

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
static __attribute__((noinline, optimize("omit-frame-pointer"))) void mid_alloca(struct walk *w,
                                                                                 int n)
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

/* Through a signal frame: the kernel's trampoline (__restore_rt), then the code raise()
 * interrupted, at its own pc, then raise's callers. */
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
    ck_assert_int_gt(sig_walk.n_lib, 6);
    same_walk(&sig_walk);
}
END_TEST

/* Single-stepping (the trap flag) until the program counter is inside [step_lo, step_hi): there
 * the SIGTRAP handler walks, through its signal frame, into the interrupted code. Stepping stops
 * then, or after STEP_MAX instructions. */
#define STEP_MAX 200000
static uintptr_t step_lo, step_hi;
static struct walk step_walk;
static uintptr_t step_ip;
static long steps;

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ctx;
    uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    int stop = ++steps >= STEP_MAX;
    if (!step_ip && ip >= step_lo && ip < step_hi) {
        step_ip = ip;
        leaf_nofp(&step_walk);
        stop = 1;
    }
    if (stop)
        uc->uc_mcontext.gregs[REG_EFL] &= ~0x100L;
}

static void trap_on(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGTRAP, &sa, NULL);
    step_ip = 0;
    steps = 0;
}

/* Sets the trap flag: from the next instruction on, each one ends in SIGTRAP. */
static inline __attribute__((always_inline)) void step_from_here(void)
{
    __asm__ volatile("pushfq; orq $0x100, (%%rsp); popfq" ::: "memory", "cc");
}

/* The walks must agree from the interrupted frame on: [probe's caller (leaf_nofp), on_trap,
 * __restore_rt, the interrupted pc, ...]. */
static void same_stepped_walk(void)
{
    ck_assert_msg(step_ip != 0, "never stepped into [%#lx, %#lx) in %ld steps",
                  (unsigned long)step_lo, (unsigned long)step_hi, steps);
    int at = -1;
    for (int i = 0; i < step_walk.n_mine; i++)
        if ((uintptr_t)step_walk.mine[i] == step_ip)
            at = i;
    ck_assert_msg(at >= 2, "the interrupted pc is not in the walk (%d frames)", step_walk.n_mine);
    ck_assert_int_gt(step_walk.n_mine, at + 1); /* and it went on past it */
    same_walk(&step_walk);
}

/* The .plt of this program: its stubs' CFA is a DWARF expression (rsp + 8, or 16 once the stub
 * pushed its relocation index, chosen by rip & 15). */
static int main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    if (info->dlpi_name && info->dlpi_name[0])
        return 0;
    *(uintptr_t *)arg = info->dlpi_addr;
    return 1;
}

static int plt_range(uintptr_t *lo, uintptr_t *hi)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    if (!f)
        return -1;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    char *names = NULL;
    int rc = -1;
    if (fread(&eh, sizeof eh, 1, f) != 1 || eh.e_shentsize != sizeof(Elf64_Shdr))
        goto out;
    sh = calloc(eh.e_shnum, sizeof *sh);
    if (!sh || fseek(f, (long)eh.e_shoff, SEEK_SET) ||
        fread(sh, sizeof *sh, eh.e_shnum, f) != eh.e_shnum)
        goto out;
    names = malloc(sh[eh.e_shstrndx].sh_size);
    if (!names || fseek(f, (long)sh[eh.e_shstrndx].sh_offset, SEEK_SET) ||
        fread(names, 1, sh[eh.e_shstrndx].sh_size, f) != sh[eh.e_shstrndx].sh_size)
        goto out;
    uintptr_t bias = 0;
    dl_iterate_phdr(main_bias, &bias);
    for (int i = 0; i < eh.e_shnum; i++) {
        if (strcmp(names + sh[i].sh_name, ".plt") == 0) {
            /* the first stub (PLT0) has ordinary rules: from the second on */
            *lo = bias + sh[i].sh_addr + 16;
            *hi = bias + sh[i].sh_addr + sh[i].sh_size;
            rc = 0;
        }
    }
out:
    free(names);
    free(sh);
    fclose(f);
    return rc;
}

static __attribute__((noinline)) void call_through_plt(void)
{
    step_from_here();
    sink += (int)getppid(); /* a libc function this program calls nowhere else: its stub */
}

START_TEST(test_plt_frame)
{
    ck_assert_int_eq(plt_range(&step_lo, &step_hi), 0);
    trap_on();
    call_through_plt();
    same_stepped_walk();
}
END_TEST

/* The vDSO has no file: its rules come from its image in memory. */
static __attribute__((noinline)) void call_into_vdso(void)
{
    struct timespec t;
    step_from_here();
    clock_gettime(CLOCK_MONOTONIC, &t);
    sink += (int)t.tv_nsec;
}

START_TEST(test_vdso_frame)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
    ck_assert_ptr_nonnull(eh);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)eh + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
            step_lo = (uintptr_t)eh + ph[i].p_offset;
            step_hi = step_lo + ph[i].p_filesz;
        }
    trap_on();
    call_into_vdso();
    same_stepped_walk();
}
END_TEST

/* A stack the program made itself (makecontext on the heap, as coroutine and green-thread
 * libraries do): the walk may stop where the thread's own stack is left, but what it gives is
 * libunwind's. */
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
    ck_assert_int_ge(ctx_walk.n_mine, 1);
    ck_assert_int_le(ctx_walk.n_mine, ctx_walk.n_lib - 1);
    for (int i = 0; i < ctx_walk.n_mine; i++)
        ck_assert_ptr_eq(ctx_walk.mine[i], ctx_walk.lib[i + 1]);
    free(stack);
}
END_TEST

/* After a dlclose the rules of the code unloaded are dropped: libtpwalk_b.so, loaded where
 * libtpwalk_a.so was, has its return address at the same place with another CFA rule there. */
static void walk_cb(void *arg)
{
    probe(arg);
    __asm__ volatile("" ::: "memory"); /* no tail call */
}

typedef void (*tpwalk_fn)(void (*)(void *), void *);

START_TEST(test_dlclose)
{
    const char *tb = getenv("TB");
    char a[4096], b[4096];
    ck_assert_ptr_nonnull(tb);
    snprintf(a, sizeof a, "%s/victims/libtpwalk_a.so", tb);
    snprintf(b, sizeof b, "%s/victims/libtpwalk_b.so", tb);
    void *h = dlopen(a, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "%s", dlerror());
    tpwalk_fn walk = (tpwalk_fn)dlsym(h, "tpwalk");
    ck_assert_ptr_nonnull(walk);
    uintptr_t where = (uintptr_t)walk;
    struct walk w1;
    walk(walk_cb, &w1);
    same_walk(&w1);
    /* what the dlclose hook of libtprof.so does around the real dlclose; meanwhile no rule is
     * read (the module's memory may be going): a return address not cached yet has none, and
     * none is kept for it */
    tp_unwind_dlclose_begin();
    uintptr_t fresh = (uintptr_t)&qsort + 7;
    ck_assert(tp_cfa_rule_of(fresh, 0)->flags & TP_CFA_NO);
    ck_assert_int_eq(dlclose(h), 0);
    tp_unwind_dlclosed();
    ck_assert(!(tp_cfa_rule_of(fresh, 0)->flags & TP_CFA_NO));
    unw_flush_cache(unw_local_addr_space, 0, 0); /* and libunwind's own cache, for the reference */
    h = dlopen(b, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(h != NULL, "%s", dlerror());
    walk = (tpwalk_fn)dlsym(h, "tpwalk");
    ck_assert_msg((uintptr_t)walk == where,
                  "libtpwalk_b.so was not loaded where libtpwalk_a.so was: nothing shown");
    struct walk w2;
    walk(walk_cb, &w2);
    same_walk(&w2);
    dlclose(h);
}
END_TEST

/* The rule table grows from 1,024 slots past 16,384: 40,000 return addresses in libc's code all
 * keep a rule of their own (one that found no slot would come back in the same per-thread
 * place every time), the first ones' rules are the same after the moves, and walks still work. */
START_TEST(test_rules_grow)
{
    uintptr_t lo = 0, hi = 0;
    ck_assert(tp_cfa_ready());
    ck_assert_int_eq(tp_modmap_segment((uintptr_t)&qsort, &lo, &hi), 0);
    ck_assert_uint_gt(hi - lo, 40000);
    enum { N = 40000, FIRST = 64 };
    struct tp_cfa_rule first[FIRST];
    for (int i = 0; i < N; i++) {
        const struct tp_cfa_rule *r = tp_cfa_rule_of(lo + 1 + (uintptr_t)i, 0);
        ck_assert_ptr_nonnull(r);
        if (i < FIRST)
            first[i] = *r;
    }
    const struct tp_cfa_rule *a = tp_cfa_rule_of(lo + N, 0), *b = tp_cfa_rule_of(lo + N - 1, 0);
    ck_assert_ptr_ne(a, b);
    ck_assert_ptr_eq(a, tp_cfa_rule_of(lo + N, 0));
    for (int i = 0; i < FIRST; i++) {
        const struct tp_cfa_rule *r = tp_cfa_rule_of(lo + 1 + (uintptr_t)i, 0);
        ck_assert_int_eq(memcmp(r, &first[i], sizeof *r), 0);
    }
    struct walk w;
    top_nofp(&w);
    same_walk(&w);
}
END_TEST

/* The depth limit is respected, and a disabled walker gives nothing. */
START_TEST(test_limit_and_disable)
{
    void *out[3];
    struct walk w;
    top_nofp(&w);
    ck_assert_int_eq(tp_unwind(out, 3, __builtin_return_address(0), __builtin_frame_address(0)), 3);
    ck_assert_int_eq(tp_unwind(out, 1, __builtin_return_address(0), __builtin_frame_address(0)), 1);
    ck_assert_ptr_eq(out[0], __builtin_return_address(0));
    tp_unwind_disable();
    ck_assert_int_eq(tp_unwind(out, 3, __builtin_return_address(0), __builtin_frame_address(0)), 0);
}
END_TEST

int main(void)
{
    /* as libtprof.so's constructor does once the configuration is read */
    tp_state = TP_RUNNING;
    Suite *s = suite_create("unwind");
    TCase *tc = tcase_create("walk");
    tcase_add_test(tc, test_frames);
    tcase_add_test(tc, test_through_libc);
    tcase_add_test(tc, test_thread);
    tcase_add_test(tc, test_signal_frame);
    tcase_add_test(tc, test_plt_frame);
    tcase_add_test(tc, test_vdso_frame);
    tcase_add_test(tc, test_own_stack);
    tcase_add_test(tc, test_dlclose);
    tcase_add_test(tc, test_rules_grow);
    tcase_add_test(tc, test_limit_and_disable);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
