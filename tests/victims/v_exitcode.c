/* Prints "ran <arg>" and exits with the status given: v_exitcode ARG STATUS. Built dynamically by
 * make and statically by tests/run_static.sh. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    printf("ran %s\n", argc > 1 ? argv[1] : "");
    return argc > 2 ? atoi(argv[2]) : 0;
}
