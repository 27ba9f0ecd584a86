/* What the CPUs did during the steps. At each step's start and end: the process's CPU time (all
 * its threads, one clock_gettime), the CPU time of the thread running the steps (its CPU clock:
 * schedstat's first field is stale for a running thread until the next tick or switch) and its
 * run-queue delay (schedstat's second field, current: it only grows while the thread is not
 * running).
 *
 * The run queue is read from a /proc file, a few microseconds each time: for steps under
 * TP_STEPCPU_RUNQ_MIN_NS that would be more than a percent of the step, so the first such step
 * stops the reading for the run and the steps' run-queue delay is unknown (the whole run's,
 * every thread's, is in program.runq_ns). Every thread's per step would mean reading every
 * thread's file at every step. The process's CPU clock advances at the kernel's ticks while
 * tprof's sampling timer is armed (the kernel then keeps one total for the timer), so for steps
 * of a few ticks or less it is an estimate; the text report marks it so. */
#include "track/steps/steps.h"

#include <stdatomic.h>
#include <time.h>

#include "common/out/out.h"
#include "common/machine/machine.h"

#define TP_STEPCPU_RUNQ_MIN_NS 1000000ull

static _Atomic uint64_t wall_sum, cpu_sum, thread_sum, runq_sum;
static _Atomic int thread_unknown, runq_unknown;
static _Atomic int runq_off; /* a step was too short: the run queue is no longer read */

static uint64_t clock_ns(clockid_t id, int *ok)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) < 0) {
        *ok = 0;
        return 0;
    }
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The thread's clock is read nearest the step's time (last at a start, first at an end), so
 * that the other reading's cost is not in its figure. */
static void read_clocks(struct tp_stepcpu_at *a, int at_start)
{
    int ok = 1;
    if (!at_start)
        a->thread = clock_ns(CLOCK_THREAD_CPUTIME_ID, &a->thread_ok);
    a->proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID, &ok);
    if (at_start)
        a->thread = clock_ns(CLOCK_THREAD_CPUTIME_ID, &a->thread_ok);
}

static void read_wait(struct tp_stepcpu_at *a)
{
    a->wait_ok = 0;
    if (atomic_load_explicit(&runq_off, memory_order_relaxed))
        return;
    char buf[128];
    if (tp_read_small("/proc/thread-self/schedstat", buf, sizeof buf) <= 0)
        return;
    uint64_t stale_run;
    a->wait_ok = tp_parse_schedstat(buf, &stale_run, &a->wait) == 0;
}

void tp_stepcpu_start(struct tp_stepcpu_at *a)
{
    read_wait(a);
    a->thread_ok = 1;
    read_clocks(a, 1);
}

void tp_stepcpu_read(struct tp_stepcpu_at *a)
{
    a->thread_ok = 1;
    read_clocks(a, 0);
    read_wait(a);
}

static uint64_t at_most(uint64_t v, uint64_t max)
{
    return v < max ? v : max;
}

void tp_stepcpu_step(const struct tp_stepcpu_at *a0, const struct tp_stepcpu_at *a1,
                     uint64_t wall_ns)
{
    atomic_fetch_add(&wall_sum, wall_ns);
    if (a1->proc > a0->proc)
        atomic_fetch_add(&cpu_sum, a1->proc - a0->proc);
    /* A thread is on a CPU or waiting for one at most the step's wall time: the clocks are read
     * a few hundred nanoseconds from the step's ends, and the tick clock's rate is measured. */
    if (a0->thread_ok && a1->thread_ok && a1->thread >= a0->thread)
        atomic_fetch_add(&thread_sum, at_most(a1->thread - a0->thread, wall_ns));
    else
        atomic_store(&thread_unknown, 1);
    if (a0->thread_ok && a0->wait_ok && a1->wait_ok && a1->wait >= a0->wait)
        atomic_fetch_add(&runq_sum, at_most(a1->wait - a0->wait, wall_ns));
    else
        atomic_store(&runq_unknown, 1);
    if (wall_ns < TP_STEPCPU_RUNQ_MIN_NS)
        atomic_store(&runq_off, 1);
}

void tp_steps_cpu(struct tp_steps_cpu *c)
{
    c->wall_ns = atomic_load(&wall_sum);
    c->cpu_ns = atomic_load(&cpu_sum);
    c->thread_cpu_ns = atomic_load(&thread_sum);
    c->runq_ns = atomic_load(&runq_sum);
    c->thread_known = !atomic_load(&thread_unknown);
    c->runq_known = !atomic_load(&runq_unknown);
}

void tp_stepcpu_fork_child(void)
{
    atomic_store(&wall_sum, 0);
    atomic_store(&cpu_sum, 0);
    atomic_store(&thread_sum, 0);
    atomic_store(&runq_sum, 0);
    atomic_store(&thread_unknown, 0);
    atomic_store(&runq_unknown, 0);
    atomic_store(&runq_off, 0);
}
