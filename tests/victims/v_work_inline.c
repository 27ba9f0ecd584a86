/* A kernel gcc -O2 inlines into main (tests/cyg_work.sh): its hooks still run, from main's frame,
 * and its parameters are main's values there; rows is kept as "register + 10" (1 + argc + 9). */
#include <stdio.h>

static volatile float sink;

static inline void small_gemv(const float *x, int rows, int cols)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            sink += x[(i + j) % 4];
}

int main(int argc, char **argv)
{
    (void)argv;
    float x[4] = {1, 2, 3, 4};
    for (int r = 0; r < 5; r++)
        small_gemv(x, 9 + argc, 20);
    printf("%.1f\n", (double)sink);
    return 0;
}
