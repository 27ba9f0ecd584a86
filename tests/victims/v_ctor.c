/* Linked against libtpctor.so, whose constructor allocated a block before main. */
#include <stdio.h>

extern void *tpctor_block;

int main(void)
{
    printf("%s\n", tpctor_block ? "constructed" : "no block");
    return 0;
}
