/* Linked against libtpburn.so, whose constructor spun 400 ms of CPU before main; main spins
 * 50 ms more. Prints "spun". */
#include <stdio.h>

void tpburn_spin(double seconds);

int main(void)
{
    tpburn_spin(0.05);
    puts("spun");
    return 0;
}
