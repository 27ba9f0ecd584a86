/* The trace's heap counter track (TPROF_TRACE): a thread of ours samples the live heap bytes into
 * the trace buffer (tracebuf.h). */
#ifndef TPROF_TRACE_HEAP_H
#define TPROF_TRACE_HEAP_H

/* Start the heap sampler thread (from the constructor, never inside malloc). */
void tp_trace_start(void);
/* In a fork child: the trace starts afresh (tracebuf.h) and the sampler, which did not survive
 * the fork, is started again. */
void tp_trace_fork_child(void);

#endif
