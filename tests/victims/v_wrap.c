/* A program started through wrappers (env, sh -c 'exec ...'), and a wrapper that works.
 *   v_wrap                 one region "wrapped_op" (1000 FLOPs) in which wrapped_work
 *                          allocates 4444 bytes; prints "wrapped".
 *   v_wrap exec PROG ARGS  first work of its own, region "before_exec_op" (500 FLOPs) in which
 *                          before_exec_work allocates 3333 bytes; then execs PROG ARGS.
 *   v_wrap failexec PATH   the same work, then an exec of PATH that fails (PATH does not
 *                          exist, or is an executable file that is no program); goes on:
 *                          after_fail_work allocates 2222 bytes; prints "went on".
 * Runs unchanged, its regions no-ops, without tprof. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tprof.h>
#include <unistd.h>

void *wrapped_work(size_t n) { return malloc(n); }
void *before_exec_work(size_t n) { return malloc(n); }
void *after_fail_work(size_t n) { return malloc(n); }

static void own_work(void)
{
    tprof_region_begin("before_exec_op");
    tprof_add_flops(500);
    (void)before_exec_work(3333);
    tprof_region_end("before_exec_op");
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "exec")) {
        own_work();
        execv(argv[2], argv + 2);
        return 9;
    }
    if (argc > 2 && !strcmp(argv[1], "failexec")) {
        own_work();
        char *args[] = {argv[2], NULL};
        if (execv(argv[2], args) != -1)
            return 9;
        (void)after_fail_work(2222);
        return printf("went on\n") < 0;
    }
    tprof_region_begin("wrapped_op");
    tprof_add_flops(1000);
    (void)wrapped_work(4444);
    tprof_region_end("wrapped_op");
    return printf("wrapped\n") < 0;
}
