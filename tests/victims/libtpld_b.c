/* The middle of a load-order fixture (tests/plt_loadorder.sh): a library whose constructor calls
 * dlopen(NULL), as libGLdispatch's does while PyTorch is being imported, and only then makes
 * the table its dependents' constructors read. A profiler that, inside this dlopen, opened one of
 * the objects still being loaded would run the constructor of libtpld_c.so (which needs this one)
 * before this one has finished. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static const int table[4] = {1, 2, 3, 4};
const int *tpld_table;

/* The order in which the fixture's constructors ran, in TPLD_ORDER, for the program to print. */
void tpld_note(const char *who)
{
    const char *o = getenv("TPLD_ORDER");
    char buf[64];
    size_t n = o ? strlen(o) : 0;
    if (n + strlen(who) + 1 >= sizeof buf)
        return;
    memcpy(buf, o ? o : "", n);
    strcpy(buf + n, who);
    setenv("TPLD_ORDER", buf, 1);
}

__attribute__((constructor)) static void b_init(void)
{
    void *self = dlopen(NULL, RTLD_LAZY);
    if (self)
        dlclose(self);
    tpld_note("B");
    tpld_table = table;
}
