/* Built with -finstrument-functions, linked to libtpprefix.so (tests/adapt_ops.sh).
 *   v_adapt prefix   the same call tree twice: static functions here (net_train_step ->
 *                    net_train_step_rprop x2, gemm -> gemm_nn x2, gemm_nt), and the library's
 *                    exports through the PLT (lp_*), 4 steps of each
 *   v_adapt tiny     tiny_norm called 1000 times (and lp_tiny_norm through the PLT), slow_conv
 *                    (2 ms sleep) 3 times
 *   v_adapt threads  4 threads, each one call of thr_conv, which calls lp_tiny_norm 20000 times
 *                    through the PLT
 *   v_adapt noisy    noisy_norm called 1000 times; of its first 65 calls, every 4th sleeps 5 ms
 *                    (what preemptions do to a few calls on a loaded machine): 16 of the 64
 *                    judged calls, so their mean is over 1 ms and their median a few ns
 *   v_adapt nested   nest_conv called 3 times, each calling tiny_norm 2000 times: a demoted op
 *                    whose every counted call runs inside one op
 *   v_adapt near     near_norm, 25 us of spinning on the clock, called 200 times, and tiny_norm
 *                    1000 times: an op between two demotion lines (tests/demote_line.sh)
 *   v_adapt ladder   rung2_norm ... rung48_norm, each 1000 times: k steps of a dependent
 *                    multiply-add, a few ns to a few tens, so that some rung is near the
 *                    demotion line of any machine (bench/demote_stability.sh)
 * Prints a checksum (threads: a fixed line). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void lp_train_step(int i);
void lp_tiny_norm(int i);

static volatile long sink;

__attribute__((noinline)) static void gemm_nn(int i)
{
    sink += i;
}

__attribute__((noinline)) static void gemm_nt(int i)
{
    sink -= i;
}

__attribute__((noinline)) static void gemm(int i)
{
    gemm_nn(i);
    gemm_nn(i + 1);
    gemm_nt(i);
}

__attribute__((noinline)) static void net_train_step_rprop(int i)
{
    sink ^= i;
}

__attribute__((noinline)) static void net_train_step(int i)
{
    net_train_step_rprop(i);
    gemm(i);
    net_train_step_rprop(i + 1);
}

__attribute__((noinline)) static void tiny_norm(int i)
{
    sink += i;
}

__attribute__((noinline)) static void noisy_norm(int i)
{
    struct timespec t = {0, 5000000};
    if (i >= 1 && i <= 64 && i % 4 == 0)
        while (nanosleep(&t, &t) != 0) {
        }
    sink += i;
}

/* Spins rather than sleeps: a sleep's wake-up latency is the machine's, 25 us of clock is not. */
__attribute__((noinline)) static void near_norm(int i)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 25000);
    sink += i;
}

/* The empty asm keeps each step a step: no closed form, no vectorising. */
#define RUNG(k)                                                                                    \
    __attribute__((noinline)) static void rung##k##_norm(int i)                                    \
    {                                                                                              \
        long x = i;                                                                                \
        for (int j = 0; j < k; j++) {                                                              \
            x = x * 3 + j;                                                                         \
            __asm__ volatile("" : "+r"(x));                                                        \
        }                                                                                          \
        sink += x;                                                                                 \
    }
RUNG(2)
RUNG(4)
RUNG(6)
RUNG(8)
RUNG(12)
RUNG(16)
RUNG(24)
RUNG(32)
RUNG(48)

static void ladder(void)
{
    for (int i = 0; i < 1000; i++) {
        rung2_norm(i);
        rung4_norm(i);
        rung6_norm(i);
        rung8_norm(i);
        rung12_norm(i);
        rung16_norm(i);
        rung24_norm(i);
        rung32_norm(i);
        rung48_norm(i);
    }
}

__attribute__((noinline)) static void slow_conv(void)
{
    struct timespec t = {0, 2000000};
    while (nanosleep(&t, &t) != 0) {
    }
}

__attribute__((noinline)) static void nest_conv(void)
{
    for (int i = 0; i < 2000; i++)
        tiny_norm(i);
}

enum { THREADS = 4, THREAD_CALLS = 20000 };

__attribute__((noinline)) static void thr_conv(void)
{
    for (int i = 0; i < THREAD_CALLS; i++)
        lp_tiny_norm(i);
}

static void *thread_main(void *arg)
{
    (void)arg;
    thr_conv();
    return NULL;
}

static int threads(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, thread_main, NULL) != 0)
            return 1;
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("threads %d x %d calls\n", THREADS, THREAD_CALLS);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "threads"))
        return threads();
    if (argc > 1 && !strcmp(argv[1], "prefix")) {
        for (int s = 0; s < 4; s++) {
            net_train_step(s);
            lp_train_step(s);
        }
    } else if (argc > 1 && !strcmp(argv[1], "noisy")) {
        for (int i = 0; i < 1000; i++)
            noisy_norm(i);
    } else if (argc > 1 && !strcmp(argv[1], "nested")) {
        for (int i = 0; i < 3; i++)
            nest_conv();
    } else if (argc > 1 && !strcmp(argv[1], "ladder")) {
        ladder();
    } else if (argc > 1 && !strcmp(argv[1], "near")) {
        for (int i = 0; i < 1000; i++) {
            if (i % 5 == 0)
                near_norm(i);
            tiny_norm(i);
        }
    } else if (argc > 1 && !strcmp(argv[1], "tiny")) {
        for (int i = 0; i < 1000; i++) {
            tiny_norm(i);
            lp_tiny_norm(i);
        }
        for (int i = 0; i < 3; i++)
            slow_conv();
    } else {
        fprintf(stderr, "usage: v_adapt prefix|tiny|nested|noisy|near|ladder|threads\n");
        return 2;
    }
    printf("sink %ld\n", (long)sink);
    return 0;
}
