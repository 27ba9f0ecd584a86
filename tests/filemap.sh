#!/bin/sh
# README's Layout table names every source file where it lies: each .c of common/, report/,
# track/, preload/ and cli/ and of their folders, in the row of its own folder, and no row
# names a file that is not there. Checked once with a file planted in a copy of the table's
# folders, so that a check that finds nothing is known to be able to find something.
set -eu
src=${TS:-$(dirname "$0")}/..
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check README DIR: prints each file missing from its row and each name a row has in excess.
check() {
  readme=$1
  dir=$2
  bad=0
  for d in common/ common/*/ report/ report/*/ track/ track/*/ preload/ preload/*/ cli/ cli/*/; do
    [ -d "$dir/$d" ] || continue
    row=$(grep -F "| \`$d\` |" "$readme" || true)
    if [ -z "$row" ]; then
      echo "filemap: README's Layout has no row for $d"
      bad=1
      continue
    fi
    for f in "$dir/$d"*.c; do
      [ -f "$f" ] || continue
      b=$(basename "$f")
      case $row in *"\`$b\`"*) ;; *) echo "filemap: $d$b is not in README's row for $d"; bad=1 ;; esac
    done
    for b in $(printf '%s\n' "$row" | grep -o '`[a-z_0-9]*\.c`' | tr -d '`'); do
      [ -f "$dir/$d$b" ] || { echo "filemap: README's row for $d names $b, which is not there"; bad=1; }
    done
  done
  return $bad
}

mkdir -p "$tmp/tree/track/planted"
for d in common report track preload cli; do
  mkdir -p "$tmp/tree/$d"
  cp "$src/$d"/*.c "$tmp/tree/$d/" 2> /dev/null || true
done
for d in "$src"/common/*/ "$src"/track/*/ "$src"/report/*/ "$src"/preload/*/ "$src"/cli/*/; do
  n=${d#"$src"/}
  mkdir -p "$tmp/tree/$n" && cp "$d"*.c "$tmp/tree/$n" 2> /dev/null || true
done
: > "$tmp/tree/report/planted.c"
if check "$src/README.md" "$tmp/tree" > "$tmp/planted.out"; then
  echo "filemap: the check did not see the planted report/planted.c"
  exit 1
fi
grep -q "report/planted.c is not in README's row for report/" "$tmp/planted.out" || {
  echo "filemap: the planted file was not named:"; cat "$tmp/planted.out"; exit 1; }

check "$src/README.md" "$src"
echo "filemap: every source file is named in README's Layout, in its folder's row"
