#include "sitekey.h"

#include <stdio.h>
#include <string.h>

void tp_site_key(const struct tp_site *s, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < s->nframes && used + 1 < n; i++) {
        const struct tp_frame *f = &s->frames[i];
        const char *mod = f->module ? strrchr(f->module, '/') : NULL;
        mod = mod ? mod + 1 : (f->module ? f->module : "?");
        int w;
        if (f->function && f->line)
            w = snprintf(out + used, n - used, "%s%s@%s:%d", i ? "|" : "", f->function,
                         f->file ? f->file : "?", f->line);
        else if (f->function)
            w = snprintf(out + used, n - used, "%s%s@%s", i ? "|" : "", f->function, mod);
        else
            w = snprintf(out + used, n - used, "%s%s+%llx", i ? "|" : "", mod,
                         (unsigned long long)f->offset);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}
