/* The merge of cli/merge/merge.c as one call for the fuzz target. Not part of the tprof build. */
#include "cli/merge/merge.h"
#include "report/render/render.h"
#include "shims.h"

int tp_fuzz_merge(const struct tp_report *in, size_t n, struct tp_report *out)
{
    static const char *const files[] = {"r0.json", "r1.json", "r2.json", "r3.json"};
    if (n > 4)
        return -1;
    int rc = tp_merge_reports(in, n, files, out);
    if (rc == 0)
        tp_analyze(out);
    return rc;
}
