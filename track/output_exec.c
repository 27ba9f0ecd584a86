/* Which image of a process owns the report's plain name. A wrapper (env X=1, a shell's exec, a
 * launcher script, a batch system's starter) execs the program the user meant to profile; the
 * image that execs cannot know whether the next one will exec again, so each image hands the
 * plain name on when it execs and the last one, the one that ends the process, takes it. An
 * image that execs writes its report under ".<image>" (track/output.c), and only when it did
 * something of its own: a wrapper's report would be one more file that says nothing.
 *
 * "Something of its own" is decided from the report alone, the same way on every run (no clock
 * or load in it): an op call or a step, or at least one allocation whose call stack has a frame
 * outside the system directories, where installed programs and libraries live. env, sh, bash
 * and a system python allocate only from there before they exec; a program built by the user
 * allocates from its own code. A site whose stack was not walked counts as the program's: it
 * is kept rather than lost. */
#include "track/output_exec.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"

static int in_system_dir(const char *module)
{
    static const char *dirs[] = {"/lib/",  "/lib64/",   "/usr/lib/",  "/usr/lib64/",  "/bin/",
                                 "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/libexec/"};
    for (size_t d = 0; module && d < sizeof dirs / sizeof dirs[0]; d++)
        if (!strncmp(module, dirs[d], strlen(dirs[d])))
            return 1;
    return 0;
}

static int own_site(const struct tp_site *s)
{
    if (s->allocs == 0)
        return 0;
    if (s->nframes == 0)
        return 1;
    for (size_t i = 0; i < s->nframes; i++)
        if (!in_system_dir(s->frames[i].module))
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

void tp_exec_image_name(const struct tp_report *r, int image_seq, char *out, size_t n)
{
    const char *exe = r->program.exe;
    const char *slash = exe ? strrchr(exe, '/') : NULL;
    const char *base = slash ? slash + 1 : exe;
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
