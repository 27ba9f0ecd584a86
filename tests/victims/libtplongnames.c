/* Exports whose names share a 21-character prefix (tplong_library_layer_), longer than the text
 * report's name column (tests/report_names.sh). Each sums a little, so that it takes time. */
volatile double tplong_sink;

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
