/* Function symbols of one module sorted by address, and the lookup of the function that holds an
 * address: one rule for the names the hooks see (track/sym/symtab.c, read from the files) and the names
 * the report shows (track/sym/symbolize.c, read through libdwfl). Built once per module, then every
 * address costs a binary search, however many symbols the module has.
 *
 * The rule, that of libdwfl's dwfl_module_addrinfo: a symbol with a size holds [start,
 * start+size); one of size 0 (hand-written assembly) only its own first byte; among aliases at
 * one address the one with a size, then the best binding (global, weak, local), then the first in
 * the symbol table names it. A function that encloses another symbol (nested labels) is found by
 * looking back at most TP_SYMINDEX_BACK symbols. */
#ifndef TPROF_SYMINDEX_H
#define TPROF_SYMINDEX_H

#include <stddef.h>
#include <stdint.h>

struct tp_sym {
    uintptr_t start;
    uint64_t size;
    const char *name; /* owned by whoever built the array */
    uint32_t order;   /* index in the symbol table: the tie-break between equal aliases */
    uint8_t rank;     /* tp_sym_rank */
    uint8_t hidden;   /* visibility other than default: never in .dynsym, no PLT call reaches it */
};

#define TP_SYMINDEX_BACK 8

/* GLOBAL 0, WEAK 1, LOCAL 2, anything else 3: lower names an address first. */
int tp_sym_rank(int elf_binding);
/* Sort v[0..*n) by address and keep one symbol per address (the alias that names it); *n
 * becomes the count kept. */
void tp_symindex_finish(struct tp_sym *v, size_t *n);
/* The symbol of sorted v[0..n) that holds a, or NULL. */
const struct tp_sym *tp_symindex_find(const struct tp_sym *v, size_t n, uintptr_t a);

#endif
