#!/bin/sh
# libtprof.so asks the dynamic loader for libc alone: what it needs of elfutils is loaded at run
# time into a namespace of its own, and nothing of libunwind or libm is linked. A DT_NEEDED on any
# other library would put it in every profiled program, where the program's own dlopen, dlclose
# and RTLD_NOLOAD would see it.
. "$TS/lib.sh"
command -v readelf >/dev/null 2>&1 || { echo "readelf (binutils) is not installed"; exit 77; }
needed=$(LC_ALL=C readelf -d "$TPROF_SO" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | sort | tr '\n' ' ')
case "$needed" in
"libc.so.6 " | "ld-linux-x86-64.so.2 libc.so.6 ") ;;
*) fail "libtprof.so needs: ${needed:-nothing?} (expected libc.so.6 alone)" ;;
esac
