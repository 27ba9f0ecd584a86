/* The one file that names every part of libtprof.so (preload/main.c). */
#ifndef TPROF_MAIN_H
#define TPROF_MAIN_H

/* Make sure the library is initialised, its parts' table set first (idempotent, cheap after the
 * first call): the constructor, or the first allocation when it comes before. */
void tp_preload_init(void);

#endif
