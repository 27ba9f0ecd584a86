#!/bin/bash
# What tprof costs an sgemm-bound program (target: tprof/native at most 1.02), measured
# side by side in one run: bench/mlp_blas (a 3-layer MLP training loop on OpenBLAS, every matmul a
# cblas_sgemm, activations malloc'ed per step) natively and under tprof (BLAS wrappers, heap hooks,
# JSON report written), configurations interleaved, REPS runs each. The figure is the training
# loop's own time (the program measures it, so start-up is not in it), best and median of the
# runs; the whole process's wall time (start-up and tprof's exit report included) is shown too.
# Then a second pass with OPENBLAS_NUM_THREADS=1 (less noise from the BLAS thread pool), and a
# third and a fourth with tiny matrices (STEPS=20000, BATCH=1, HIDDEN=8) where tprof's own cost
# shows: the time it adds per step, with the activations allocated per step (8 cblas_sgemm calls
# and 5 malloc/free pairs) and allocated once (8 cblas_sgemm calls only).
#
# Usage: bench/run_ops.sh [BUILD_DIR]     (or `make bench-ops` in the build directory)
# Environment: REPS (default 11), STEPS, BATCH, HIDDEN (mlp_blas arguments; 40 128 512).
set -u

die() { echo "bench: $*" >&2; exit 2; }

if [ $# -gt 1 ]; then
    die "usage: bench/run_ops.sh [BUILD_DIR]"
elif [ $# -eq 1 ]; then
    B=$1
elif [ -f .libs/libtprof.so ]; then
    B=.
else
    B=$(cd "$(dirname "$0")/.." && pwd)
fi
[ -d "$B" ] || die "$B: not a directory"
B=$(cd "$B" && pwd)
SO=$B/.libs/libtprof.so
[ -f "$SO" ] || die "$SO not found: build first (make), or pass the build directory"
if [ ! -x "$B/bench/mlp_blas" ]; then
    make -C "$B" bench/mlp_blas > /dev/null || die "cannot build bench/mlp_blas in $B"
fi
P=$B/bench/mlp_blas
REPS=${REPS:-11}
STEPS=${STEPS:-40}
BATCH=${BATCH:-128}
HIDDEN=${HIDDEN:-512}
for v in REPS STEPS BATCH HIDDEN; do
    case ${!v} in '' | *[!0-9]*) die "$v=${!v}: expected a whole number" ;; esac
    [ "${!v}" -gt 0 ] || die "$v=${!v}: expected a positive number"
done

W=$(mktemp -d /tmp/tprof-bench.XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$W"' EXIT
# Fixed machine peaks: without them tprof would measure the machine at exit (a quarter of a
# second), which is not the cost of profiling.
TP="LD_PRELOAD=$SO TPROF_OUTPUT=none TPROF_JSON=$W/run.json TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=20"

# One run: the loop's seconds to $W/<key>.loop, the process's to $W/<key>.wall, the loss line to
# $W/<key>.out (it must not change under tprof).
run() { # key env...
    local key=$1 line t0 t1
    shift
    t0=$(date +%s%N)
    env "$@" "$P" $ARGS > "$W/out" 2> "$W/err" ||
        die "$key: mlp_blas failed: $(head -3 "$W/err")"
    t1=$(date +%s%N)
    line=$(sed -n 2p "$W/out")
    case $line in
        *" steps in "*) echo "$line" | awk '{print $4}' >> "$W/$key.loop" ;;
        *) die "$key: unexpected output '$line'" ;;
    esac
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }' >> "$W/$key.wall"
    head -1 "$W/out" >> "$W/$key.out"
}
best() { sort -g "$W/$1" | head -1; }
median() { sort -g "$W/$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

pass() { # label, OPENBLAS_NUM_THREADS value or "" for OpenBLAS's default, mlp_blas arguments
    local label=$1 thr=$2 e=() steps=$3
    ARGS="$3 $4 $5 ${7:-1}"
    [ -n "$thr" ] && e=(OPENBLAS_NUM_THREADS="$thr")
    rm -f "$W"/native* "$W"/tprof*
    for r in $(seq "$REPS"); do
        run "native$thr" "${e[@]}"
        # shellcheck disable=SC2086
        run "tprof$thr" "${e[@]}" $TP
    done
    sort -u "$W/native$thr.out" "$W/tprof$thr.out" | wc -l | grep -qx 1 ||
        die "$label: tprof changed the program's output"
    python3 - "$W/run.json" "$steps" <<'PY' || die "$label: the sgemm calls were not recorded"
import json, sys
d = json.load(open(sys.argv[1]))
op = {o["name"]: o for o in d["ops"]}["cblas_sgemm"]
assert op["calls"] == 8 * int(sys.argv[2]), op["calls"]
PY
    awk -v label="$label" -v nb="$(best "native$thr.loop")" -v tb="$(best "tprof$thr.loop")" \
        -v nm="$(median "native$thr.loop")" -v tm="$(median "tprof$thr.loop")" \
        -v nw="$(median "native$thr.wall")" -v tw="$(median "tprof$thr.wall")" -v reps="$REPS" \
        -v steps="$steps" -v tiny="${6:-}" '
    BEGIN {
        printf "%s (%d runs each)\n", label, reps
        printf "  %-34s %10s %10s %8s\n", "", "native s", "tprof s", "ratio"
        printf "  %-34s %10.4f %10.4f %7.3fx\n", "training loop, best", nb, tb, tb / nb
        printf "  %-34s %10.4f %10.4f %7.3fx\n", "training loop, median", nm, tm, tm / nm
        printf "  %-34s %10.4f %10.4f %7.3fx\n", "whole process, median", nw, tw, tw / nw
        if (tiny != "")
            printf "  tprof adds %.0f ns per step (best against best): %s\n", (tb - nb) / steps * 1e9,
                tiny
        else
            printf "  tprof/native (training loop, best) %.3f (target <= 1.02): %s\n", tb / nb,
                (tb / nb <= 1.02 ? "PASS" : "MISS")
    }'
}

echo "bench/mlp_blas: 8 cblas_sgemm per step"
pass "mlp_blas $STEPS $BATCH $HIDDEN, OpenBLAS default threads" "" "$STEPS" "$BATCH" "$HIDDEN"
pass "mlp_blas $STEPS $BATCH $HIDDEN, OPENBLAS_NUM_THREADS=1" 1 "$STEPS" "$BATCH" "$HIDDEN"
pass "mlp_blas 20000 1 8 1 (tiny, allocating per step), OPENBLAS_NUM_THREADS=1" 1 20000 1 8 \
    "8 cblas_sgemm calls and 5 malloc/free pairs" 1
pass "mlp_blas 20000 1 8 0 (tiny, allocating once), OPENBLAS_NUM_THREADS=1" 1 20000 1 8 \
    "8 cblas_sgemm calls" 0
