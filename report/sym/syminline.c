/* Inlined functions at an address, from the DWARF scopes that contain it.
 *
 * A return address inside inlined code has one machine frame but several source frames: the line
 * table gives the innermost line only (a header's line, when a library's inline function made the
 * call), and the symbol table the real function around it all. Each DW_TAG_inlined_subroutine
 * between the two is one inlined function, and its DW_AT_call_file and DW_AT_call_line say where
 * the function around it called it: the chain down to the line of the real function's own source.
 * Without it, two calls of one inlined helper from two lines of a function are one source
 * position, and their sites one. */
#include "report/sym/syminline.h"

#include <dwarf.h>
#include <limits.h>
#include <string.h>

#include <stdlib.h>
#include "common/names/names.h"
#include "report/sym/sym.h"

/* The name a user knows a function by: the demangled linkage name for C++ (the symbol table's
 * form, so that a function named here when inlined is named alike where it is not), else the
 * plain name. Both are looked up through the abstract origin, where an inlined copy keeps them. */
static char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    if (!link)
        link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (link) {
        char *d = tp_demangle(link, 1);
        if (d)
            return d;
    }
    const char *name = dwarf_diename(die);
    if (!name)
        name = link;
    return name ? strdup(name) : NULL;
}

/* Where the function around an inlined one called it. */
static void call_position(Dwarf_Die *inl, Dwarf_Files *files, size_t nfiles, char **file, int *line)
{
    Dwarf_Attribute a;
    Dwarf_Word v;
    *file = NULL;
    *line = 0;
    if (files && dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &v) == 0 && v < nfiles) {
        const char *f = dwarf_filesrc(files, (size_t)v, NULL, NULL);
        if (f)
            *file = strdup(f);
    }
    if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &v) == 0 && v <= INT_MAX)
        *line = (int)v;
}

/* The scopes around pc from the innermost out to the compile unit, only those that hold it:
 * dwarf_getscopes adds, after an inlined function's own, the scopes of its abstract definition
 * (for variable lookups), which are no frames. The array is libdw's, freed with free. */
static int nesting(Dwarf_Die *cu, Dwarf_Addr at, Dwarf_Die **scopes)
{
    Dwarf_Die *all = NULL;
    int n = dwarf_getscopes(cu, at, &all);
    if (n <= 0) {
        free(all);
        return 0;
    }
    Dwarf_Die inner = all[0];
    free(all);
    *scopes = NULL;
    n = dwarf_getscopes_die(&inner, scopes);
    if (n <= 0) {
        free(*scopes);
        *scopes = NULL;
        return 0;
    }
    return n;
}

int tp_sym_inlines(Dwfl_Module *m, Dwarf_Addr pc, struct tp_frame *out, int max, char **call_file,
                   int *call_line)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = max > 0 ? dwfl_module_addrdie(m, pc, &bias) : NULL;
    Dwarf_Die *scopes = NULL;
    int n = cu ? nesting(cu, pc - bias, &scopes) : 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (n > 0 && dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    int k = 0;
    char *file = NULL; /* the call to the function of the last frame filled */
    int line = 0;
    for (int i = 0; i < n; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point)
            break;
        if (tag != DW_TAG_inlined_subroutine)
            continue; /* a lexical block */
        /* Past max, the chain loses middle frames but still ends at the real function's line. */
        if (k < max) {
            memset(&out[k], 0, sizeof out[k]);
            out[k].function = die_name(&scopes[i]);
            out[k].inlined = 1;
            out[k].file = file;
            out[k].line = line;
            k++;
        } else {
            free(file);
        }
        call_position(&scopes[i], files, nfiles, &file, &line);
    }
    free(scopes);
    if (k == 0) {
        free(file);
        return 0;
    }
    *call_file = file;
    *call_line = line;
    return k;
}
