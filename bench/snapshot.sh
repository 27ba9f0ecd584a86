#!/bin/bash
# What TPROF_SNAPSHOT costs (issue 7): examples/mlp (OpenBLAS on one thread) natively, under
# tprof without snapshots, and with a snapshot every 1 s, 0.1 s and 0.02 s; configurations
# interleaved, best of REPS runs each. Prints wall and CPU seconds, the ratio to tprof without
# snapshots, and the cost of one snapshot (extra time / snapshots written; a snapshot is counted
# each time the JSON report file is replaced, from its inode changing).
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

# run CONFIG: prints "wall cpu snapshots"
run() {
    local cfg=$1 t0 t1
    rm -f "$W/r.json"
    local env=(TPROF_OUTPUT=none TPROF_JSON="$W/r.json" TPROF_PEAK_GFLOPS=50 TPROF_PEAK_GBPS=10)
    case $cfg in
    native) env=() ;;
    tprof) ;;
    *) env+=(TPROF_SNAPSHOT="$cfg") ;;
    esac
    rm -f "$W/done"
    # count replacements of the report by polling its inode every 5 ms
    ( last=; n=0
      while [ ! -f "$W/done" ]; do
          i=$(stat -c %i "$W/r.json" 2> /dev/null) && [ "$i" != "$last" ] && { n=$((n + 1)); last=$i; }
          sleep 0.005
      done; echo "$n" > "$W/count" ) &
    local poll=$!
    /usr/bin/time -f "%e %U %S" -o "$W/time" env ${env[@]+"${env[@]}"} ${env[@]+LD_PRELOAD="$SO"} \
        "$MLP" --steps "$STEPS" > /dev/null 2>&1
    touch "$W/done"
    wait "$poll"
    read -r wall u s < "$W/time"
    local n
    n=$(cat "$W/count")
    [ "$cfg" = native ] || [ "$cfg" = tprof ] || n=$((n > 0 ? n - 1 : 0)) # the exit report
    echo "$wall $(echo "$u + $s" | bc) $n"
}

CFGS="native tprof 1 0.1 0.02"
declare -A best_w best_c snaps
for r in $(seq "$REPS"); do
    for c in $CFGS; do
        read -r w cpu n < <(run "$c")
        if [ -z "${best_w[$c]:-}" ] || [ "$(echo "$w < ${best_w[$c]}" | bc)" = 1 ]; then
            best_w[$c]=$w; best_c[$c]=$cpu; snaps[$c]=$n
        fi
    done
done
echo "examples/mlp --steps $STEPS, OPENBLAS_NUM_THREADS=1, best of $REPS (load $(cut -d' ' -f1-3 /proc/loadavg))"
printf "%-22s %8s %8s %9s %10s %14s\n" config wall_s cpu_s "x tprof" snapshots "ms/snapshot"
for c in $CFGS; do
    label=$c
    case $c in native | tprof) ;; *) label="TPROF_SNAPSHOT=$c" ;; esac
    ratio=$(echo "scale=3; ${best_w[$c]} / ${best_w[tprof]}" | bc)
    per=-
    if [ "${snaps[$c]}" -gt 0 ] && [ "$c" != native ] && [ "$c" != tprof ]; then
        per=$(echo "scale=2; (${best_w[$c]} - ${best_w[tprof]}) * 1000 / ${snaps[$c]}" | bc)
    fi
    printf "%-22s %8s %8s %9s %10s %14s\n" "$label" "${best_w[$c]}" "${best_c[$c]}" "$ratio" \
        "${snaps[$c]}" "$per"
done
