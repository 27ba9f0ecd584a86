/* The library a program dlopens in tests/plt_loadorder.sh: it needs libtpld_b.so and
 * libtpld_c.so, and its constructor relies on both having finished theirs (the dynamic loader
 * guarantees it: dependencies are initialised first). It reads libtpld_b's table and calls
 * libtpld_c's op through its PLT. */
#include <stdio.h>

void tpld_note(const char *who);
float tpld_conv(const float *in, int n);
extern const int *tpld_table;

static float first;

__attribute__((constructor)) static void a_init(void)
{
    tpld_note("A");
    float in[5] = {1, 2, 3, 4, 5};
    in[0] = (float)tpld_table[3]; /* NULL until libtpld_b's constructor has finished */
    first = tpld_conv(in, 5);
}

float tpld_run(int r)
{
    float in[6];
    for (int i = 0; i < 6; i++)
        in[i] = (float)(i * r + tpld_table[i % 4]);
    return first + tpld_conv(in, 6);
}
