/* Calls the three exports of libtplongnames.so, whose names share a 21-character prefix, through
 * its PLT (tests/report_names.sh): v_longnames STEPS. Prints "done". */
#include <stdio.h>
#include <stdlib.h>

void tplong_library_layer_forward(int n);
void tplong_library_layer_backward(int n);
void tplong_library_layer_update(int n);

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    for (int i = 0; i < steps; i++) {
        tplong_library_layer_forward(20000);
        tplong_library_layer_backward(20000);
        tplong_library_layer_update(20000);
    }
    puts("done");
    return 0;
}
