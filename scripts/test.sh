#!/bin/sh
# The whole test suite from a fresh clone: install, build, `make check`.
set -e
cd "$(dirname "$0")/.."
./scripts/setup.sh
[ -f Makefile ] || ./configure -q
make -j"$(nproc)" >/dev/null
if ! make -j"$(nproc)" check; then
  for f in $(find . -name '*.log' ! -name config.log ! -name test-suite.log); do
    grep -q '^FAIL\|^ERROR' "${f%.log}.trs" 2>/dev/null && { echo "==== $f"; tail -40 "$f"; }
  done
  exit 1
fi
