/* Plugins for tests/heap_gone.sh, loaded and unloaded by v_dlgone: libtpgone.so keeps a block of
 * its own; libtpgone2.so keeps one through libtpgonedep.so, which only it needs (so the dlclose of
 * libtpgone2.so unloads libtpgonedep.so too). */
#include <stdlib.h>
#include <string.h>

#if defined(TPGONE_DEP)
void *gonedep_keep(size_t n)
{
    char *p = malloc(n);
    if (p)
        memset(p, 2, n);
    return p;
}
#elif defined(TPGONE_TWO)
void *gonedep_keep(size_t n);
void *gone2_keep(size_t n)
{
    return gonedep_keep(n);
}
#else
void *gone_keep(size_t n)
{
    char *p = malloc(n);
    if (p)
        memset(p, 1, n);
    return p;
}
#endif
