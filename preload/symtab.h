/* Function names by address for the ops-by-name hooks: from each module's .symtab when it has one
 * (static functions included), else .dynsym; modules loaded later are picked up on a miss. */
#ifndef TPROF_SYMTAB_H
#define TPROF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

/* The name of the function starting at (or containing) addr, into out. 0, or -1 if unknown.
 * Thread-safe; slow (the caller caches): takes a lock and may read ELF files. */
int tp_symtab_name(uintptr_t addr, char *out, size_t n);

#endif
