#!/bin/sh
# Bad settings and unwritable outputs are found before the program runs: `tprof run` refuses with
# exit status 2 and one line, without running it; under LD_PRELOAD the warning comes before the
# program's first line, once per run however many processes the run starts, and the program's
# output and exit status stay its own.
. "$TS/lib.sh"
T="$TPROF_CLI"
V="$TB/victims/v_early"
refuse() { # refuse <exact line> VAR=value... -- tprof run arguments: exit 2, that line, nothing ran
  want=$1; shift
  rm -f "$WORK/marker"
  env "$@" sh -c 'echo ran > "$0"' "$WORK/marker" > "$WORK/out" 2> "$WORK/err"; rc=$?
  [ $rc -eq 2 ] || fail "'$*' exited $rc, expected 2 ($(cat "$WORK/err"))"
  [ ! -e "$WORK/marker" ] || fail "'$*' ran the program"
  [ ! -s "$WORK/out" ] || fail "'$*' wrote to stdout"
  [ "$(cat "$WORK/err")" = "$want" ] || fail "'$*': got '$(cat "$WORK/err")', expected '$want'"
}
refuse "tprof run: invalid value for --json: directory /nonexistent/dir: No such file or directory" \
  "$T" run --json /nonexistent/dir/x.json --
refuse "tprof run: invalid value for --output: directory /nonexistent: No such file or directory" \
  "$T" run --output /nonexistent/x.txt --
touch "$WORK/plain"
refuse "tprof run: invalid value for --folded: $WORK/plain is not a directory" "$T" run --folded "$WORK/plain/x.folded" --
refuse "tprof run: invalid value for --json: unknown %-sequence '%q' (use %p, %r, %h or %%)" "$T" run --json "$WORK/%q.json" --
refuse "tprof run: invalid value for --output: file descriptor 7 is not open" "$T" run --output /dev/fd/7 --
refuse "tprof run: invalid value for --plt: expected 0/1, yes/no, true/false or on/off" "$T" run --plt 2 --
refuse "tprof run: invalid value for --hook-ns: not a number" "$T" run --hook-ns abc --
refuse "tprof run: invalid value for --ops: a [ in a pattern is not closed by ]" "$T" run --ops '[' --
# Settings from the environment go through the same parser as the flags.
refuse "tprof run: TPROF_JSON=/nonexistent/x.json: directory /nonexistent: No such file or directory" \
  TPROF_JSON=/nonexistent/x.json "$T" run --
refuse "tprof run: TPROF_STACK=abc: not an integer" TPROF_STACK=abc "$T" run --
refuse "tprof run: TPROF_HOOK_NS=-1: out of range" TPROF_HOOK_NS=-1 "$T" run --
refuse "tprof run: TPROF_DISABLE=2: expected 0/1, yes/no, true/false or on/off" TPROF_DISABLE=2 "$T" run --
# and what passes runs
"$T" run --plt off --hook-ns 0 --json "$WORK/ok.json" --output none -- sh -c 'echo ran > "$0"' "$WORK/marker" ||
  fail "tprof run with good settings failed"
[ "$(cat "$WORK/marker")" = ran ] && [ -s "$WORK/ok.json" ] || fail "tprof run with good settings did not run"

# Under LD_PRELOAD: the warning is the first line on stderr, before the program's "main", and the
# only one (no second complaint when the report is due).
err_of() { # err_of VAR=value... : v_early's stderr (stdout must be "done", exit 0)
  out=$(env TPROF_OUTPUT=none "$@" LD_PRELOAD="$TPROF_SO" "$V" 2>"$WORK/err") || fail "$*: v_early failed"
  [ "$out" = done ] || fail "$*: stdout changed: $out"
}
err_of TPROF_JSON=/nonexistent/x.json
[ "$(cat "$WORK/err")" = "tprof: TPROF_JSON=/nonexistent/x.json: directory /nonexistent: No such file or directory; using none (no JSON report)
main" ] || fail "TPROF_JSON=/nonexistent/x.json: $(cat "$WORK/err")"
# a text report that cannot go to its file goes to stderr
err_of TPROF_OUTPUT=/nonexistent/x.txt
[ "$(sed -n 1p "$WORK/err")" = "tprof: TPROF_OUTPUT=/nonexistent/x.txt: directory /nonexistent: No such file or directory; using stderr" ] ||
  fail "TPROF_OUTPUT=/nonexistent/x.txt: $(cat "$WORK/err")"
[ "$(sed -n 2p "$WORK/err")" = main ] || fail "the warning did not come first: $(cat "$WORK/err")"
grep -q "^tprof [0-9.]*: $V" "$WORK/err" || fail "no text report on stderr instead: $(cat "$WORK/err")"
[ "$(grep -c '^tprof: ' "$WORK/err")" -eq 1 ] || fail "more than one warning: $(cat "$WORK/err")"
err_of TPROF_TRACE="$WORK/%q.json"
[ "$(cat "$WORK/err")" = "tprof: TPROF_TRACE=$WORK/%q.json: unknown %-sequence '%q' (use %p, %r, %h or %%); using none (no trace)
main" ] || fail "a bad template: $(cat "$WORK/err")"

# Booleans: 0/1, yes/no, true/false, on/off in any case; anything else warns.
for v in yes TRUE On 1; do
  err_of TPROF_DISABLE=$v TPROF_JSON="$WORK/dis.json"
  [ "$(cat "$WORK/err")" = main ] || fail "TPROF_DISABLE=$v: $(cat "$WORK/err")"
  [ ! -e "$WORK/dis.json" ] || fail "TPROF_DISABLE=$v did not disable"
done
for v in no False OFF 0; do
  err_of TPROF_DISABLE=$v TPROF_JSON="$WORK/en.json"
  [ "$(cat "$WORK/err")" = main ] || fail "TPROF_DISABLE=$v: $(cat "$WORK/err")"
  jcheck "$WORK/en.json" "site('early_site')['allocs'] == 1"
  rm -f "$WORK/en.json"
done
err_of TPROF_DISABLE=2 TPROF_JSON="$WORK/en.json"
[ "$(cat "$WORK/err")" = "tprof: TPROF_DISABLE=2: expected 0/1, yes/no, true/false or on/off; using 0
main" ] || fail "TPROF_DISABLE=2: $(cat "$WORK/err")"
[ -s "$WORK/en.json" ] || fail "TPROF_DISABLE=2 disabled"
# Op lists that select nothing
err_of TPROF_OPS='['
[ "$(sed -n 1p "$WORK/err")" = "tprof: TPROF_OPS=[: a [ in a pattern is not closed by ]; using the default op list" ] ||
  fail "TPROF_OPS=[: $(cat "$WORK/err")"
err_of TPROF_OPS=',,,'
[ "$(sed -n 1p "$WORK/err")" = "tprof: TPROF_OPS=,,,: no pattern selects a function (only commas, blanks or !exclusions); using the default op list" ] ||
  fail "TPROF_OPS=,,,: $(cat "$WORK/err")"

# One warning per run: v_early starts 3 processes (exec, fork, exec), a shell starts 3 more and
# execs the last; every one of them reads TPROF_STACK=abc.
once() { # once <shell>: the run's stderr holds the warning exactly once, and 7 "main" lines
  TPROF_STACK=abc TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$1" -c '"$0" 3 && "$0" && "$0" && exec "$0"' "$V" \
    > "$WORK/out" 2> "$WORK/err" || fail "$1: the run failed: $(cat "$WORK/err")"
  [ "$(grep -c -x 'tprof: TPROF_STACK=abc: not an integer; using 8' "$WORK/err")" -eq 1 ] ||
    fail "$1: the warning is not there exactly once: $(cat "$WORK/err")"
  [ "$(grep -c -x main "$WORK/err")" -eq 6 ] && [ "$(wc -l < "$WORK/err")" -eq 7 ] ||
    fail "$1: unexpected stderr: $(cat "$WORK/err")"
}
once sh
if command -v bash >/dev/null; then once bash; else echo "note: no bash: its case was not run"; fi
# A child whose setting differs is told about its own.
TPROF_STACK=abc TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" sh -c '"$0"; TPROF_STACK=xyz "$0"; "$0"' "$V" \
  > /dev/null 2> "$WORK/err" || fail "the run with a changed setting failed"
[ "$(grep -v -x main "$WORK/err")" = "tprof: TPROF_STACK=abc: not an integer; using 8
tprof: TPROF_STACK=xyz: not an integer; using 8" ] || fail "a changed setting: $(cat "$WORK/err")"
exit 0
