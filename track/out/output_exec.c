/* Which image of a process owns the report's plain name. A wrapper (env X=1, a shell's exec, a
 * launcher script, a batch system's starter) execs the program the user meant to profile; the
 * image that execs cannot know whether the next one will exec again, so each image hands the
 * plain name on when it execs and the last one, the one that ends the process, takes it. An
 * image that execs writes its report under ".<image>" (track/out/output.c), and only when it did
 * something of its own: a wrapper's report would be one more file that says nothing.
 *
 * "Something of its own" is decided from the report alone, the same way on every run (no clock
 * or load in it): an op call or a step, or at least one allocation whose call stack has a frame
 * outside the system directories, where installed programs and libraries live. env, sh, bash
 * and a system python allocate only from there before they exec; a program built by the user
 * allocates from its own code. A site whose stack was not walked counts as the program's: it
 * is kept rather than lost. */
#include "track/out/output_exec.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/out/out.h"
#include "report/report.h"
#include "track/ops/ops.h"
#include "track/sites/sites.h"
#include "track/sym/sym.h"

static int own_site(const struct tp_site *s)
{
    if (s->allocs == 0)
        return 0;
    if (s->nframes == 0)
        return 1;
    for (size_t i = 0; i < s->nframes; i++)
        if (!tp_in_system_dir(s->frames[i].module, 1))
            return 1;
    return 0;
}

int tp_exec_worth_report(const struct tp_report *r)
{
    for (size_t i = 0; i < r->nops; i++)
        if (r->ops[i].calls > 0)
            return 1;
    if (r->steps.count > 0)
        return 1;
    for (size_t i = 0; i < r->memory.nsites; i++)
        if (own_site(&r->memory.sites[i]))
            return 1;
    return 0;
}

/* A site that allocated in this image from code of the program's own, as the report's test
 * (own_site) tells it from the symbolised frames, told here from the raw return addresses, and
 * never "no" where that test says yes: one in no module, or in a module outside the system
 * directories. tprof's own frames are passed over; a site left with one frame or none counts as
 * the program's (the symbolised site drops its first frame when it is the allocator's, operator
 * new, and a site with no frame left counts as the program's there). */
static int own_raw_site(uint32_t id)
{
    uint32_t n;
    const uintptr_t *pcs = id ? tp_site_frames(id, &n) : NULL;
    if (!pcs)
        return 1;
    int kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        char path[4096];
        if (tp_addr_is_ours(pcs[i]))
            continue;
        kept++;
        if (tp_symtab_module(pcs[i] - 1, path, sizeof path, NULL, NULL, NULL) < 0 ||
            !tp_in_system_dir(path, 1))
            return 1;
    }
    return kept <= 1;
}

/* An image that execs writes a report only when it did something of its own (tp_exec_worth_report
 * decides from the report), and most that exec did not: a shell's forked children, wrappers.
 * So the same question is asked first of the raw tables, with no name looked up: an op call, a
 * step, or an allocation of this image's from the program's own code. When the answer is no, the
 * report holds the program alone, in which that test finds nothing either: otherwise each of a
 * script's thousand children would symbolise the shell's call sites it inherited, for a report
 * that is not written. */
int tp_exec_own_work(void)
{
    if (tp_ops_any_work())
        return 1;
    uint32_t n = tp_sites_count();
    for (uint32_t i = 0; i < n; i++) {
        struct tp_site_sum s;
        tp_site_get(i, &s);
        if (s.nframes != 0 && s.allocs != 0 && own_raw_site(i))
            return 1;
    }
    return 0;
}

void tp_exec_image_name(const struct tp_report *r, int image_seq, char *out, size_t n)
{
    const char *exe = r->program.exe;
    const char *base = tp_base_name(exe, NULL);
    if (!base || !*base)
        base = "image";
    size_t j = 0;
    for (const char *p = base; *p && j < 40 && j + 1 < n; p++) {
        int c = (unsigned char)*p;
        out[j++] = isalnum(c) || strchr("_.+-", c) ? (char)c : '_';
    }
    out[j] = 0;
    if (image_seq > 0)
        snprintf(out + j, n - j, "-%d", image_seq);
}
