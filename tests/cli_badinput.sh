#!/bin/sh
# Bad input to report, diff and merge: exit 2 and exactly one line on stderr naming the file and
# the problem; never a crash, never output.
. "$TS/lib.sh"
T="$TPROF_CLI"
A="$TS/fixtures/a.json"
expect() { # expect <pattern> <command...>: exit 2, one line matching pattern, nothing on stdout
  pat=$1; shift
  "$@" > "$WORK/out" 2> "$WORK/err"; rc=$?
  err=$(cat "$WORK/err")
  [ $rc -eq 2 ] || fail "'$*' exited $rc, expected 2 ($err)"
  [ "$(wc -l < "$WORK/err")" -eq 1 ] || fail "'$*' printed other than one line: $err"
  [ ! -s "$WORK/out" ] || fail "'$*' wrote to stdout despite the error"
  printf '%s\n' "$err" | grep -q -- "$pat" || fail "'$*': '$err' does not match '$pat'"
}
head -c 300 "$A" > "$WORK/trunc.json"
printf 'this is not json' > "$WORK/text.json"
: > "$WORK/empty.json"
sed 's/"schema": 1/"schema": 2/' "$A" > "$WORK/schema.json"
sed 's/"calls": 10/"calls": "ten"/' "$A" > "$WORK/type.json"
sed 's/"calls": 5/"calls": -5/' "$A" > "$WORK/neg.json"
sed 's/"calls": 10/"calls": 123456789012345678901234567890/' "$A" > "$WORK/huge.json"
sed 's/"wall_ns": 2000000/"wall_ns": 2e999/' "$A" > "$WORK/inf.json"
printf '[1,2,3]' > "$WORK/array.json"
printf '{"schema": 1, "ops": {"x": 1}}' > "$WORK/opsobj.json"
printf '{"schema": 1, "ops": [7]}' > "$WORK/opsint.json"
printf '{"schema": 1}{"schema": 1}' > "$WORK/two.json"
python3 -c "print('[' * 100000 + ']' * 100000)" > "$WORK/deep.json"
python3 -c "import random, sys; random.seed(7); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(4000)))" > "$WORK/binary.json"
printf '\037\213\010\000' > "$WORK/gzip.json"
for c in report "diff $A" "merge -o $WORK/out.json"; do
  # shellcheck disable=SC2086 # $c is a subcommand and its leading arguments
  set -- $c
  expect "^tprof $1: $WORK/trunc.json: truncated (the JSON ends early, at line 21)$" "$T" "$@" "$WORK/trunc.json"
done
expect "text.json: not JSON (line 1, column 2: boolean expected)$" "$T" report "$WORK/text.json"
expect "empty.json: empty file$" "$T" report "$WORK/empty.json"
expect "schema.json: schema 2 is newer than this tprof understands (1)$" "$T" report "$WORK/schema.json"
expect "type.json: ops\[0\].calls: expected an unsigned integer, found a string$" "$T" report "$WORK/type.json"
expect "neg.json: ops\[1\].calls: expected an unsigned integer, found -5$" "$T" report "$WORK/neg.json"
expect "huge.json: ops\[0\].calls: number out of range" "$T" report "$WORK/huge.json"
expect "inf.json: program.wall_ns: expected an unsigned integer, found inf$" "$T" report "$WORK/inf.json"
expect "array.json: not a tprof report (the top level is an array, not an object)$" "$T" report "$WORK/array.json"
expect "opsobj.json: ops: expected an array, found an object$" "$T" report "$WORK/opsobj.json"
expect "opsint.json: ops\[0\]: expected an object, found 7$" "$T" report "$WORK/opsint.json"
expect "two.json: not JSON (line 1, column 14: more data after the report)$" "$T" report "$WORK/two.json"
expect "deep.json: not a tprof report (line 1, column 17: nested deeper than 16 levels)$" "$T" report "$WORK/deep.json"
expect "binary.json: not JSON (line 1, column 1: invalid utf-8 string)$" "$T" report "$WORK/binary.json"
expect "gzip.json: compressed with gzip: uncompress it first$" "$T" report "$WORK/gzip.json"
expect "missing.json: cannot open: No such file or directory$" "$T" report "$WORK/missing.json"
# a file name with a newline still gives one line
expect "^tprof report: $WORK/new\\\\x0aline.json: cannot open: No such file or directory$" "$T" report "$WORK/new
line.json"
# root can read a chmod 000 file, so unreadability is tested with a directory
expect "^tprof report: $WORK: is a directory, not a report$" "$T" report "$WORK"
expect "^tprof report: <stdin>: empty file$" "$T" report - < /dev/null
expect "^tprof diff: $WORK/schema.json: schema 2" "$T" diff "$WORK/schema.json" "$A"
expect "^tprof merge: $WORK/type.json: ops\[0\].calls" "$T" merge "$A" "$WORK/type.json" "$A" -o "$WORK/out.json"
[ ! -e "$WORK/out.json" ] || fail "merge wrote output despite a bad input"
ls "$WORK" | grep -q 'out.json.tmp' && fail "merge left a temporary file"

# output that cannot be written: exit 1, one line
if [ -w /dev/full ]; then
  for c in "report $A" "diff $A $A" "diff $A $A --format json" "merge $A -o -"; do
    # shellcheck disable=SC2086 # a subcommand and its arguments
    "$T" $c > /dev/full 2> "$WORK/err"; rc=$?
    [ $rc -eq 1 ] || fail "tprof $c > /dev/full exited $rc, expected 1"
    [ "$(wc -l < "$WORK/err")" -eq 1 ] && grep -q "No space left on device" "$WORK/err" ||
      fail "tprof $c > /dev/full: $(cat "$WORK/err")"
  done
fi

# usage errors: exit 2, one line
expect "unknown option or missing value '--bogus'" "$T" report --bogus "$A"
expect "expected text, json, folded or folded-heap$" "$T" report "$A" --format xml
expect "^tprof report: --top 0: " "$T" report "$A" --top 0
expect "^tprof report: --peak-gflops -1: " "$T" report "$A" --peak-gflops -1
expect "^tprof report: one file at a time" "$T" report "$A" "$A"
expect "^tprof diff: needs two reports" "$T" diff "$A"
expect "^tprof diff: two reports, not more" "$T" diff "$A" "$A" "$A"
expect "^tprof diff: only one of the two reports can be stdin" "$T" diff - -
expect "^tprof merge: needs -o OUT.json" "$T" merge "$A"
expect "^tprof merge: needs at least one report" "$T" merge -o "$WORK/x.json"
expect "unknown command 'frobnicate'" "$T" frobnicate
expect "invalid value for --stack" "$T" run --stack 0 -- true
exit 0
