#!/bin/sh
# darknet's program built from Debian's source against Debian's libdarknet.so
# (scripts/darknet-cli.sh, kept in the build tree), `speed` on tests/darknet/small.cfg under
# TPROF_OPS=gemm,im2col_cpu with the default settings: gemm and im2col_cpu through the PLT with
# the exact calls, shapes, FLOPs and bytes the cfg implies (tests/darknet/common.sh).
# Debian's libdarknet.so links GLib (through OpenCV: tprof's start-up PLT scan once ran GLib's
# constructors out of order and the program aborted) and libstdc++ (for its OpenCV glue: gemm and
# im2col_cpu are hooked because TPROF_OPS names them exactly). tests/darknet_ownlib.sh passes the
# same checks with a plain-C libdarknet.so.
. "$TS/lib.sh"
. "$TS/darknet/common.sh"
X=$("$TS/../scripts/darknet-cli.sh" "$TB/darknet-cli" 2> "$WORK/build.err") ||
  skip "$(tail -n 1 "$WORK/build.err")"
cli_checks "$X"
exit 0
