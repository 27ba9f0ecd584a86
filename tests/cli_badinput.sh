#!/bin/sh
# Bad input to the CLI: exit 2 and one line naming the file and the problem; never a crash.
. "$TS/lib.sh"
T="$TPROF_CLI"
expect() { # expect <pattern> <command...>
  pat=$1; shift
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, expected 2 ($err)"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'$*' printed more than one line: $err"
  printf '%s\n' "$err" | grep -q -- "$pat" || fail "'$*': '$err' does not match '$pat'"
}
head -c 300 "$TS/fixtures/a.json" > "$WORK/trunc.json"
printf 'this is not json' > "$WORK/text.json"
: > "$WORK/empty.json"
sed 's/"schema": 1/"schema": 9/' "$TS/fixtures/a.json" > "$WORK/schema.json"
sed 's/"calls": 10/"calls": "ten"/' "$TS/fixtures/a.json" > "$WORK/type.json"
sed 's/"calls": 10/"calls": -10/' "$TS/fixtures/a.json" > "$WORK/neg.json"
printf '[1,2,3]' > "$WORK/array.json"
printf '{"schema": 1, "ops": {"x": 1}}' > "$WORK/opsobj.json"
printf '{"schema": 1, "ops": [7]}' > "$WORK/opsint.json"
printf '{"schema": 1}{"schema": 1}' > "$WORK/two.json"
head -c 2000 /dev/urandom > "$WORK/binary.json"
expect "trunc.json: truncated" "$T" report "$WORK/trunc.json"
expect "text.json: not valid JSON" "$T" report "$WORK/text.json"
expect "empty.json: empty file" "$T" report "$WORK/empty.json"
expect "schema.json: schema: version 9 is newer" "$T" report "$WORK/schema.json"
expect "type.json: ops\[0\].calls: expected an unsigned integer" "$T" report "$WORK/type.json"
expect "neg.json: ops\[0\].calls: expected an unsigned integer" "$T" report "$WORK/neg.json"
expect "array.json: not a tprof report" "$T" report "$WORK/array.json"
expect "opsobj.json: ops: expected an array" "$T" report "$WORK/opsobj.json"
expect "opsint.json: ops\[0\]: expected an object" "$T" report "$WORK/opsint.json"
expect "two.json: trailing data" "$T" report "$WORK/two.json"
expect "binary.json: " "$T" report "$WORK/binary.json"
expect "missing.json: cannot open: No such file" "$T" report "$WORK/missing.json"
expect "is a directory" "$T" report "$WORK"
expect "trunc.json: truncated" "$T" diff "$TS/fixtures/a.json" "$WORK/trunc.json"
expect "schema.json: schema" "$T" merge "$TS/fixtures/a.json" "$WORK/schema.json" -o "$WORK/out.json"
expect "unknown option" "$T" report --bogus "$TS/fixtures/a.json"
expect "expected text or json" "$T" report "$TS/fixtures/a.json" --format xml
expect "unknown command" "$T" frobnicate
expect "invalid value for --stack" "$T" run --stack 0 -- true
[ ! -e "$WORK/out.json" ] || fail "merge wrote output despite a bad input"
