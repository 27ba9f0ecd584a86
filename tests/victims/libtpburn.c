/* A library whose constructor spins for 400 ms of its thread's CPU time, as the relocation of a
 * big program or a heavy constructor would, before libtprof.so's constructor starts tprof's
 * clock (the program's libraries are initialised before it): tests/cpu_start.sh. */
#include <time.h>

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void tpburn_spin(double seconds)
{
    double end = thread_cpu_s() + seconds;
    while (thread_cpu_s() < end) {
    }
}

__attribute__((constructor)) static void tpburn_init(void)
{
    tpburn_spin(0.4);
}
