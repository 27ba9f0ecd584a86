#!/bin/bash
# What TPROF_SNAPSHOT costs: examples/mlp (OpenBLAS on one thread) under tprof without
# snapshots and with a snapshot every 1 s, 0.1 s and 0.02 s; configurations interleaved, best of
# REPS runs each. Prints the best wall time, its ratio to tprof without snapshots, and, from the
# report's own note (tprof times every snapshot it writes), how many snapshots the best run wrote
# and how long one took on average and at most.
#
# Usage: bench/snapshot.sh [BUILD_DIR]     Environment: REPS (default 5), STEPS (default 40).
set -u
B=${1:-.}
B=$(cd "$B" && pwd)
SO=$B/.libs/libtprof.so
MLP=$B/examples/mlp
[ -f "$SO" ] && [ -x "$MLP" ] || { echo "snapshot.sh: build first ($SO, $MLP)" >&2; exit 2; }
REPS=${REPS:-5}
STEPS=${STEPS:-40}
W=$(mktemp -d /tmp/tprof-snap.XXXXXX)
trap 'rm -rf "$W"' EXIT
export OPENBLAS_NUM_THREADS=1

run() { # run PERIOD ("off" for none): prints "wall snapshots avg_ms max_ms"
    local snap=()
    [ "$1" = off ] || snap=(TPROF_SNAPSHOT="$1")
    /usr/bin/time -f "%e" -o "$W/time" env ${snap[@]+"${snap[@]}"} TPROF_OUTPUT=none \
        TPROF_JSON="$W/r.json" TPROF_PEAK_GFLOPS=50 TPROF_PEAK_GBPS=10 LD_PRELOAD="$SO" \
        "$MLP" --steps "$STEPS" > /dev/null 2>&1 || { echo "snapshot.sh: mlp failed" >&2; exit 1; }
    python3 - "$W/r.json" "$(cat "$W/time")" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
n, avg, mx = 0, 0.0, 0.0
for note in d["notes"]:
    m = re.match(r"TPROF_SNAPSHOT: (\d+) snapshots written, ([\d.]+) ms each on average, ([\d.]+) ms at most", note)
    if m:
        n, avg, mx = int(m.group(1)), float(m.group(2)), float(m.group(3))
print(sys.argv[2], n, avg, mx)
PY
}

CFGS="off 1 0.1 0.02"
declare -A best snaps avg mx
for r in $(seq "$REPS"); do
    for c in $CFGS; do
        read -r w n a m < <(run "$c")
        if [ -z "${best[$c]:-}" ] || python3 -c "import sys; sys.exit(not $w < ${best[$c]})"; then
            best[$c]=$w; snaps[$c]=$n; avg[$c]=$a; mx[$c]=$m
        fi
    done
done
echo "examples/mlp --steps $STEPS under tprof, OPENBLAS_NUM_THREADS=1, best of $REPS (load $(cut -d' ' -f1-3 /proc/loadavg))"
printf "%-22s %8s %9s %10s %12s %12s\n" config wall_s "x no snap" snapshots "ms/snapshot" "max ms"
for c in $CFGS; do
    label="TPROF_SNAPSHOT=$c"
    [ "$c" = off ] && label="no snapshots"
    ratio=$(python3 -c "print(f'{${best[$c]} / ${best[off]}:.3f}')")
    printf "%-22s %8s %9s %10s %12s %12s\n" "$label" "${best[$c]}" "$ratio" "${snaps[$c]}" \
        "${avg[$c]}" "${mx[$c]}"
done
