/* tests/heap_roles.sh: an interpreter in small. Run under its own name it is a C program; copied
 * to a file named python3.99 it is, to tprof, a python executable. Either way it keeps until exit:
 * 3 tensors of 65,536 bytes from c10::alloc_cpu (libtpc10.cc), 5 "objects" of 1,000 bytes it
 * allocates itself (py_object_new), the 256-byte state of an extension's import (PyInit_tpext) and
 * the extension's own 4,096-byte block (ext_keep). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *_ZN3c109alloc_cpuEm(size_t nbytes); /* c10::alloc_cpu(unsigned long) */
void *PyInit_tpext(void);
void *ext_keep(size_t n);

static void *kept[16];

__attribute__((noinline)) static void *py_object_new(size_t n)
{
    char *p = malloc(n);
    if (p)
        memset(p, 3, n);
    return p;
}

int main(void)
{
    int k = 0;
    kept[k++] = PyInit_tpext();
    for (int i = 0; i < 3; i++)
        kept[k++] = _ZN3c109alloc_cpuEm(65536);
    for (int i = 0; i < 5; i++)
        kept[k++] = py_object_new(1000);
    kept[k++] = ext_keep(4096);
    for (int i = 0; i < k; i++)
        if (!kept[i])
            return 1;
    printf("kept %d blocks\n", k);
    return 0;
}
