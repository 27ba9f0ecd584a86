/* An exported function of a shared library, for the advice table's "export" row
 * (tests/advice.sh): TPROF_OPS=adv_work hooks its calls. */
void adv_work(double *out, const double *x, int n)
{
    for (int r = 0; r < 16; r++)
        for (int i = 0; i < n; i++)
            out[i] = out[i] * 0.5 + x[(i * 7) % n];
}
