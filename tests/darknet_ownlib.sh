#!/bin/sh
# darknet's program and library built from Debian's source without OpenCV (plain C: tprof hooks
# its exports; scripts/darknet-cli.sh --own-lib, kept in the build tree), `speed` on
# tests/darknet/small.cfg: gemm and im2col_cpu through the PLT with the exact calls, shapes,
# FLOPs and bytes the cfg implies, and the library's heap by function (tests/darknet/common.sh).
. "$TS/lib.sh"
. "$TS/darknet/common.sh"
X=$(DARKNET_OPT=-O1 "$TS/../scripts/darknet-cli.sh" --own-lib "$TB/darknet-cli" 2> "$WORK/build.err") ||
  skip "$(tail -n 1 "$WORK/build.err")"
cli_checks "$X"
exit 0
