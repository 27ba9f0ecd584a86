/* The merge of src/cmd_merge.c as a function for the fuzz target (its helpers are static). Not
 * part of the tprof build. */
#include "../src/cmd_merge.c"

#include "shims.h"

int tp_fuzz_merge(const struct tp_report *in, size_t n, struct tp_report *out)
{
    static const char *const files[] = {"r0.json", "r1.json", "r2.json", "r3.json"};
    if (n > 4)
        return -1;
    int rc = merge_all(in, n, files, out);
    if (rc == 0)
        tp_analyze(out);
    return rc;
}
