/* A library of the load-order fixture (tests/plt_loadorder.sh). It needs libtpld_b.so, so its
 * constructor runs after libtpld_b's has finished and may read libtpld_b's table; run while
 * libtpld_b's is still in its dlopen(NULL), it would dereference NULL. Its exported op,
 * tpld_conv (matched by the default TPROF_OPS), reads what this constructor set up. */
#include <stddef.h>

void tpld_note(const char *who);
extern const int *tpld_table;

static float weights[3];
static const float *w;

__attribute__((constructor)) static void c_init(void)
{
    tpld_note("C");
    for (int i = 0; i < 3; i++)
        weights[i] = 0.25f * (float)tpld_table[i];
    w = weights;
}

float tpld_conv(const float *in, int n)
{
    float s = 0;
    for (int i = 0; i + 3 <= n; i++)
        s += in[i] * w[0] + in[i + 1] * w[1] + in[i + 2] * w[2];
    return s;
}
