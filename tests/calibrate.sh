#!/bin/sh
# tprof calibrate: one-line errors (nothing cached, no BLAS, bad options); --quick measures and
# writes the cache; --print shows exactly what was measured; a second run reuses the cache
# without --force; a corrupt cache is one line; a profile's report takes its peaks from the
# cache, from TPROF_PEAK_* over it, and from a quick measurement when the cache is corrupt. The
# machine may be busy with other work: the test library libtpcalib.so, preloaded into the CLI and
# into the reporter (calib_lib, tests/lib.sh), says the measuring threads had their CPUs
# (TPCALIB_ONCPU=1; tests/peaks_busy.sh measures a busy machine for real).
. "$TS/lib.sh"
export TPCALIB_ONCPU=1
CALIB="$TB/victims/libtpcalib.so"
export XDG_CACHE_HOME="$WORK/xdg"
LIB=$(calib_lib "$WORK/calib")
cache="$XDG_CACHE_HOME/tprof/peaks-$(uname -n)"
cal() { LD_PRELOAD="$CALIB" "$TPROF_CLI" calibrate "$@"; }

out=$(cal --print 2>&1) && fail "--print with nothing cached succeeded"
[ "$out" = "tprof calibrate: $cache: no calibration cached (run \`tprof calibrate\`)" ] || fail "--print: $out"
out=$(cal --blas /nonexistent/libblas.so 2>&1); rc=$?
[ $rc -eq 2 ] || fail "no BLAS: exit $rc"
[ "$out" = "tprof calibrate: no BLAS with cblas_sgemm could be loaded (tried /nonexistent/libblas.so): install libopenblas0 or libblas3, or name one with --blas" ] || fail "no BLAS: $out"
[ ! -e "$cache" ] || fail "a failed calibration wrote the cache"
out=$(cal --quick --bogus 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$out" = "tprof calibrate: unknown option '--bogus' (try --help)" ] || fail "bad option: $rc $out"
out=$(cal --print --force 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$out" = "tprof calibrate: --print measures nothing: it takes no other option" ] || fail "--print --force: $rc $out"

cal --quick >"$WORK/q.txt" 2>"$WORK/q.err"; rc=$?
if [ $rc -eq 2 ] && grep -q "no BLAS" "$WORK/q.err"; then
  echo "SKIP: no system BLAS to calibrate with: $(cat "$WORK/q.err")"; exit 77
fi
[ $rc -eq 0 ] || fail "calibrate --quick: exit $rc: $(cat "$WORK/q.err")"
[ ! -s "$WORK/q.err" ] || fail "calibrate --quick wrote to stderr: $(cat "$WORK/q.err")"
# The cache: the magic line, every key once, sane figures, and the output shows them.
python3 - "$cache" "$WORK/q.txt" <<'EOF' || fail "cache or output"
import math, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[0] == "tprof-peaks 1" and lines[-1] == "", lines
kv = dict(l.split(" ", 1) for l in lines[1:-1])
keys = ["peak_gflops", "peak_gflops_1t", "peak_gbps", "threads", "sgemm_n", "triad_bytes",
        "method", "blas", "blas_config", "date", "conditions", "busy_why", "oncpu", "runq",
        "load_avg", "cpu_model", "kernel", "cpus"]
assert [l.split(" ", 1)[0] for l in lines[1:-1]] == keys, lines
g, g1, b = float(kv["peak_gflops"]), float(kv["peak_gflops_1t"]), float(kv["peak_gbps"])
assert 0.1 < g1 <= g < 1e5 and 0.1 < b < 1e4, kv
assert kv["method"] == "quick" and int(kv["sgemm_n"]) <= 512 and kv["blas"].startswith("/"), kv
# The conditions: quiet (the override), this machine, the load before measuring.
import os, platform
assert kv["conditions"] == "quiet" and kv["busy_why"] == "-", kv
assert kv["oncpu"] == "1.000" and kv["runq"] == "-1.000", kv
assert float(kv["load_avg"]) >= 0 and kv["kernel"] == platform.release(), kv
cpus = sorted(os.sched_getaffinity(0))
assert kv["cpus"] == (str(cpus[0]) if len(cpus) == 1 else "%d-%d" % (cpus[0], cpus[-1])) or "," in kv["cpus"], kv
assert kv["cpu_model"] != "-", kv
# The quick triad arrays: 2x the largest cache of cpu0, within [32 MiB, 128 MiB].
import glob
llc = 0
for f in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*/size"):
    t = open(f).read().strip()
    v = int(t.rstrip("KMG")) << {"K": 10, "M": 20, "G": 30}.get(t[-1], 0)
    llc = max(llc, v)
assert int(kv["triad_bytes"]) == min(max(2 * llc, 32 << 20), 128 << 20), (kv, llc)
out = open(sys.argv[2]).read().split("\n")
assert out[0].startswith("peak GFLOP/s, all threads:  %.1f" % g), out[0]
assert out[1] == "peak GFLOP/s, one thread:   %.1f" % g1, out[1]
assert out[2].startswith("memory bandwidth GB/s:      %.1f" % b), out[2]
assert out[3] == "ridge point (FLOP/byte):    %.2f" % (g / b), out[3]
assert out[4] == "BLAS:                       " + kv["blas"], out[4]
assert out[6] == "measured:                   %s (quick)" % kv["date"], out[6]
assert out[7] == "conditions:                 quiet; load average " + kv["load_avg"], out[7]
assert out[8] == "machine:                    %s, CPUs %s, kernel %s" % (kv["cpu_model"], kv["cpus"], kv["kernel"]), out[8]
assert out[9] == "cache:                      " + sys.argv[1], out[9]
EOF

cal --print >"$WORK/p.txt" || fail "--print after calibrating"
cmp -s "$WORK/q.txt" "$WORK/p.txt" || fail "--print differs from the measurement: $(diff "$WORK/q.txt" "$WORK/p.txt")"
cp "$cache" "$WORK/before"
cal --quick >"$WORK/again.txt" || fail "second calibrate --quick"
cmp -s "$cache" "$WORK/before" || fail "calibrate without --force measured again"
[ "$(tail -n 1 "$WORK/again.txt")" = "(cached: \`tprof calibrate --force\` measures again)" ] || fail "no cached note: $(cat "$WORK/again.txt")"
[ "$(head -n 10 "$WORK/again.txt")" = "$(cat "$WORK/p.txt")" ] || fail "cached figures differ"

# A profile's report reads the cache, with TPROF_PEAK_* winning over it.
if [ -x "$TB/victims/v_blas" ]; then
  g=$(sed -n 's/^peak_gflops //p' "$cache"); b=$(sed -n 's/^peak_gbps //p' "$cache")
  TPROF_OUTPUT=none TPROF_JSON="$WORK/c.json" LD_PRELOAD="$LIB" "$TB/victims/v_blas" >/dev/null 2>"$WORK/c.err" || fail "victim failed"
  [ ! -s "$WORK/c.err" ] || fail "victim stderr: $(cat "$WORK/c.err")"
  jcheck "$WORK/c.json" "d['machine']['source'] == 'cache:$cache'" \
    "d['machine']['peak_gflops'] == $g" "d['machine']['peak_gbps'] == $b"
  TPROF_PEAK_GFLOPS=100 TPROF_OUTPUT=none TPROF_JSON="$WORK/e.json" LD_PRELOAD="$LIB" "$TB/victims/v_blas" >/dev/null || fail "victim failed"
  jcheck "$WORK/e.json" "d['machine']['source'] == 'env+cache:$cache'" \
    "d['machine']['peak_gflops'] == 100" "d['machine']['peak_gbps'] == $b"
fi

# A corrupt cache: one line from the CLI; a profile's reporter warns once and measures quickly.
printf 'tprof-peaks 1\npeak_gflops 12\npeak_gbps lots\n' >"$cache"
out=$(cal --print 2>&1) && fail "--print of a corrupt cache succeeded"
[ "$out" = "tprof: $cache: not a valid peaks cache (line 3: peak_gbps 'lots' is not valid); ignoring it (run \`tprof calibrate --force\`)" ] || fail "corrupt --print: $out"
if [ -x "$TB/victims/v_blas" ]; then
  TPROF_OUTPUT=none TPROF_JSON="$WORK/k.json" LD_PRELOAD="$LIB" "$TB/victims/v_blas" >/dev/null 2>"$WORK/k.err" || fail "victim failed with a corrupt cache"
  [ "$(cat "$WORK/k.err")" = "$out" ] || fail "library warning: $(cat "$WORK/k.err")"
  jcheck "$WORK/k.json" "d['machine']['source'] == 'quick'" \
    "0.1 < d['machine']['peak_gflops'] < 1e5" "0.1 < d['machine']['peak_gbps'] < 1e4"
fi
exit 0
