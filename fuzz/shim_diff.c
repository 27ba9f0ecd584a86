/* The diff of src/cmd_diff.c as a function for the fuzz target: its helpers are static, so the
 * file is compiled into this one. Not part of the tprof build. */
#include "../src/cmd_diff.c"

#include "shims.h"

int tp_fuzz_diff(const struct tp_report *A, const struct tp_report *B, struct tp_buf *text_out,
                 char **json_out)
{
    struct oprow *ops = NULL;
    struct tp_keyed_site *ka = NULL, *kb = NULL;
    struct siterow *sites = NULL;
    size_t nops = 0, na = 0, nb = 0;
    int rc = -1;
    *json_out = NULL;
    if (op_rows(A, B, &ops, &nops) == 0 &&
        tp_sites_by_key(A->memory.sites, A->memory.nsites, &ka, &na) == 0 &&
        tp_sites_by_key(B->memory.sites, B->memory.nsites, &kb, &nb) == 0 &&
        (sites = calloc(na + nb + 1, sizeof *sites))) {
        size_t nsites = site_rows(ka, na, kb, nb, sites);
        text("a.json", "b.json", A, B, ops, nops, sites, nsites, 1000, text_out);
        struct json_object *d = json("a.json", "b.json", A, B, ops, nops, sites, nsites);
        const char *s = json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN);
        *json_out = s ? strdup(s) : NULL;
        json_object_put(d);
        rc = 0;
    }
    free(ops);
    free(sites);
    tp_keyed_sites_free(ka, na);
    tp_keyed_sites_free(kb, nb);
    return rc;
}
