#!/bin/sh
# `make install` installs the documentation and the JSON schema beside the program and its man
# pages: README and every page of docs/ under share/doc/tprof, the schema under share/tprof, byte
# for byte (install-data, into a DESTDIR: the build's programs are left as they are).
. "$TS/lib.sh"
make -s -C "$TB/.." install-data DESTDIR="$WORK/dest" > "$WORK/log" 2>&1 ||
  fail "make install-data failed: $(tail -5 "$WORK/log")"
find_one() { # the installed file whose path ends in $1
  f=$(find "$WORK/dest" -path "*/$1" -type f | head -1)
  [ -n "$f" ] || fail "not installed: $1 (installed: $(find "$WORK/dest" -type f | head -20))"
  echo "$f"
}
cmp -s "$(find_one share/tprof/tprof.schema.json)" "$TS/../docs/tprof.schema.json" ||
  fail "the installed schema differs from docs/tprof.schema.json"
cmp -s "$(find_one share/doc/tprof/README.md)" "$TS/../README.md" || fail "the installed README differs"
for d in "$TS"/../docs/*.md; do
  cmp -s "$(find_one "share/doc/tprof/$(basename "$d")")" "$d" || fail "$(basename "$d") differs"
done
find_one man1/tprof.1 > /dev/null
find_one man7/libtprof.7 > /dev/null
find_one include/tprof.h > /dev/null
exit 0
