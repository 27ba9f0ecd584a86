/* The report of a process image as it execs another (track/out/output_exec.c): whether it has one,
 * and the name that tells it apart from the report of the program it starts. */
#ifndef TPROF_OUTPUT_EXEC_H
#define TPROF_OUTPUT_EXEC_H

#include <stddef.h>

struct tp_report;

/* 1 when the image did something of its own before it exec'd: an op call or a step, or an
 * allocation by code outside the system directories. */
int tp_exec_worth_report(const struct tp_report *r);

/* The same question asked of the raw tables before any report is collected, with no name looked
 * up (an op call, a step, an allocation of this image's from a module outside the system
 * directories): 0 only when tp_exec_worth_report would find nothing either. */
int tp_exec_own_work(void);

/* The image's name for its report files: the file name of its executable (r->program.exe),
 * other than [A-Za-z0-9_.+-] made '_', with "-<N>" when N images of the process came before it
 * (so that a program that execs itself twice names two files). */
void tp_exec_image_name(const struct tp_report *r, int image_seq, char *out, size_t n);

#endif
