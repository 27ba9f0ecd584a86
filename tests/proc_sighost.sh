#!/bin/sh
# A program that installs its own handlers for fatal signals after tprof has loaded: its
# handlers see the same previous action, the same installed action and the same siginfo as
# without tprof, its output and exit status are the same, and the report is still written when
# it dies (re-raise after SA_RESETHAND, a fault that happens again, _exit from the handler,
# signal(SIG_DFL) and raise).
. "$TS/lib.sh"
V="$TB/victims/sighost"
# Every signal starts at its default action (env --default-signal): a test suite started in the
# background has SIGINT ignored, and the victim would then find "another" previous action.
run_case() { # run_case MODE STATUS WHY EXPECTED-STDOUT
  mode=$1 want_rc=$2 why=$3 want=$4
  out0=$( (ulimit -c 0; exec env --default-signal "$V" "$mode") 2> /dev/null); rc0=$?
  [ "$rc0" -eq "$want_rc" ] || fail "$mode without tprof: exit status $rc0, expected $want_rc"
  [ "$out0" = "$want" ] || fail "$mode without tprof: stdout
$out0
expected
$want"
  rm -f "$WORK/$mode.json"
  out1=$( (ulimit -c 0; exec env --default-signal TPROF_OUTPUT=none TPROF_JSON="$WORK/$mode.json" LD_PRELOAD="$TPROF_SO" "$V" "$mode") 2> "$WORK/$mode.err"); rc1=$?
  [ "$rc1" -eq "$rc0" ] || fail "$mode under tprof: exit status $rc1, without tprof $rc0"
  [ "$out1" = "$out0" ] || fail "$mode under tprof: stdout
$out1
without tprof
$out0"
  [ ! -s "$WORK/$mode.err" ] || fail "$mode under tprof wrote to stderr: $(cat "$WORK/$mode.err")"
  [ -f "$WORK/$mode.json" ] || fail "$mode under tprof: no report"
  jcheck "$WORK/$mode.json" "'report written on $why' in d.get('notes', [])" \
    "site('main')['allocs'] == 1" "site('main')['live_at_exit_bytes'] == 12345" \
    "m['peak_bytes'] >= 12345" "not d.get('partial', False)"
}
installed="installed: old=default now=mine flags=same mask=same"
run_case segv-raise 139 "signal SEGV" "start
$installed
handler: sig=11 signo=11 code=1 addr=0x10 self=0 action=default"
run_case segv-return 139 "signal SEGV" "start
$installed
handler: sig=11 signo=11 code=1 addr=0x10 self=0 action=default"
run_case term-exit 3 "_exit" "start
$installed
handler: sig=15 signo=15 code=0 addr=(nil) self=1 action=mine"
run_case int-signal 130 "signal INT" "start
installed: old=default
handler: SIGINT, back to the default
handler: signal() returned mine"
exit 0
