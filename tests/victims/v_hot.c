/* CPU time spent in one function that no op names (crunch), for the samples of where the time
 * outside every op goes; built with -finstrument-functions so that TPROF_OPS can name a small one
 * (setup_table) as an op. "own" makes the program profile itself with SIGPROF, as gprof does: its
 * handler must get its ticks. "worker" runs crunch on a second thread while the main thread waits
 * for it inside wait_op: that CPU time is the op's, never time outside every op. Expected figures
 * in tests/outside_ops.sh. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile double sink;
static volatile sig_atomic_t ticks;

static void setup_table(double *t, int n)
{
    for (int i = 0; i < n; i++)
        t[i] = i * 0.5;
}

/* Runs until the process has used 300 ms of CPU time: a fixed amount of CPU time whatever the
 * machine's speed, in which a 100 Hz sampler takes about 30 samples. */
static void crunch(const double *t, int n)
{
    double acc = 0;
    for (;;) {
        for (int r = 0; r < 1000; r++)
            for (int i = 0; i < n; i++)
                acc += t[i] * t[(i * 7) % n];
        if (clock() >= CLOCKS_PER_SEC * 3 / 10)
            break;
    }
    sink = acc;
}

static void *worker(void *t)
{
    crunch(t, 4096);
    return NULL;
}

static void wait_op(double *t)
{
    pthread_t th;
    if (pthread_create(&th, NULL, worker, t) == 0)
        pthread_join(th, NULL);
}

static void on_prof(int sig)
{
    (void)sig;
    ticks++;
}

int main(int argc, char **argv)
{
    static double t[4096];
    int own = argc > 1 && !strcmp(argv[1], "own");
    if (own) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_prof;
        sigemptyset(&sa.sa_mask);
        struct itimerval it = {{0, 10000}, {0, 10000}};
        if (sigaction(SIGPROF, &sa, NULL) < 0 || setitimer(ITIMER_PROF, &it, NULL) < 0)
            return 1;
    }
    setup_table(t, 4096);
    if (argc > 1 && !strcmp(argv[1], "worker"))
        wait_op(t);
    else
        crunch(t, 4096);
    if (own) {
        struct itimerval off;
        memset(&off, 0, sizeof off);
        setitimer(ITIMER_PROF, &off, NULL);
        printf("own ticks %s\n", ticks > 0 ? "ok" : "missing");
    }
    printf("done\n");
    return 0;
}
