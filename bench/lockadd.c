/* What the exact global live bytes cost on every call (bench/RESULTS.md): a locked add on a
 * counter, by 1 and 2 threads, when both threads add to the same line (the global live bytes)
 * and when each adds to a line of its own; a plain add on a line of its own for the floor. Each
 * thread makes N adds; the thread's own CPU time per add (CLOCK_THREAD_CPUTIME_ID: not the time
 * it waits for a core), of the slower thread: the smallest, median and largest of REPS rounds. A line moves between cores only while both threads run at
 * once: on a loaded machine they often do not, and the shared line's figure is then too low. Built and run by hand:
 *   cc -O2 -pthread -o /tmp/lockadd bench/lockadd.c && /tmp/lockadd */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define N    20000000L
#define REPS 9
static _Alignas(64) _Atomic uint64_t shared_line;
static _Alignas(64) _Atomic uint64_t own_line[2][8];
static _Alignas(64) volatile uint64_t plain_line[2][8];
static double took[2]; /* ns per add, per thread */
static pthread_barrier_t go;
static int mode;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
    int t = (int)(intptr_t)arg;
    pthread_barrier_wait(&go);
    double t0 = now();
    for (long i = 0; i < N; i++) {
        if (mode == 0)
            atomic_fetch_add_explicit(&shared_line, 1, memory_order_relaxed);
        else if (mode == 1)
            atomic_fetch_add_explicit(&own_line[t][0], 1, memory_order_relaxed);
        else
            plain_line[t][0] = plain_line[t][0] + 1;
    }
    took[t] = (now() - t0) / N * 1e9;
    return NULL;
}

int main(void)
{
    static const char *names[] = {"locked add, one line for all threads",
                                  "locked add, a line per thread", "plain add, a line per thread"};
    for (mode = 0; mode < 3; mode++)
        for (int nt = 1; nt <= 2; nt++) {
            double r[REPS];
            for (int rep = 0; rep < REPS; rep++) {
                pthread_t th[2];
                pthread_barrier_init(&go, NULL, (unsigned)nt);
                for (int t = 0; t < nt; t++)
                    pthread_create(&th[t], NULL, run, (void *)(intptr_t)t);
                double worst = 0;
                for (int t = 0; t < nt; t++) {
                    pthread_join(th[t], NULL);
                    worst = took[t] > worst ? took[t] : worst;
                }
                pthread_barrier_destroy(&go);
                r[rep] = worst;
            }
            for (int i = 1; i < REPS; i++) /* sorted */
                for (int j = i; j > 0 && r[j] < r[j - 1]; j--) {
                    double t = r[j];
                    r[j] = r[j - 1], r[j - 1] = t;
                }
            printf("%-38s %d thread%s: %6.2f ns per add (%.2f-%.2f)\n", names[mode], nt,
                   nt > 1 ? "s" : "", r[REPS / 2], r[0], r[REPS - 1]);
        }
    return 0;
}
