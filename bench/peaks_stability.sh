#!/bin/sh
# How stable the library's quick peaks are where they used to swing 2x: RUNS profiles of
# examples/mlp (OpenBLAS with its thread pool, still spinning when the program exits), each with
# an empty peaks cache, so that each measures the quick peaks at its exit (and caches them). Then
# one more profile reading the cache, to show what every later run costs. Prints, per run, the
# peaks, the wall time and the process's peak RSS (ru_maxrss, which the triad's arrays raise on
# the measuring run only), and the spread of the GFLOP/s figures (max/min).
#
# Usage: bench/peaks_stability.sh [BUILD_DIR]    Environment: RUNS (default 5), STEPS (mlp's
# --steps, default 40).
set -u
B=${1:-$(cd "$(dirname "$0")/.." && pwd)}
B=$(cd "$B" && pwd)
[ -x "$B/examples/mlp" ] || { echo "bench: $B/examples/mlp not built (needs OpenBLAS)" >&2; exit 2; }
RUNS=${RUNS:-5}
STEPS=${STEPS:-40}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
one() { # $1 = label, $2 = cache dir
    /usr/bin/time -f "%e %M" -o "$W/time" env XDG_CACHE_HOME="$2" TPROF_OUTPUT=none \
        TPROF_JSON="$W/r.json" "$B/tprof" run --step train_step -- "$B/examples/mlp" --steps "$STEPS" \
        >/dev/null 2>"$W/err" || { echo "bench: run failed: $(cat "$W/err")" >&2; exit 1; }
    python3 - "$1" "$W/r.json" "$W/time" <<'PY'
import json, sys
m = json.load(open(sys.argv[2]))["machine"]
wall, rss = open(sys.argv[3]).read().split()
print("%-8s %9.1f %8.2f %8s %8.1f  %s" % (sys.argv[1], m["peak_gflops"], m["peak_gbps"], wall,
      int(rss) / 1024, m["source"].split(":")[0]))
PY
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-8s %9s %8s %8s %8s  %s\n" run GFLOP/s GB/s wall_s RSS_MiB source
for i in $(seq "$RUNS"); do
    rm -rf "$W/cache"
    one "quick$i" "$W/cache" | tee -a "$W/rows"
done
one cached "$W/cache"
awk '{ if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 }
     END { printf "GFLOP/s over %d measuring runs: %.1f-%.1f, max/min %.3f\n", NR, min, max, max / min }' "$W/rows"
awk '{ if (min == "" || $3 < min) min = $3; if ($3 > max) max = $3 }
     END { printf "GB/s over %d measuring runs: %.2f-%.2f, max/min %.3f\n", NR, min, max, max / min }' "$W/rows"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
