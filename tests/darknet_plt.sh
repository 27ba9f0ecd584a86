#!/bin/sh
# darknet's program built from Debian's source against Debian's libdarknet.so
# (scripts/darknet-cli.sh, kept in the build tree), `speed` on tests/darknet/small.cfg under
# TPROF_OPS=gemm,im2col_cpu with the default settings: gemm and im2col_cpu through the PLT with
# the exact calls, shapes, FLOPs and bytes the cfg implies (tests/darknet/common.sh).
# An expected failure (XFAIL_TESTS in tests/darknet.mk) while tprof has two faults that
# docs/darknet.md describes: its start-up PLT scan crashes programs linking GLib (Debian's
# libdarknet.so does, through OpenCV), and it hooks nothing in a library that links libstdc++
# (Debian's libdarknet.so does, for its OpenCV glue). tests/darknet_ownlib.sh passes the same
# checks with a plain-C libdarknet.so.
. "$TS/lib.sh"
. "$TS/darknet/common.sh"
X=$("$TS/../scripts/darknet-cli.sh" "$TB/darknet-cli" 2> "$WORK/build.err") ||
  skip "$(tail -n 1 "$WORK/build.err")"
cli_checks "$X"
exit 0
