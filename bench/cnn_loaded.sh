#!/bin/sh
# The bundled CNN with 2 OpenBLAS threads on a loaded machine (issue 27: "the CNN example at
# OPENBLAS_NUM_THREADS=2 on a loaded machine gets the CPU verdict"): one busy loop per allowed
# CPU for the whole run, then the CNN under tprof with no settings but --step; prints the CPU
# verdict line (or says there was none), the header's CPU line, the STEPS line on the CPUs and
# the wall time; then the same with OPENBLAS_NUM_THREADS=1 for comparison. Not run by make
# check: it depends on the machine's load by design.
#
# Usage: bench/cnn_loaded.sh [BUILD_DIR]   Environment: BUSY (busy loops, default: CPUs allowed)
set -u
B=${1:-$(cd "$(dirname "$0")/.." && pwd)}
B=$(cd "$B" && pwd)
[ -x "$B/tprof" ] && [ -x "$B/examples/cnn" ] || { echo "bench: $B not built" >&2; exit 2; }
W=$(mktemp -d)
BUSY=${BUSY:-$(nproc)}
pids=
for i in $(seq "$BUSY"); do
    sh -c 'while :; do :; done' &
    pids="$pids $!"
done
trap 'kill $pids 2>/dev/null; rm -rf "$W"' EXIT
sleep 2
for t in 2 1; do
    start=$(date +%s.%N)
    OPENBLAS_NUM_THREADS=$t "$B/tprof" run --step train_step --json "$W/r$t.json" \
        --output "$W/r$t.txt" -- "$B/examples/cnn" > /dev/null 2>&1 ||
        { echo "bench: the CNN failed with $t threads" >&2; exit 1; }
    end=$(date +%s.%N)
    echo "== OPENBLAS_NUM_THREADS=$t, $BUSY busy loops, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "wall time: $(echo "$end - $start" | bc) s"
    tr '\n' ' ' < "$W/r$t.txt" | sed 's/  */ /g' | grep -o 'CPUs allowed [^;]*; threads on a CPU [^)]*)' || echo "(no header CPU line)"
    tr '\n' ' ' < "$W/r$t.txt" | sed 's/  */ /g' | grep -o 'the recorded steps took [^)]*)[^)]*)[^)]*)' || echo "(no steps line)"
    tr '\n' ' ' < "$W/r$t.txt" | sed 's/  */ /g' | grep -o 'CPU: the process got [^.]*\.[^.]*\.' || echo "(no CPU verdict)"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["verdict"]; print("verdict op:", v["op"], "share %.2f" % v["share"], "cpu_wait_share %.2f" % v["cpu_wait_share"])' "$W/r$t.json"
done
