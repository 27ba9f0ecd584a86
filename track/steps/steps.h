/* Steps and the TPROF_SCHEDULE window (track/steps/steps.c). tp_step_begin, tp_step_end and
 * tp_step_mark are declared in track/ops/ops.h, with the ops that call them. */
#ifndef TPROF_STEPS_H
#define TPROF_STEPS_H

#include <stdint.h>

/* Is what runs now inside the recorded window of steps? Always 1 without TPROF_SCHEDULE. */
int tp_steps_in_window(void);
/* Steps the run began, in the TPROF_SCHEDULE window or not (with tprof_step() markers: the
 * marks). */
uint64_t tp_steps_seen(void);
/* The step histogram, made when the op table is. */
void tp_steps_init(void);
/* In a fork child: the child's steps start from none. */
void tp_steps_fork_child(void);

#endif
