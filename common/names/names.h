/* Function names: the sorted symbol index that the hooks' names (track/sym/symtab.c) and the
 * report's (report/sym/symbolize.c) both search, and C++ names demangled. The one header of
 * common/names/ for code outside it. */
#ifndef TPROF_COMMON_NAMES_NAMES_H
#define TPROF_COMMON_NAMES_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Function symbols of one module sorted by address, and the lookup of the function that holds an
 * address: one rule for the names the hooks see (track/sym/symtab.c, read from the files) and the names
 * the report shows (report/sym/symbolize.c, read through libdwfl). Built once per module, then every
 * address costs a binary search, however many symbols the module has.
 *
 * The rule, that of libdwfl's dwfl_module_addrinfo: a symbol with a size holds [start,
 * start+size); one of size 0 (hand-written assembly) only its own first byte; among aliases at
 * one address the one with a size, then the best binding (global, weak, local), then the first in
 * the symbol table names it. A function that encloses another symbol (nested labels) is found by
 * looking back at most TP_SYMINDEX_BACK symbols. */
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
 * becomes the count kept. scratch: room for *n more, from the caller's allocator (the sort is
 * several times faster with it), or NULL. */
void tp_symindex_finish(struct tp_sym *v, size_t *n, struct tp_sym *scratch);
/* The symbol of sorted v[0..n) that holds a, or NULL. */
const struct tp_sym *tp_symindex_find(const struct tp_sym *v, size_t n, uintptr_t a);

/* C++ names demangled, by libstdc++'s own demangler (common/names/demangle.c). */
/* __cxa_demangle's type: the result is malloc'ed by libstdc++'s process allocator. */
typedef char *(*tp_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

/* libstdc++'s demangler, or NULL. load 0 (inside the profiled process): only one already
 * loaded, as loading a library there would change what the program's dlopen finds; load 1 (the
 * tprof program): loaded when none is. A search that found none is made again next time. */
tp_demangle_fn tp_demangler(int load);
/* A C++ linkage name demangled (malloc'ed by the demangler, with the process's malloc), or NULL
 * when it is none or cannot be; load as for tp_demangler. */
char *tp_demangle(const char *name, int load);

/* The name an op is shown by in the text report's tables and sentences and the HTML page's
 * tables (common/names/shortname.c): a ggml graph node's function ggml_compute_forward_<op> as
 * its op ("mul_mat"); any other name as it is. The JSON keeps the full name, and the report
 * says what the short ones stand for. A pointer into name. */
const char *tp_name_short(const char *name);
/* Is name shown shorter than it is? */
int tp_name_shortened(const char *name);

#endif
