#!/bin/sh
# Install what tprof needs to build and test on Debian 12, then generate the build system.
# Idempotent: a second run installs nothing new.
set -e
cd "$(dirname "$0")/.."
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
PKGS="build-essential autoconf automake libtool pkg-config \
  libunwind-dev uthash-dev check libdw-dev libelf-dev libjson-c-dev \
  libprotobuf-c-dev protobuf-c-compiler zlib1g-dev golang-go \
  libopenblas-dev libblas-dev libfann-dev python3 python3-jsonschema python3-numpy openmpi-bin libopenmpi-dev darknet dpkg-dev valgrind \
  g++ libgomp1 perl sqlite3 xz-utils git clang-format chromium strace groff-base"
# golang-go: tests/out_pprof.sh reads the pprof profiles with `go tool pprof` (62 MB; the
# test is skipped without it).
# The host sweep (tests/host_sweep.sh) runs python3-torch with TPROF_SWEEP=full: HOSTS=1 adds it.
if [ "${HOSTS:-0}" = 1 ]; then PKGS="$PKGS python3-torch"; fi
# The benchmarks compare against heaptrack and uftrace: BENCH=1 scripts/setup.sh adds them.
if [ "${BENCH:-0}" = 1 ]; then PKGS="$PKGS heaptrack uftrace bc linux-perf"; fi
# The fuzz targets (fuzz/README.md) need clang and libFuzzer: FUZZ=1 scripts/setup.sh adds them.
if [ "${FUZZ:-0}" = 1 ]; then PKGS="$PKGS clang libclang-rt-14-dev"; fi
missing=
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
[ -x configure ] || ./autogen.sh
# tests/out_speedscope.sh opens the trace and folded stacks in speedscope, headless in Chromium:
# the npm package (pinned), into tests/npm of the build tree. Skipped without npm.
SPEEDSCOPE_VERSION=1.25.0
if command -v npm > /dev/null &&
   [ "$(cat tests/npm/node_modules/speedscope/package.json 2> /dev/null |
        sed -n 's/^ *"version": "\(.*\)",$/\1/p')" != "$SPEEDSCOPE_VERSION" ]; then
  echo "setup: installing speedscope@$SPEEDSCOPE_VERSION into tests/npm"
  mkdir -p tests/npm
  npm install --prefix tests/npm --no-audit --no-fund --silent "speedscope@$SPEEDSCOPE_VERSION" ||
    echo "setup: npm install failed; tests/out_speedscope.sh will be skipped"
fi
