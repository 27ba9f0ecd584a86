#!/bin/sh
# The text report goes to the stderr the program started with, even when the program closed it
# before its end or reused descriptor 2 for a file of its own, and never into that file; when
# that stderr is gone (a pipe the program closed, or none at the start), to tprof.PID.txt in the
# working directory.
. "$TS/lib.sh"
V="$TB/victims/v_stderr_swap"

# stderr a regular file: tprof keeps a copy, so the report survives the close.
for how in close "reuse $WORK/own.log"; do
  rm -f "$WORK/own.log"
  # shellcheck disable=SC2086
  out=$(preload "$V" $how 2> "$WORK/err") || fail "victim failed ($how)"
  [ "$out" = done ] || fail "stdout changed ($how): $out"
  grep -q '^OPS\|^MEMORY' "$WORK/err" || fail "no report on the start stderr ($how)"
  grep -q '^tprof [0-9.]*: ' "$WORK/err" || fail "no header ($how): $(head -3 "$WORK/err")"
done
[ "$(cat "$WORK/own.log")" = mine ] || fail "the program's own log changed: $(head -3 "$WORK/own.log")"

# stderr a pipe: no copy is kept (a reader must see end-of-file when the program closes it), so
# with descriptor 2 now the program's log, the report is not written there, nor on the pipe: it
# goes to tprof.PID.txt in the working directory, and is not lost.
rm -f "$WORK/own.log"
mkdir "$WORK/cwd"
out=$(cd "$WORK/cwd" && { preload "$V" reuse "$WORK/own.log" 2>&1 1>&3 | cat > "$WORK/pipe"; } 3>&1) ||
  fail "victim failed (pipe)"
[ "$out" = done ] || fail "stdout changed (pipe): $out"
[ "$(cat "$WORK/own.log")" = mine ] || fail "report written into the program's log: $(head -3 "$WORK/own.log")"
[ ! -s "$WORK/pipe" ] || fail "pipe got: $(head -3 "$WORK/pipe")"
set -- "$WORK"/cwd/tprof.*.txt
[ $# = 1 ] && [ -f "$1" ] || fail "no tprof.PID.txt in the working directory: $(ls "$WORK/cwd")"
grep -q '^tprof [0-9.]*: .*v_stderr_swap reuse' "$1" && grep -q '^MEMORY' "$1" ||
  fail "the report file is not the report: $(head -3 "$1")"
# started with stderr closed: the same file
rm -f "$WORK"/cwd/tprof.*.txt
out=$(cd "$WORK/cwd" && sh -c 'exec 2>&-; LD_PRELOAD="$1" exec "$2"' sh "$TPROF_SO" "$V") ||
  fail "victim failed (no stderr)"
[ "$out" = done ] || fail "stdout changed (no stderr): $out"
set -- "$WORK"/cwd/tprof.*.txt
[ $# = 1 ] && grep -q '^MEMORY' "$1" || fail "no report file with stderr closed at the start: $(ls "$WORK/cwd")"
# and with stderr left alone on a pipe, the report arrives there as before
out=$( { preload "$V" 2>&1 1>&3 | cat > "$WORK/pipe"; } 3>&1) || fail "victim failed (pipe plain)"
grep -q '^MEMORY' "$WORK/pipe" || fail "no report on the pipe: $(head -3 "$WORK/pipe")"

# the coreutils case through the CLI: cat closes its stderr at exit
"$TPROF_CLI" run -- cat /dev/null > "$WORK/out" 2> "$WORK/err" || fail "tprof run cat failed"
[ ! -s "$WORK/out" ] || fail "cat wrote: $(head -3 "$WORK/out")"
grep -q '^MEMORY' "$WORK/err" || fail "tprof run -- cat /dev/null: no report"
echo "PASS proc_stderr"
