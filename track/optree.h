/* Stacks of nested ops for the op-time flame graph (TPROF_FOLDED; implemented in
 * preload/optree.c). A node is one path of ops from the outermost: (parent node, op). */
#ifndef TPROF_OPTREE_H
#define TPROF_OPTREE_H

#include <stdint.h>

struct tp_report;

#define TP_OPTREE_NONE (-1) /* no parent: the op is outermost */
#define TP_OPTREE_FULL (-2) /* the table was full: the call and those nested in it are counted apart */

/* 1 when TPROF_FOLDED is set and the table exists. */
extern int tp_optree_on;

void tp_optree_init(void);
void tp_optree_fork_child(void);
/* The node of op id called inside node parent (TP_OPTREE_NONE at the outermost level). */
int tp_optree_child(int parent, int id);
/* A call of node ended: its inclusive and exclusive ticks. */
void tp_optree_add(int node, uint64_t total, uint64_t self);
/* Fill r->opstacks (times in ns) and r->opstacks_dropped. */
void tp_optree_collect(struct tp_report *r);

#endif
