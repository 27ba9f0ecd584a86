/* Exports whose names share a 21-character prefix (tplong_library_layer_), longer than the text
 * report's name column (tests/report_names.sh). Each sums a little, so that it takes time. And
 * tpdiff_layer, which sleeps (tests/diff_regress.sh): its time is the sleep's, whatever the
 * machine's speed. */
#include <time.h>

volatile double tplong_sink;

void tpdiff_layer(int us)
{
    struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 0.5;
    tplong_sink = s;
}

void tplong_library_layer_forward(int n)
{
    work(n);
}

void tplong_library_layer_backward(int n)
{
    work(2 * n);
}

void tplong_library_layer_update(int n)
{
    work(n / 2);
}
