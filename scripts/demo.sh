#!/bin/sh
# Install, build, and profile the bundled example models, printing each report.
set -e
cd "$(dirname "$0")/.."
./scripts/setup.sh
[ -f Makefile ] || ./configure -q
make -j"$(nproc)" >/dev/null
# The machine's peaks, measured once through the BLAS (about a second) and cached, before any
# report: a cached calibration is only shown, a quick synthetic one from an earlier profile is
# replaced. Without it the first report would measure its own at exit.
# Status 3: measured on a busy machine, cached marked busy (the line above it says why; the
# reports say so too).
rc=0
./tprof calibrate --quick || rc=$?
case $rc in
  0 | 3) ;;
  *) echo "demo: no calibration; the first report measures quick peaks" ;;
esac
make demo
