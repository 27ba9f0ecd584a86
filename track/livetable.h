/* The live-block table: for every block the program holds, its address -> (size, site, early).
 * Lock-free; what the figures are made of is heap.c's business, this only stores and finds. */
#ifndef TPROF_LIVETABLE_H
#define TPROF_LIVETABLE_H

#include <stdint.h>

/* A live block as the table knows it. */
struct tp_blk {
    uint64_t size;
    uint32_t site;
    int early; /* allocated before the first op or step */
};

/* A site number is kept in this many bits of a slot: the site table is capped to fit. Sizes keep
 * 40 bits (a bigger block is recorded as 2^40 - 1 bytes). */
#define TP_LIVE_SITE_BITS 23

/* Map the first generation; 0, or -1 when it cannot be mapped. warn (NULL for none) is told when
 * the table cannot grow later. Idempotent. */
int tp_live_init(void (*warn)(const char *fmt, ...));
/* Record block p; 0, or -1 when the table is full and cannot grow (the block is not recorded).
 * p must not be in the table. */
int tp_live_insert(void *p, const struct tp_blk *b);
/* Take p out; 1 and *b when it was there, 0 when not (an unknown block, or a double free that
 * another thread won). */
int tp_live_remove(void *p, struct tp_blk *b);
/* The calling thread is exiting (a key destructor): add in what it counted locally, and from now
 * on add every change at once. */
void tp_live_thread_exit(void);
/* The growth lock across fork, so that a child never starts with a generation half added. */
void tp_live_fork_prepare(void);
void tp_live_fork_parent(void);
void tp_live_fork_child(void);

#endif
