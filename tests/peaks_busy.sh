#!/bin/sh
# A busy machine for real (issue 27): two busy loops pinned to CPU 0 and `tprof calibrate
# --quick` pinned beside them, so that its one measuring thread has about a third of its CPU.
# With no cache: exit status 3, the figures printed, the one line on stderr (its share not
# asserted, only that it is below the 90% a quiet measurement needs), and the cache marked busy.
# Over a quiet calibration of this machine, --force on the busy machine: exit 3, one line, the
# cache kept byte for byte. The library pinned beside the loops: its quick measurement says busy.
# Only the verdict's presence is asserted, never a figure of the machine's speed. Nothing here
# preloads the test library libtpcalib.so: what is judged is what was measured.
. "$TS/lib.sh"
command -v taskset >/dev/null 2>&1 || { echo "SKIP: no taskset (util-linux) to pin the busy loops"; exit 77; }
taskset -c 0 true 2>/dev/null || { echo "SKIP: cannot pin a process to CPU 0 here"; exit 77; }
T="$TPROF_CLI"
cache="$XDG_CACHE_HOME/tprof/peaks-$(uname -n)"
taskset -c 0 sh -c 'while :; do :; done' &
spin1=$!
taskset -c 0 sh -c 'while :; do :; done' &
spin2=$!
# The loops end with the test however it ends (a timeout's SIGTERM included).
trap 'kill $spin1 $spin2 2>/dev/null; rm -rf "$WORK"' EXIT
trap 'exit 1' HUP INT TERM

taskset -c 0 "$T" calibrate --quick >"$WORK/1.out" 2>"$WORK/1.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "no BLAS" "$WORK/1.err"; then
    echo "SKIP: no system BLAS to calibrate with: $(cat "$WORK/1.err")"
    exit 77
fi
[ $rc -eq 3 ] || fail "calibrate beside two busy loops: exit $rc: $(cat "$WORK/1.err")"
[ "$(wc -l <"$WORK/1.err")" -eq 1 ] || fail "not one line: $(cat "$WORK/1.err")"
pct=$(sed -n 's/^tprof calibrate: measured on a busy machine (the measuring threads had \([0-9]*\)% of their CPUs): cached marked busy; run `tprof calibrate` on a quiet machine to replace it$/\1/p' "$WORK/1.err")
[ -n "$pct" ] && [ "$pct" -lt 90 ] || fail "the busy line: $(cat "$WORK/1.err")"
grep -qx "conditions busy" "$cache" || fail "not cached marked busy: $(cat "$cache")"
grep -qx "cpus 0" "$cache" || fail "the cache does not record CPU 0 alone: $(grep cpus "$cache")"
grep -q "^conditions:                 busy: the measuring threads had $pct% of their CPUs; load average [0-9.]*$" "$WORK/1.out" ||
    fail "calibrate's output: $(cat "$WORK/1.out")"
grep -q "^cache:                      $cache$" "$WORK/1.out" || fail "figures not printed: $(cat "$WORK/1.out")"

# A quiet calibration of this machine is cached: a busy one never replaces it.
sed -e 's/^conditions .*/conditions quiet/' -e 's/^busy_why .*/busy_why -/' "$cache" >"$WORK/quiet"
cp "$WORK/quiet" "$cache"
taskset -c 0 "$T" calibrate --quick --force >"$WORK/2.out" 2>"$WORK/2.err"
rc=$?
[ $rc -eq 3 ] || fail "busy --force over a quiet cache: exit $rc: $(cat "$WORK/2.err")"
grep -Eqx 'tprof calibrate: measured on a busy machine \(the measuring threads had [0-9]+% of their CPUs\): not cached \(the cache keeps the earlier calibration\); run `tprof calibrate --force` on a quiet machine' "$WORK/2.err" ||
    fail "the not-cached line: $(cat "$WORK/2.err")"
[ "$(wc -l <"$WORK/2.err")" -eq 1 ] || fail "not one line: $(cat "$WORK/2.err")"
cmp -s "$cache" "$WORK/quiet" || fail "a busy measurement replaced a quiet one"

# The library's quick measurement, pinned beside the loops, with no cache: busy, said so.
rm -f "$cache"
if [ -x "$TB/victims/v_api" ]; then
    tp TPROF_JSON="$WORK/l.json" taskset -c 0 env LD_PRELOAD="$TPROF_SO" "$TB/victims/v_api" >/dev/null 2>"$WORK/l.err" ||
        fail "the victim failed"
    [ ! -s "$WORK/l.err" ] || fail "victim stderr: $(cat "$WORK/l.err")"
    jcheck "$WORK/l.json" "d['machine']['source'] == 'quick'" "d['machine']['conditions'] == 'busy'" \
        "d['machine']['cpus'] == '0'" \
        "any('machine peaks measured on a busy machine (' in n and '): cached marked busy; run \`tprof calibrate\` on a quiet machine' in n for n in d['notes'])"
fi
exit 0
