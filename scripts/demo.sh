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
./tprof calibrate --quick || echo "demo: no calibration; the first report measures quick peaks"
make demo
