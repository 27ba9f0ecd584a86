/* tprof's own thread-local storage, kept out of the program's heap figures.
 *
 * Every thread the program starts gets a DTV from the dynamic loader (allocate_dtv: calloc of
 * (highest TLS module id + 16) slots of 16 bytes), kept with the thread's cached stack until the
 * process ends. libtprof.so's own TLS and the libraries of elfutils' namespace (track/sym/dwlib.c:
 * a second libc, libdw, libelf) hold module ids of their own, so under tprof each of those DTVs
 * is 16 bytes per such module larger than the program alone makes it. That surplus is tprof's:
 * the calloc shim records the DTV at the size the program would have had. */
#ifndef TPROF_TLSOWN_H
#define TPROF_TLSOWN_H

#include <stddef.h>
#include <stdint.h>

/* Count the TLS modules tprof holds: libtprof.so's own, and those of the link-map namespace of
 * ns_handle (a dlmopen handle, NULL when none was loaded). Called where the dynamic loader may
 * run (tp_dw_load, inside its own work). Until then libtprof.so's one module is assumed. */
void tp_tls_own_count(void *ns_handle);
/* Bytes of a calloc(n, m) made from return address ra that are tprof's: the DTV surplus when the
 * call is the dynamic loader's allocation of a DTV (m is a DTV slot, the caller is the loader),
 * else 0. Never takes a lock. */
size_t tp_tls_dtv_surplus(uintptr_t ra, size_t n, size_t m);

#endif
