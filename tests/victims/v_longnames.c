/* Calls the three exports of libtplongnames.so, whose names share a 21-character prefix, through
 * its PLT (tests/report_names.sh): v_longnames STEPS; or, given SLEEP_US, only its tpdiff_layer,
 * which sleeps that long, STEPS times (tests/diff_regress.sh). Prints "done". */
#include <stdio.h>
#include <stdlib.h>

void tplong_library_layer_forward(int n);
void tplong_library_layer_backward(int n);
void tplong_library_layer_update(int n);
void tpdiff_layer(int us);

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    if (argc > 2) {
        for (int i = 0; i < steps; i++)
            tpdiff_layer(atoi(argv[2]));
        puts("done");
        return 0;
    }
    for (int i = 0; i < steps; i++) {
        tplong_library_layer_forward(20000);
        tplong_library_layer_backward(20000);
        tplong_library_layer_update(20000);
    }
    puts("done");
    return 0;
}
