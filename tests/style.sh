#!/bin/sh
# The shape rules of the sources in common/ report/ track/ (and its subsystem folders) preload/
# cli/:
# - no file over 600 lines, unless its opening comment says why, with "Long because";
# - no folder of more than 20 source files: a subsystem that grows past that is two: one that grows past that is
# - no function over 80 lines, unless the comment above it says why, starting "Long because";
# - the code follows .clang-format (skipped, and said so, when clang-format is not installed);
# - the product (libtprof.so and the CLI) reads no TPROF_TEST_* variable: what a test needs from
#   it, a test brings itself (a library preloaded before it, a work file, a probe compiled from
#   the file it looks into); a planted one shows the check can find one.
set -eu
src=${TS:-$(dirname "$0")}/..
cd "$src"
bad=0
files=$(ls common/*.[ch] common/*/*.[ch] report/*.[ch] report/*/*.[ch] track/*.[ch] track/*/*.[ch] preload/*.[ch] preload/*/*.[ch] cli/*.[ch] cli/*/*.[ch])

for f in $files; do
  n=$(wc -l < "$f")
  # the opening comment: up to the first line that closes a comment
  why=$(awk '{ print } /\*\// { exit }' "$f" | grep -c 'Long because' || true)
  if [ "$n" -gt 600 ] && [ "$why" -eq 0 ]; then
    echo "style: $f: $n lines (at most 600, or an opening comment that says why: \"Long because\")"
    bad=1
  fi
done
for d in common common/* report report/* track track/* preload preload/* cli cli/*; do
  [ -d "$d" ] || continue
  n=$(ls "$d" | grep -c '\.[ch]$' || true)
  if [ "$n" -gt 20 ]; then
    echo "style: $d/: $n source files (at most 20: split the subsystem)"
    bad=1
  fi
done

# A function body opens with "{" in column 0 and closes with "}" in column 0; its first line is
# the first line of the signature after the comment or blank line that precedes it.
long=$(for f in $files; do
  awk -v f="$f" '
    /Long because/ { why = NR }
    /^[ \t]*$/ || /^\/\*/ || /^ \*/ || /^#/ { sig = 0; next }
    /^\{/ { body = 1; next }
    /^\}/ { if (body && NR - start + 1 > 80 && (why == 0 || start - why > 4))
              printf "style: %s:%d: a function of %d lines (at most 80, or a comment above it starting \"Long because\")\n", f, start, NR - start + 1
            body = 0; sig = 0; next }
    !body && !sig { sig = 1; start = NR }' "$f"
done)
if [ -n "$long" ]; then
  echo "$long"
  bad=1
fi

testvars() { grep -Hn 'TPROF_TEST_' "$@" || true; }
planted=$(mktemp -d)
printf '#include <stdlib.h>\nint tp_planted(void) { return getenv("TPROF_TEST_PLANTED") != 0; }\n' > "$planted/planted.c"
found=$(cd "$planted" && testvars planted.c)
rm -rf "$planted"
case $found in
planted.c:2:*) ;;
*) echo "style: the check did not find the planted TPROF_TEST_PLANTED (line 2 of planted.c): $found"; bad=1 ;;
esac
testvars=$(testvars $files)
if [ -n "$testvars" ]; then
  echo "$testvars" | sed 's/^/style: a test-only variable read by the product: /'
  bad=1
fi

if command -v clang-format > /dev/null; then
  if ! clang-format --dry-run -Werror $files 2> /tmp/style.$$; then
    grep -m 20 'error:' /tmp/style.$$ | sed 's/^/style: /'
    echo "style: run clang-format -i on the files above"
    bad=1
  fi
  rm -f /tmp/style.$$
else
  echo "style: clang-format is not installed: formatting not checked"
fi
exit $bad
