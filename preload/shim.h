/* What every file that defines an interposed name shares: the attributes of its definitions. */
#ifndef TPROF_PRELOAD_SHIM_H
#define TPROF_PRELOAD_SHIM_H

/* The interposed names are the only symbols libtprof.so exports (everything else is hidden). */
#define TP_EXPORT __attribute__((visibility("default")))
/* A shim is never itself an instrumented function: with -finstrument-functions it would call
 * the hooks that call it. */
#define TP_NOINSTR __attribute__((no_instrument_function))
/* A shim whose hot paths end in a jump to the function that does the work: with no frame of its
 * own there, nothing is saved or restored for them (its frame would only be skipped by tprof's own
 * walks, which start in the function jumped to). */
#if defined(__GNUC__) && !defined(__clang__)
#define TP_DISPATCH __attribute__((optimize("omit-frame-pointer")))
#else
#define TP_DISPATCH
#endif

#endif
