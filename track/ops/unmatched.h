/* Settings that name functions nobody called: TPROF_STEP, and the exact names (no glob) listed
 * in TPROF_OPS. Told once the run is over, with the closest names the hooks saw (track/ops/seen.h):
 * a misspelt step otherwise drops the STEPS section without a word. */
#ifndef TPROF_UNMATCHED_H
#define TPROF_UNMATCHED_H

struct tp_report;

/* Add a note to r for every such setting, given r's ops and steps. final: the last report of
 * this image (a snapshot cannot know that a function will never be called); the notes then also
 * go to stderr, once per image, unless the text report is written there. */
void tp_unmatched_notes(struct tp_report *r, int final);
/* 1 when there is such a setting to check at all: TPROF_STEP, or an exact name in TPROF_OPS (the
 * default list has none). */
int tp_unmatched_possible(void);

#endif
