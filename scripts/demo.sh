#!/bin/sh
# Install, build, and profile the bundled example models, printing each report.
set -e
cd "$(dirname "$0")/.."
./scripts/setup.sh
[ -f Makefile ] || ./configure -q
make -j"$(nproc)" >/dev/null
make demo
