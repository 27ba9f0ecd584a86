/* The libraries whose functions are never ops (see track/sym/sym.h). */
#include "track/sym/sym.h"
#include "common/out/out.h"

#include <stddef.h>
#include <string.h>

/* The C runtime, the toolchain's and languages' runtimes, system libraries and tprof's own
 * dependencies: their exports are not ML ops (glibc's iconv would match *conv*, OpenSSL's
 * *update* digests), tprof must not hook calls it makes itself, and the hook must not be in the
 * way of code that is called millions of times or plays tricks with its own functions. */
int tp_syslib_denied(const char *path)
{
    static const char *const prefixes[] = {
        "libc.so", "libm.so", "libmvec.so", "ld-linux", "ld64.so", "libpthread.so", "libdl.so",
        "librt.so", "libgcc_s.so", "libstdc++", "libc++", "libunwind", "libdw.so", "libdw-",
        "libelf.so", "libelf-", "libz.so", "liblzma.so", "libbz2.so", "libzstd.so", "libgomp.so",
        "libtprof", "linux-vdso", "libresolv.so", "libnss_", "libcrypt.so", "libatomic.so",
        "libquadmath.so", "libgfortran.so", "libcrypto.so", "libssl.so", "libgcrypt.so",
        "libgpg-error.so", "libgnutls.so", "libnettle.so", "libhogweed.so", "libgmp.so",
        "libpython", "libffi.so", "libexpat.so", "libuuid.so", "liblz4.so", "libbrotli",
        "libsqlite3.so", "libreadline.so", "libtinfo.so", "libncurses", "libglib-2.0",
        "libgobject-2.0", "libgio-2.0", "libgmodule-2.0", "libgthread-2.0", "libpcre",
        "libselinux.so", "libsystemd.so", "libcap.so", "libdbus-1.so", "libomp.so", "libiomp5.so",
        "libtbb", "libnuma.so",
        /* MPI runtimes' internals (opal_convertor_* matched *conv*); libmpi's API stays. */
        "libopen-pal.so", "libopen-rte.so", "libpmix.so", "mca_", "libhwloc.so", "libevent",
        "libucp.so", "libucs.so", "libuct.so", "libfabric.so", "libpsm"};
    const char *b = tp_base_name(path, NULL);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(b, prefixes[i], strlen(prefixes[i])))
            return 1;
    return 0;
}
