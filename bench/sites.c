/* A program with 10^5 distinct allocation call stacks, for timing the exit report.
 *
 * Ten functions f0..f9 pass a number down a five-deep chain of calls, each calling the function
 * named by the next decimal digit; the last one allocates. Every number 0..99999 therefore reaches
 * malloc through its own sequence of return addresses: 10^5 distinct stacks at TPROF_STACK >= 6.
 * Each block is freed at once, so the sites exist but the heap stays small.
 *
 * stdout: the count of allocations, then, as the very last thing main does, CLOCK_REALTIME in
 * nanoseconds; whoever ran the program subtracts it from the moment the process was reaped.
 * Build without inlining or sibling calls (VICTIM_CFLAGS), or the chains collapse.
 *
 *   sites [COUNT]      default 100000, at most 100000 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*level_fn)(int depth, long code);
static level_fn table[10];
static long allocations;

/* Out of line, so each f<d> reaches malloc through a call of its own. */
static void allocate(long code)
{
    char *p = malloc(32);
    if (p) {
        p[0] = (char)code;
        allocations++;
    }
    free(p);
}

/* f0..f9 are the same code at ten addresses: a return address inside f<d> names the digit d.
 * At depth 0 allocate (and free at once), else call the function of the next digit. */
static void f0(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

static void f1(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

static void f2(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

static void f3(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

static void f4(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

static void f5(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

static void f6(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

static void f7(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

static void f8(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

static void f9(int d, long c)
{
    if (d == 0) {
        allocate(c);
        return;
    }
    table[c % 10](d - 1, c / 10);
}

int main(int argc, char **argv)
{
    long count = 100000;
    if (argc > 1) {
        char *end;
        count = strtol(argv[1], &end, 10);
        if (*end || count < 1 || count > 100000) {
            fprintf(stderr, "sites: %s: expected a count in [1, 100000]\n", argv[1]);
            return 2;
        }
    }
    level_fn fns[10] = {f0, f1, f2, f3, f4, f5, f6, f7, f8, f9};
    for (int i = 0; i < 10; i++)
        table[i] = fns[i];
    /* main -> f<d0> -> f<d1> -> f<d2> -> f<d3> -> f<d4> -> allocate -> malloc */
    for (long c = 0; c < count; c++)
        table[c % 10](4, c / 10);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    printf("%ld allocations\n%lld\n", allocations, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    fflush(stdout);
    return 0;
}
