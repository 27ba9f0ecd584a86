/* A library with a build-id and nothing else to name it by: linked stripped (no .symtab, no
 * DWARF), and no debug file on this machine. Symbolising a frame in it makes libdwfl look for its
 * separate debug information, which is where a debuginfod server would be asked. */
#include <stdlib.h>

__attribute__((noinline)) void *tpnodebug_alloc(size_t n)
{
    void *p = malloc(n);
    __asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays */
    return p;
}
