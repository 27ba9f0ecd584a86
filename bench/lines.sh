#!/bin/sh
# How much code runs inside the profiled process: the lines of the sources libtprof.so is built
# from (make print-libtprof-sources), per folder and in all, with the lines that are code alone
# (not blank, not only comment). The CLI's own sources are not counted.
# Usage: bench/lines.sh [BUILD_DIR]   (default: the source tree, built in place)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-$src}
make -s -C "$b" print-libtprof-sources > /tmp/tprof-lines.$$ || exit 2
cd "$src"
code() { # files...: lines that are neither blank nor only comment
  awk '/^[ \t]*$/ { next }
       /^[ \t]*\/\*/ && /\*\/[ \t]*$/ { next }
       /^[ \t]*\/\*/ { c = 1 }
       c { if (/\*\//) c = 0; next }
       /^[ \t]*(\*|\/\/)/ { next }
       { n++ } END { print n + 0 }' "$@"
}
printf '%-16s %6s %6s %6s\n' folder files lines code
for d in $(sed 's|/[^/]*$||' /tmp/tprof-lines.$$ | sort -u); do
  fs=$(grep "^$d/[^/]*$" /tmp/tprof-lines.$$)
  # shellcheck disable=SC2086
  printf '%-16s %6d %6d %6d\n' "$d/" $(echo $fs | wc -w) $(cat $fs | wc -l) $(code $fs)
done
fs=$(cat /tmp/tprof-lines.$$)
# shellcheck disable=SC2086
printf '%-16s %6d %6d %6d\n' "libtprof.so" $(echo $fs | wc -w) $(cat $fs | wc -l) $(code $fs)
rm -f /tmp/tprof-lines.$$
