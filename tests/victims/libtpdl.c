/* A library loaded and unloaded at run time; it allocates in its constructor and in a call. */
#include <stdlib.h>

static void *held;

__attribute__((constructor)) static void tpdl_init(void) { held = malloc(1500); }
__attribute__((destructor)) static void tpdl_fini(void) { free(held); }

void *tpdl_alloc(size_t n) { return malloc(n); }
