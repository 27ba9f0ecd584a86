/* The diff of cli/diff/diff.c as one call for the fuzz target. Not part of the tprof build. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli/diff/diff.h"
#include "shims.h"

int tp_fuzz_diff(const struct tp_report *A, const struct tp_report *B, struct tp_buf *text_out,
                 char **json_out)
{
    struct tp_diff d;
    *json_out = NULL;
    if (tp_diff_build(A, B, &d) < 0)
        return -1;
    tp_diff_text(&d, "a.json", "b.json", A, B, 1000, text_out);
    struct json_object *j = tp_diff_json(&d, "a.json", "b.json", A, B);
    const char *s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
    *json_out = s ? strdup(s) : NULL;
    json_object_put(j);
    tp_diff_free(&d);
    return 0;
}
