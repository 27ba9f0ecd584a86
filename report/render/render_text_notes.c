/* The report's notes in the text (report/render/render_text.h).
 *
 * The full report wraps every note whole. The short one gives each at most one line, cut at the
 * width: a tensor library's run makes dozens of "counted, not timed" notes, one per function too
 * short to time, and a few caveats on how figures are measured open every report; a terminal
 * shows the verdict only if they do not fill it. The notes too short to time are one line with
 * their count and names; past SHORT_NOTES lines (a second fits in the place of the line that would
 * say it is left out), one line says how many more the full report and the JSON hold. */
#include <stdio.h>
#include <string.h>

#include "report/render/render_text.h"

#define SHORT_NOTES 1
#define COUNTED     ": counted, not timed after its first"

/* A note on a function too short to time: "name: N calls of ~X ns: counted, not timed ...". */
static int counted_note(const char *n)
{
    return strstr(n, COUNTED) != NULL;
}

/* One line: prefix and text, cut at the width with "...". */
static void one_line(struct tp_text_ctx *c, const char *prefix, const char *text)
{
    size_t room = (size_t)c->width > strlen(prefix) + 3 ? (size_t)c->width - strlen(prefix) : 3;
    size_t len = strlen(text);
    if (len <= room)
        tp_buf_printf(c->b, "%s%s\n", prefix, text);
    else
        tp_buf_printf(c->b, "%s%.*s...\n", prefix, (int)(room - 3), text);
}

void tp_text_notes(struct tp_text_ctx *c)
{
    const struct tp_report *r = c->r;
    if (c->full) {
        for (size_t i = 0; i < r->nnotes; i++)
            tp_text_wrap(c, "note: ", r->notes[i], 6);
        return;
    }
    size_t counted = 0, shown = 0, more = 0;
    struct tp_buf names;
    tp_buf_init(&names);
    for (size_t i = 0; i < r->nnotes; i++) {
        const char *n = r->notes[i];
        if (counted_note(n)) {
            const char *colon = strchr(n, ':');
            tp_buf_printf(&names, "%s%.*s", counted ? ", " : "", colon ? (int)(colon - n) : 0, n);
            counted++;
            continue;
        }
        if (shown < SHORT_NOTES) {
            one_line(c, "note: ", n);
            shown++;
        } else {
            more++;
        }
    }
    /* a last note fits where the line saying it is left out would go */
    if (more == 1) {
        for (size_t i = r->nnotes; i-- > 0;)
            if (!counted_note(r->notes[i])) {
                one_line(c, "note: ", r->notes[i]);
                break;
            }
        more = 0;
    }
    if (counted) {
        char head[160];
        snprintf(head, sizeof head,
                 "note: %zu function%s counted, not timed (too short: "
                 "TPROF_DEMOTE): ",
                 counted, counted == 1 ? "" : "s");
        one_line(c, head, tp_buf_str(&names));
    }
    if (more)
        tp_text_say(c, "note: %zu more in the full report (TPROF_DETAIL=full, --full) and the JSON",
                    more);
    tp_buf_free(&names);
}
