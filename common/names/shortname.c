/* The name an op goes by in the text and HTML tables (common/names/names.h). */
#include "common/names/names.h"

#include <string.h>

#define GGML_NODE "ggml_compute_forward_"

const char *tp_name_short(const char *name)
{
    /* A ggml user knows a node by its op: ggml_compute_forward_mul_mat is mul_mat. */
    if (name && !strncmp(name, GGML_NODE, sizeof GGML_NODE - 1) && name[sizeof GGML_NODE - 1])
        return name + sizeof GGML_NODE - 1;
    return name;
}

int tp_name_shortened(const char *name)
{
    return name && tp_name_short(name) != name;
}
