#!/bin/sh
# Peaks that hold, the profile's side, deterministically: the test library libtpcalib.so, preloaded
# into the reporter (a tprof beside a copy of libtprof.so that runs the real one with it) and into
# the CLI, says what share of their CPUs the measuring threads had (TPCALIB_ONCPU;
# tests/peaks_busy.sh makes a machine busy for real). With no cache, a busy
# quick measurement is cached marked busy and the report says so (header and note); the next profile
# uses that cache without measuring and says it is busy; a cache 3 days old shows its age; an
# earlier tprof's cache (no conditions) is used as of unknown conditions; a cache of another CPU
# model or of other CPUs is not used nor overwritten, and the note says why; `tprof calibrate`
# replaces it. `tprof report` puts a busy measurement in the verdict's sentence, and peaks given on
# its command line drop the conditions.
. "$TS/lib.sh"
V="$TB/victims/v_api"
T="$TPROF_CLI"
CALIB="$TB/victims/libtpcalib.so"
cache="$XDG_CACHE_HOME/tprof/peaks-$(uname -n)"
LIB=$(calib_lib "$WORK/calib")
run() { # $1 = name; the rest: VAR=value settings
    n=$1
    shift
    tp TPROF_OUTPUT="$WORK/$n.txt" TPROF_JSON="$WORK/$n.json" "$@" LD_PRELOAD="$LIB" "$V" \
        >/dev/null 2>"$WORK/$n.err" || fail "run $n failed"
    [ ! -s "$WORK/$n.err" ] || fail "run $n stderr: $(cat "$WORK/$n.err")"
}
# What the header's peaks line says in "(from ...)", its wrapped continuation joined.
header() {
    python3 - "$WORK/$1.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = next(i for i, l in enumerate(lines) if l.startswith("machine peaks"))
text = lines[i]
while lines[i + 1].startswith("  ") and not lines[i + 1].startswith("   "):
    i += 1
    text += " " + lines[i].strip()
print(text[text.index("(from ") + 6:-1])
PY
}
note_has() { # $1 = run, $2 = the exact words
    python3 - "$WORK/$1.json" "$2" <<'PY' || fail "run $1: no note with: $2"
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if any(sys.argv[2] in n for n in d["notes"]) else 1)
PY
}
why50="the measuring threads had 50% of their CPUs"

# 1. No cache, a busy measurement: cached marked busy, said in the header and a note.
run 1 TPCALIB_ONCPU=0.5
jcheck "$WORK/1.json" "d['machine']['source'] == 'quick'" "d['machine']['conditions'] == 'busy'" \
    "d['machine']['busy_why'] == '$why50'" "d['machine']['load_avg'] >= 0" \
    "d['machine']['measured_at'].endswith('Z')"
[ "$(header 1)" = "quick, busy: $why50" ] || fail "run 1 header: $(header 1)"
note_has 1 "machine peaks measured on a busy machine ($why50): cached marked busy; run \`tprof calibrate\` on a quiet machine"
grep -qx "conditions busy" "$cache" && grep -qx "busy_why $why50" "$cache" || fail "not cached marked busy: $(cat "$cache")"
model=$(sed -n 's/^cpu_model //p' "$cache")
cpus=$(sed -n 's/^cpus //p' "$cache")
[ -n "$model" ] && [ -n "$cpus" ] || fail "no cpu_model or cpus in the cache"

# 2. The busy cache is used (not measured again at every exit) and said to be busy.
cp "$cache" "$WORK/busy"
run 2
cmp -s "$cache" "$WORK/busy" || fail "run 2 changed the cache"
case $(header 2) in
"quick-cache:$cache, "[0-9]*" s old, busy: $why50") ;;
*) fail "run 2 header: $(header 2)" ;;
esac
note_has 2 "machine peaks cached in $cache were measured on a busy machine ($why50); run \`tprof calibrate\` on a quiet machine"

# 3. A quiet cache measured 3 days ago: its age.
old=$(date -u -d '3 days ago' +%Y-%m-%dT%H:%M:%SZ)
sed -e "s/^date .*/date $old/" -e 's/^conditions .*/conditions quiet/' -e 's/^busy_why .*/busy_why -/' \
    "$WORK/busy" >"$cache"
run 3
[ "$(header 3)" = "quick-cache:$cache, 3 days old, quiet" ] || fail "run 3 header: $(header 3)"
jcheck "$WORK/3.json" "d['machine']['conditions'] == 'quiet'" "d['machine']['measured_at'] == '$old'" \
    "d['machine']['busy_why'] is None" "d['machine']['cpu_model'] == '''$model'''"

"$T" calibrate --print >"$WORK/print3" || fail "--print of a quiet cache"
grep -q "^conditions:                 quiet; load average [0-9.]*$" "$WORK/print3" ||
    fail "--print of a quiet cache: $(cat "$WORK/print3")"
sed -i 's/^load_avg .*/load_avg -1.00/' "$cache"
"$T" calibrate --print >"$WORK/print3b" || fail "--print without a load average"
grep -qx "conditions:                 quiet" "$WORK/print3b" || fail "--print without a load average: $(cat "$WORK/print3b")"
grep -Fqx "machine:                    $model, CPUs $cpus, kernel $(uname -r)" "$WORK/print3b" ||
    fail "--print's machine line: $(cat "$WORK/print3b")"

# 4. An earlier tprof's cache (no conditions): used, as of unknown conditions.
sed -n '1,11p' "$cache" >"$WORK/old"
cp "$WORK/old" "$cache"
run 4
[ "$(header 4)" = "quick-cache:$cache, 3 days old, unknown conditions" ] || fail "run 4 header: $(header 4)"
jcheck "$WORK/4.json" "d['machine']['conditions'] == 'unknown'" "d['machine']['load_avg'] == -1"
"$T" calibrate --print >"$WORK/print4" || fail "--print of an old cache"
grep -qx "conditions:                 unknown (cached by an earlier tprof)" "$WORK/print4" ||
    fail "--print of an old cache: $(cat "$WORK/print4")"

# 5. A cache of another CPU model, then of other CPUs: not used, not overwritten, said why.
sed -e "s/^date .*/date $old/" -e 's/^cpu_model .*/cpu_model Other CPU 9000/' "$WORK/busy" >"$cache"
cp "$cache" "$WORK/other"
run 5 TPCALIB_ONCPU=1
cmp -s "$cache" "$WORK/other" || fail "run 5 overwrote another CPU's cache"
[ "$(header 5)" = "quick, quiet" ] || fail "run 5 header: $(header 5)"
note_has 5 "machine peaks cached in $cache are not used: measured on another CPU (Other CPU 9000, not $model); \`tprof calibrate\` replaces them"
sed -e 's/^cpus .*/cpus 0-4095/' "$WORK/busy" >"$cache"
run 6 TPCALIB_ONCPU=0.5
note_has 6 "machine peaks cached in $cache are not used: measured with other CPUs allowed (0-4095, not $cpus); \`tprof calibrate\` replaces them"
note_has 6 "machine peaks measured on a busy machine ($why50): not cached; run \`tprof calibrate\` on a quiet machine"
grep -qx "cpus 0-4095" "$cache" || fail "run 6 overwrote the cache of other CPUs"
jcheck "$WORK/6.json" "not any('now cached in' in n for n in d['notes'])" \
    "any(n.startswith('machine peaks from a quick synthetic measurement at this exit') and n.count('caches them') == 1 for n in d['notes'])"
# `tprof calibrate` measures (no "cached" shown) and replaces it, when a BLAS is there.
cp "$WORK/other" "$cache"
TPCALIB_ONCPU=1 LD_PRELOAD="$CALIB" "$T" calibrate --quick >"$WORK/cal5" 2>"$WORK/cal5.err"
rc=$?
if ! grep -q "no BLAS" "$WORK/cal5.err"; then
    [ $rc -eq 0 ] || fail "calibrate over another CPU's cache: exit $rc: $(cat "$WORK/cal5.err")"
    grep -Fqx "cpu_model $model" "$cache" || fail "calibrate kept another CPU's cache"
    grep -q "^(cached" "$WORK/cal5" && fail "calibrate showed another CPU's cache"
    # Quiet over quiet, same method and BLAS: each figure the best of the two, counted.
    val() { sed -n "s/^$1 //p" "$cache"; }
    g5=$(val peak_gflops) g15=$(val peak_gflops_1t) b5=$(val peak_gbps)
    TPCALIB_ONCPU=1 LD_PRELOAD="$CALIB" "$T" calibrate --quick --force >"$WORK/cal6" 2>"$WORK/cal6.err" ||
        fail "a second quiet calibration: $(cat "$WORK/cal6.err")"
    this=$(sed -n 's/^this calibration: *\([0-9.]*\) GFLOP\/s all threads, \([0-9.]*\) one thread, \([0-9.]*\) GB\/s$/\1 \2 \3/p' "$WORK/cal6")
    [ -n "$this" ] || fail "no 'this calibration:' line: $(cat "$WORK/cal6")"
    python3 - "$this" "$g5" "$g15" "$b5" "$(val peak_gflops)" "$(val peak_gflops_1t)" "$(val peak_gbps)" <<'PY' ||
import sys
this = [float(x) for x in sys.argv[1].split()]
old = [float(x) for x in sys.argv[2:5]]
new = [float(x) for x in sys.argv[5:8]]
for t, o, n in zip(this, old, new):
    # the line has one decimal, the cache three: the cache holds the better of the two
    assert n >= o and n >= t - 0.05 and (abs(n - o) < 1e-9 or abs(n - t) <= 0.05), (t, o, n)
PY
        fail "the cache is not the best of the two quiet calibrations: $this; $g5 $g15 $b5 -> $(val peak_gflops) $(val peak_gflops_1t) $(val peak_gbps)"
    grep -qx "calibrations 2" "$cache" || fail "calibrations not counted: $(cat "$cache")"
    "$T" calibrate --print >"$WORK/print6" || fail "--print after two quiet calibrations"
    grep -qx "calibrations: *each figure the best of 2 quiet ones" "$WORK/print6" ||
        fail "--print: $(cat "$WORK/print6")"
    # a busy one neither counts nor lowers anything (it is not cached over a quiet one)
    TPCALIB_ONCPU=0.5 LD_PRELOAD="$CALIB" "$T" calibrate --quick --force >"$WORK/cal7" 2>"$WORK/cal7.err"
    [ $? -eq 3 ] || fail "a busy calibration over a quiet cache: $(cat "$WORK/cal7.err")"
    grep -qx "calibrations 2" "$cache" || fail "a busy calibration changed the count"
    grep -q "^this calibration:" "$WORK/cal7" && fail "a busy calibration was kept with the quiet ones"
fi

# 6. `tprof report`: a busy measurement in the header and the verdict; given peaks drop it.
python3 - "$TS/fixtures/a.json" "$WORK/busy.json" <<'PY' || fail "fixture"
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"].update(source="cache:/c/peaks-h", measured_at="2023-11-11T22:13:20Z",
                    conditions="busy", busy_why="the measuring threads had 33% of their CPUs",
                    cpu_model="X", cpus="0", load_avg=2.5)
json.dump(d, open(sys.argv[2], "w"))
PY
"$T" report "$WORK/busy.json" >"$WORK/r.txt" || fail "tprof report of busy peaks"
[ "$(header r)" = "cache:/c/peaks-h, 3 days old, busy: the measuring threads had 33% of their CPUs" ] ||
    fail "report header: $(header r)"
tr '\n' ' ' <"$WORK/r.txt" | grep -q "intensity (compute-bound; the peaks were measured on a busy machine, so this may be too high); a 2x" ||
    fail "the verdict does not say its peaks were busy: $(sed -n '/^VERDICT/,+3p' "$WORK/r.txt")"
"$T" report "$WORK/busy.json" --peak-gflops 50 --format json >"$WORK/given.json" || fail "--peak-gflops"
jcheck "$WORK/given.json" "d['machine']['source'] == 'command line'" "d['machine']['conditions'] is None" \
    "d['machine']['measured_at'] is None" "'busy' not in d['verdict']['text']"
exit 0
