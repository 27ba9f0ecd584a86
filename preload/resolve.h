/* Finding the real definition of a symbol tprof interposes. */
#ifndef TPROF_RESOLVE_H
#define TPROF_RESOLVE_H

/* dlsym(RTLD_NEXT) first; when that fails (the library was loaded RTLD_LOCAL by a plugin or a
 * Python extension, so it is not in the global scope), every loaded object is asked through
 * dlopen(RTLD_NOLOAD) + dlsym(handle). NULL if no object defines it (yet). */
void *tp_resolve_next(const char *name);

#endif
