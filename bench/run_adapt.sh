#!/bin/bash
# What tprof's defaults cost on programs full of short calls, and whether the time split it
# reports agrees with sampling. Two programs, each run natively and under tprof with no
# TPROF_* setting, interleaved, best of REPS wall times (other load on the machine only adds):
#   - bench/storm30.c: N calls (default 3*10^7) of tile_matmul, ~30 ns each, named like an op;
#   - darknet rebuilt with -finstrument-functions (scripts/darknet-cli.sh --instrument), `speed`
#     on yolov3-tiny: each op's share of the time under tprof against `perf record` (cpu-clock)
#     of the native run, both shares of the program's whole run.
# Usage: bench/run_adapt.sh BUILD_DIR [DARKNET_OUTDIR]   Environment: REPS (default 3), N.
set -u
die() { echo "bench: $*" >&2; exit 2; }
B=$(cd "${1:?usage: bench/run_adapt.sh BUILD_DIR [DARKNET_OUTDIR]}" && pwd) || die "no build dir"
SO=$B/.libs/libtprof.so
[ -f "$SO" ] || die "$SO missing: build first"
REPS=${REPS:-3}
N=${N:-30000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
S=$(cd "$(dirname "$0")" && pwd)

best() { # best wall seconds of REPS runs of "$@" (stdout discarded)
    local b=
    for _ in $(seq "$REPS"); do
        local s e
        s=$(date +%s.%N)
        "$@" > /dev/null 2>&1 || die "failed: $*"
        e=$(date +%s.%N)
        b=$(echo "$s $e ${b:-1e9}" | awk '{ d = $2 - $1; print (d < $3 ? d : $3) }')
    done
    echo "$b"
}

gcc -O2 -g -finstrument-functions "$S/storm30.c" -o "$T/storm30" || die "cannot build storm30"
nat=$(best "$T/storm30" "$N")
tp=$(best env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_JSON="$T/storm.json" "$T/storm30" "$N")
echo "storm30 ($N calls of ~30 ns named *matmul*): native ${nat}s, tprof ${tp}s, ratio $(echo "$tp $nat" | awk '{printf "%.2f", $1 / $2}')"
python3 - "$T/storm.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for o in d["ops"]:
    print("  op %-12s calls %d counted %d demoted %s self %.3fs" % (o["name"], o["calls"], o.get("counted_calls", 0), o.get("demoted"), o["self_ns"] / 1e9))
PY

OUT=${2:-}
[ -n "$OUT" ] || exit 0
X=$("$S/../scripts/darknet-cli.sh" --instrument "$OUT") || die "darknet build failed"
CFG=/usr/share/darknet/cfg/yolov3-tiny.cfg
nat=$(best "$X" speed "$CFG" 1)
tp=$(best env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_JSON="$T/dn.json" "$X" speed "$CFG" 1)
echo "darknet -finstrument-functions speed yolov3-tiny 1: native ${nat}s, tprof ${tp}s, ratio $(echo "$tp $nat" | awk '{printf "%.2f", $1 / $2}')"
command -v perf > /dev/null || exit 0
perf record -q -e cpu-clock -F 2000 -o "$T/perf.data" "$X" speed "$CFG" 1 > /dev/null 2>&1 || die "perf record failed"
perf report -i "$T/perf.data" --no-children --sort symbol -q 2>/dev/null |
    awk '{ gsub("%", "", $1); print $3, $1 }' > "$T/perf.txt"
python3 - "$T/dn.json" "$T/perf.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
perf = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 2:
        perf[f[0]] = perf.get(f[0], 0) + float(f[1])
wall = d["program"]["wall_ns"]
print("  %-28s %8s %8s %6s" % ("op (self)", "tprof%", "perf%", "diff"))
for o in sorted(d["ops"], key=lambda o: -o["self_ns"])[:8]:
    t = 100.0 * o["self_ns"] / wall
    p = perf.get(o["name"], 0.0)
    print("  %-28s %8.1f %8.1f %+6.1f%s" % (o["name"], t, p, t - p, "  (demoted: its time is its callers')" if o.get("demoted") else ""))
PY
