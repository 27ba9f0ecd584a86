/* Stacks of nested ops for the op-time flame graph (TPROF_FOLDED; implemented in
 * track/ops/optree.c, collected into the report by ops_collect.c). A node is one path of ops from
 * the outermost: (parent node, op). */
#ifndef TPROF_OPTREE_H
#define TPROF_OPTREE_H

#include <stdint.h>

#define TP_OPTREE_NONE (-1) /* no parent: the op is outermost */
#define TP_OPTREE_FULL                                                                             \
    (-2) /* the table was full: the call and those nested in it are counted apart */

/* 1 when TPROF_FOLDED is set and the table exists. */
extern int tp_optree_on;

void tp_optree_init(void);
void tp_optree_fork_child(void);
/* The node of op id called inside node parent (TP_OPTREE_NONE at the outermost level). */
int tp_optree_child(int parent, int id);
/* A call of node ended: its inclusive and exclusive ticks. */
void tp_optree_add(int node, uint64_t total, uint64_t self);

/* A node as the report reads it: its op, the node it was called in (TP_OPTREE_NONE when
 * outermost) and its counts, in ticks. */
struct tp_optree_node {
    int parent, op;
    uint64_t calls, total, self;
};
/* Slots in the table, 0 when it is off: nodes are read by slot, from 0 to slots - 1. */
uint32_t tp_optree_slots(void);
/* Read the node in slot i (< tp_optree_slots()): 1, or 0 when the slot is free. */
int tp_optree_read(uint32_t i, struct tp_optree_node *out);
/* Calls made under a full table (and those nested in them). */
uint64_t tp_optree_dropped(void);

#endif
