#!/bin/sh
# The whole test suite from a fresh clone: install, build, `make check`. Then the same sources
# built with ASan and UBSan (./configure --enable-sanitizers, tests/sanitize.mk) in build-asan/,
# where the unit tests and the CLI tests run instrumented; SANITIZE=0 leaves that build out.
set -e
cd "$(dirname "$0")/.."
t0=$(date +%s)
./scripts/setup.sh
[ -f Makefile ] || ./configure -q
make -j"$(nproc)" >/dev/null
# Print the log of every failed test under directory $1 (automake's .trs files hold lines such
# as ":test-result: FAIL").
failures() {
  for f in $(find "$1" -path ./build-asan -prune -o -name '*.trs' -print); do
    grep -q '^:test-result: \(FAIL\|ERROR\|XPASS\)' "$f" 2>/dev/null || continue
    echo "==== ${f%.trs}.log"
    tail -60 "${f%.trs}.log"
  done
}
status=0
if ! make -j"$(nproc)" check; then
  failures .
  status=1
fi
echo "==== make check: $(($(date +%s) - t0)) s"
[ "${SANITIZE:-1}" = 0 ] && exit $status
t0=$(date +%s)

# The tree above is configured in place, and a second, out-of-tree build cannot share it (make
# would find the plain objects through VPATH). build-asan/src gets the sources as git has them
# (HEAD plus uncommitted changes to tracked files, never build products) and the generated build
# system. Files get the snapshot's time: a second run on the same commit rebuilds nothing.
echo "==== sanitizer build (ASan+UBSan) in build-asan/"
mkdir -p build-asan/src
if git rev-parse --git-dir > /dev/null 2>&1; then
  snap=$(git stash create 2> /dev/null || true)
  git archive "${snap:-HEAD}" | tar -x -C build-asan/src -f -
  cp -pR configure Makefile.in aclocal.m4 build-aux m4 build-asan/src/
else
  make distdir distdir=build-asan/src > /dev/null
fi
cd build-asan
[ -f Makefile ] || src/configure -q --enable-sanitizers
# Only the unit tests and the CLI tests: the scenarios that preload libtprof.so are skipped in
# this build (tests/sanitize.mk), so their victims are not even built.
if ! make -j"$(nproc)" check-sanitized; then
  failures .
  status=1
fi
echo "==== sanitizer build and make check: $(($(date +%s) - t0)) s"
exit $status
